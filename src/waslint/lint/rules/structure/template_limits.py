"""WAS602 template-limits, in six parts: the limits of a Workload's template tree (`list-size`,
`tree-depth`, `unique-template-names`, `composite-needs-child`), the union of its template lists
(`template-list-union`) and the basic/gang union of every group's policy (`policy-union`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from waslint.core.model import Path, Severity
from waslint.knowledge.imperative import WORKLOAD_MAX_TREE_DEPTH as MAX_TREE_DEPTH
from waslint.knowledge.schema import render_path
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Part, Rule, register
from waslint.lint.rules.input.upstream import group_at, value_at
from waslint.lint.rules.structure.common import holder_label, template_name
from waslint.objects.groups import Group
from waslint.objects.keys import POLICY_KINDS
from waslint.objects.kobject import KObject, as_list, as_str
from waslint.objects.walks import (
    GroupTemplate,
    template_lists,
    workload_templates,
)

if TYPE_CHECKING:
    from waslint.knowledge.validation import ValidationIssue

_NAME_ORIGINS = frozenset({"listType=map", "uniqueTemplateNames", "uniquePodGroupNames"})

LIST_SIZE = Part(
    "list-size",
    "more than 8 templates in any list (`podGroupTemplates`, `compositePodGroupTemplates`,"
    " v1alpha1 `podGroups`, and every nested list).",
)
TREE_DEPTH = Part("tree-depth", "a template tree deeper than 4 levels (reported once, at the first template too deep).")
UNIQUE_TEMPLATE_NAMES = Part("unique-template-names", "a template name used twice anywhere in the tree.")
COMPOSITE_NEEDS_CHILD = Part("composite-needs-child", "a composite template with no child template.")
TEMPLATE_LIST_UNION = Part(
    "template-list-union", "both or neither of `podGroupTemplates` / `compositePodGroupTemplates` in `spec`."
)
POLICY_UNION = Part(
    "policy-union",
    "in Workload templates, PodGroup and CompositePodGroup `spec` and Job / CronJob"
    " `spec.scheduling`: a `schedulingPolicy` that sets both or neither of `basic` / `gang`"
    " (`basic:` with no value is null, which the API reads as unset: write `basic: {}`).",
)


@register
class TemplateLimits(Rule):
    code = "WAS602"
    name = "template-limits"
    severity = Severity.ERROR
    summary = "Workload template tree limits and the basic/gang and template-list unions."
    what = (
        "Words upstream validation's errors (the one detector: the `+k8s:` unions, maxItems and"
        " listType=map keys, and the hand-written tree checks of validation.go), in six parts,"
        " each on its own; the first five concern a Workload's template tree:"
    )
    parts = (LIST_SIZE, TREE_DEPTH, UNIQUE_TEMPLATE_NAMES, COMPOSITE_NEEDS_CHILD, TEMPLATE_LIST_UNION, POLICY_UNION)
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
        """Upstream validation is the detector (unions, `maxItems`, `listType=map` and the
        hand-written tree checks); each of its errors is worded here by its part, once per field."""
        from waslint.lint.rules.input.upstream import owned_issues

        issues = owned_issues(obj, ctx.target, self.code)
        if not issues:
            return
        templates = workload_templates(obj) if obj.kind == "Workload" else []
        names = [name for name, _ in template_lists(obj)] if obj.kind == "Workload" else []
        reported: set[tuple[str, Path]] = set()
        for issue in issues:
            # a name used twice can be two upstream errors (listType=map and the tree-wide check)
            part = "name" if issue.origin in _NAME_ORIGINS else issue.origin
            for hit in self._explain(obj, issue, templates, names):
                if (part, tuple(hit.path)) not in reported:
                    reported.add((part, tuple(hit.path)))
                    yield hit

    def _explain(
        self, obj: KObject, issue: ValidationIssue, templates: list[GroupTemplate], names: list[str]
    ) -> Iterator[Hit]:

        path = issue.path
        if (
            issue.origin in ("union", "required")
            and path[:1] == ("spec",)
            and len(path) <= 2
            and obj.kind == "Workload"
        ):
            yield from self._template_list_union(obj, names)
        elif issue.origin == "union":
            group = group_at(obj, path)
            if group is not None:
                yield from self._policy_union(obj, group)
        elif issue.origin == "maxItems":
            yield from self._list_size(obj, path, issue.bound or len(as_list(value_at(obj.data, path))))
        elif issue.origin == "treeDepth":
            yield from self._tree_depth(obj, [t for t in templates if tuple(t.path[: len(path)]) == tuple(path)])
        elif issue.origin == "compositeHasChild":
            template = next((t for t in templates if tuple(t.path) == tuple(path)), None)
            if template is not None:
                yield from self._composite_needs_child(obj, template)
        else:  # listType=map, uniqueTemplateNames, uniquePodGroupNames: a name used twice
            at = path[:-1] if path[-1] == "name" else path
            template = next((t for t in templates if tuple(t.path) == tuple(at)), None)
            if template is not None:
                yield from self._unique_template_name(obj, template, templates)
            elif obj.kind == "Workload":
                yield self.hit(obj, (*at, "name"), f"{render_path(at)}: {issue.message}", point_at_key=False)

    # -- template-list-union

    def _template_list_union(self, obj: KObject, names: list[str]) -> Iterator[Hit]:
        spec = obj.spec
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
        else:
            empty = next((name for name in names if name in spec), None)
            yield self.hit(
                obj,
                ("spec", empty) if empty else ("spec",),
                (f"spec.{empty} is empty" if empty else "spec has no templates")
                + ": set exactly one of podGroupTemplates or compositePodGroupTemplates, with at"
                " least one template",
            )

    # -- list-size

    def _list_size(self, obj: KObject, path: Path, bound: int) -> Iterator[Hit]:
        items = as_list(value_at(obj.data, path))
        yield self.hit(
            obj,
            (*path, bound),
            f"{render_path(path)} has {len(items)} templates; at most"
            f" {bound} per list: merge templates that share a policy, or split the"
            " Workload",
        )

    # -- composite-needs-child

    def _composite_needs_child(self, obj: KObject, template: GroupTemplate) -> Iterator[Hit]:
        yield self.hit(
            obj,
            (*template.path, "name") if "name" in template.data else template.path,
            f"composite template {template_name(template)!r} has no child template: give it"
            " podGroupTemplates or compositePodGroupTemplates (at least one template)",
        )

    # -- tree-depth

    def _tree_depth(self, obj: KObject, templates: list[GroupTemplate]) -> Iterator[Hit]:
        too_deep = next((template for template in templates if template.depth > MAX_TREE_DEPTH), None)
        if too_deep is None:
            return
        deepest = max(template.depth for template in templates)
        depth_text = f"{deepest}" if deepest <= 16 else "more than 16"
        yield self.hit(
            obj,
            too_deep.path,
            f"the template tree is {depth_text} levels deep (template {template_name(too_deep)!r} is"
            f" at level {too_deep.depth}); a Workload allows at most {MAX_TREE_DEPTH} levels:"
            " flatten the tree",
        )

    # -- unique-template-names

    def _unique_template_name(
        self, obj: KObject, template: GroupTemplate, templates: list[GroupTemplate]
    ) -> Iterator[Hit]:
        name = as_str(template.data.get("name"))
        first = next((t for t in templates if as_str(t.data.get("name")) == name), None)
        if name is None or first is None or first is template:
            return
        yield self.hit(
            obj,
            (*template.path, "name"),
            f"template name {name!r} is used twice in this Workload (also at"
            f" {render_path(first.path)}); names must be unique across the whole template tree,"
            " since PodGroups refer to their template by name alone",
            point_at_key=False,
        )

    # -- policy-union

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
