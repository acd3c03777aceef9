"""WAS602 template-limits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Path, Severity
from waslint.knowledge.schema import render_path
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.structure.common import MAX_TREE_DEPTH, holder_label, template_name
from waslint.objects.groups import Group, groups_of
from waslint.objects.keys import POLICY_KINDS
from waslint.objects.kobject import KObject, as_list, as_str
from waslint.objects.walks import (
    GroupTemplate,
    template_lists,
    workload_templates,
)

MAX_TEMPLATES = 8  # WorkloadMaxPodGroupTemplates, per list


LEGACY_LIST = "podGroups"  # a 1.35 Workload's list (WAS002/WAS003 check it, WAS101 renames it)


@register
class TemplateLimits(Rule):
    code = "WAS602"
    name = "template-limits"
    severity = Severity.ERROR
    summary = "Workload template tree limits and the basic/gang and template-list unions."
    what = (
        "In a Workload: more than 8 templates in any list (`podGroupTemplates`,"
        " `compositePodGroupTemplates`, v1alpha1 `podGroups`, and every nested list), a template"
        " tree deeper than 4 levels, a template name used twice anywhere in the tree, a composite"
        " template with no child, and both or neither of `podGroupTemplates` /"
        " `compositePodGroupTemplates` in `spec`. In Workload templates, PodGroup and"
        " CompositePodGroup `spec` and Job / CronJob `spec.scheduling`: a `schedulingPolicy` that"
        " sets both or neither of `basic` / `gang` (`basic:` with no value is null, which the API"
        " reads as unset: write `basic: {}`)."
    )
    why = (
        "The API server rejects these objects (WorkloadMaxPodGroupTemplates = 8,"
        " WorkloadMaxTreeDepth = 4, unions with exactly one member). Template names must be unique"
        " across the whole tree because PodGroups and CompositePodGroups name their template by"
        " `workloadRef.templateName` alone. A Workload created by a controller fails at the worst"
        " moment: the controller retries forever and no pod is ever scheduled."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      basic: {}
      gang:
        minCount: 4
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
"""
    kinds = POLICY_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.kind == "Workload":
            if not isinstance(obj.data.get("spec"), dict):
                return
            yield from self._workload(obj)
        for group in groups_of(obj):
            yield from self._policy_union(obj, group)

    def _workload(self, obj: KObject) -> Iterator[Hit]:
        spec = obj.spec
        lists = template_lists(obj)
        names = [name for name, _ in lists]
        flat = as_list(spec.get(names[0]))
        composite = as_list(spec.get(names[1])) if len(names) > 1 else []
        if flat and composite:
            yield self.hit(
                obj,
                ("spec", names[1]),
                f"spec sets both {names[0]} and {names[1]}; a Workload takes"
                " exactly one: flat PodGroup templates, or a tree of composite templates (move the"
                f" flat templates into a composite template's {names[0]})",
            )
        elif not flat and not composite and LEGACY_LIST not in spec:
            empty = next((name for name in names if name in spec), None)
            yield self.hit(
                obj,
                ("spec", empty) if empty else ("spec",),
                (f"spec.{empty} is empty" if empty else "spec has no templates")
                + ": set exactly one of podGroupTemplates or compositePodGroupTemplates, with at"
                " least one template",
            )
        yield from self._list_sizes(obj, ("spec",), spec, names)
        templates = workload_templates(obj)
        seen: dict[str, GroupTemplate] = {}
        deepest = max((t.depth for t in templates), default=0)
        reported_depth = False
        for template in templates:
            if template.composite:
                yield from self._list_sizes(obj, template.path, template.data, names)
                if not any(as_list(template.data.get(name)) for name in names):
                    yield self.hit(
                        obj,
                        (*template.path, "name") if "name" in template.data else template.path,
                        f"composite template {template_name(template)!r} has no child template: give it"
                        " podGroupTemplates or compositePodGroupTemplates (at least one template)",
                    )
            if template.depth > MAX_TREE_DEPTH and not reported_depth:
                reported_depth = True
                depth_text = f"{deepest}" if deepest <= 16 else "more than 16"
                yield self.hit(
                    obj,
                    template.path,
                    f"the template tree is {depth_text} levels deep (template {template_name(template)!r} is"
                    f" at level {template.depth}); a Workload allows at most {MAX_TREE_DEPTH} levels:"
                    " flatten the tree",
                )
            name = as_str(template.data.get("name"))
            if name is None:
                continue
            first = seen.get(name)
            if first is None:
                seen[name] = template
                continue
            yield self.hit(
                obj,
                (*template.path, "name"),
                f"template name {name!r} is used twice in this Workload (also at"
                f" {render_path(first.path)}); names must be unique across the whole template tree,"
                " since PodGroups refer to their template by name alone",
                point_at_key=False,
            )

    def _list_sizes(self, obj: KObject, path: Path, holder: dict[str, Any], names: list[str]) -> Iterator[Hit]:
        for list_name in names:
            items = as_list(holder.get(list_name))
            if len(items) > MAX_TEMPLATES:
                yield self.hit(
                    obj,
                    (*path, list_name, MAX_TEMPLATES),
                    f"{render_path((*path, list_name))} has {len(items)} templates; at most"
                    f" {MAX_TEMPLATES} per list: merge templates that share a policy, or split the"
                    " Workload",
                )

    def _policy_union(self, obj: KObject, group: Group) -> Iterator[Hit]:
        policy = group.policy.raw
        key = group.policy.key
        if not isinstance(policy, dict):
            return  # missing (required: WAS002; optional for a Job: basic) or not a mapping
        gang_name = "gang"
        basic_set = policy.get("basic") is not None
        gang_set = policy.get(gang_name) is not None
        label = holder_label(group)
        if basic_set and gang_set:
            yield self.hit(
                obj,
                (*group.policy.path, gang_name),
                f"{label}: {key} sets both basic and gang; choose one: gang for all-or-nothing"
                " admission, basic for pod-by-pod scheduling",
            )
        elif not basic_set and not gang_set:
            nulls = [name for name in ("basic", gang_name) if name in policy]
            note = (
                f" (`{nulls[0]}:` with no value is null, which the API reads as unset: write"
                f" `{nulls[0]}: {{}}`{' with its fields' if nulls[0] == 'gang' else ''})"
                if nulls
                else ""
            )
            yield self.hit(
                obj,
                group.policy.path,
                f"{label}: {key} sets neither basic nor gang; set exactly one{note}",
            )
