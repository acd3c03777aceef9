"""WAS604 immutable-field-changed."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from waslint.core.model import Path, Severity
from waslint.knowledge.components import APISERVER
from waslint.knowledge.lifecycle import current_line, same_schema
from waslint.knowledge.schema import render_path
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import MIN_COUNT, Group, groups_of, policy_variant
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.walks import (
    TEMPLATE_COPIED_FIELDS,
    GroupTemplate,
    template_lists,
)

if TYPE_CHECKING:
    from waslint.knowledge.validation import ReleaseName

_DEFAULTS = {"disruptionMode": {"single": {}}, "preemptionPolicy": "PreemptLowerPriority"}


_LEGACY_VERSION = "v1alpha1"


_NO_ADD = " (templates cannot be added or removed after the Workload is created)"


@register
class ImmutableFieldChanged(Rule):
    code = "WAS604"
    name = "immutable-field-changed"
    severity = Severity.ERROR
    summary = "With --base GIT_REF: an object changed a field the API makes immutable."
    what = (
        "With `--base GIT_REF`, reads the linted files as they were at that revision (straight "
        "from git, no checkout), matches objects by API group, kind, namespace and name, and "
        "compares the immutable fields, after what kube-apiserver's registry strategy does first: "
        "a gated field the stored object does not use is dropped while its gate is known off "
        "there (`knowledge/strategies.yaml`; WAS702 reports it), so adding it is no error. "
        "Workload: templates added or removed (at any level of the tree), `controllerRef` (in "
        "v1alpha1 one may still be set when the stored object has none), and per template the "
        "`basic`/`gang` variant, `schedulingConstraints` (topology), `resourceClaims`, "
        "`disruptionMode`, `priorityClassName`, `priority` and `preemptionPolicy` (in "
        "v1alpha1/v1alpha2 the whole template list). PodGroup: every `spec` field except "
        "`schedulingPolicy.gang.minCount` (every field in v1alpha2). CompositePodGroup: every "
        "`spec` field. Job: `spec.scheduling` except `schedulingPolicy.gang.minCount`, including "
        "adding or removing it. CronJob: `spec.jobTemplate.spec.scheduling` by the Job's update "
        "markers (adding or removing it or its policy, changing constraints, disruptionMode or "
        "claims), while the basic/gang choice and gang.minCount may change. API defaults are "
        "applied before comparing (an unset PodGroup `disruptionMode` equals `{single: {}}`). An "
        "object whose apiVersion moved across a removed version (v1alpha2 to v1beta1) is not "
        "compared: it has to be recreated anyway (WAS101). Beyond these comparisons, every "
        "`+k8s:immutable` and `+k8s:update=NoSet/NoUnset/NoAddItem/NoRemoveItem` marker of the "
        "upstream types (the generated validation data of WAS003) is applied to the two "
        "revisions."
    )
    why = (
        "`kubectl apply` or a GitOps sync of such a change is rejected by the API server (or, for"
        " a controller-owned object, retried forever), usually long after review. Workload"
        " templates and group policies are fixed when the object is created: the change needs a"
        " new Workload revision (a new name) that new PodGroups and pods point to, not an edit."
    )
    # The object as it was at the --base revision: documented examples are linted against it.
    example_base = """\
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
    disruptionMode:
      single: {}
"""
    example = """\
# waslint lint --base origin/main   (at origin/main the template had disruptionMode {single: {}})
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
    disruptionMode:
      all: {}
"""
    use_instead = """\
# a new revision: a new Workload (and new PodGroups) instead of editing the old one
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training-v2
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
    disruptionMode:
      all: {}
"""
    kinds = frozenset(
        {
            (SCHEDULING, "Workload"),
            (SCHEDULING, "PodGroup"),
            (SCHEDULING, "CompositePodGroup"),
            ("batch", "Job"),
            ("batch", "CronJob"),
        }
    )

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        base = ctx.base
        name = as_str(obj.metadata.get("name"))
        if base is None or name is None:
            return
        old = base.index.get(obj.group, obj.kind, obj.namespace, name)
        if old is None or not same_schema(obj.group, obj.kind, old.version, obj.version):
            return
        obj = _as_stored(obj, old, ctx)
        if obj.kind == "CronJob":
            for path, change in _cronjob_changes(obj, old, ctx.target):
                yield self.hit(
                    obj,
                    path,
                    f"{change} since {old.file.path}; a CronJob's jobTemplate spec.scheduling follows the"
                    " Job's update rules (only gang.minCount and the basic/gang choice may change):"
                    " create a new CronJob (a new name) for the new scheduling",
                )
            return
        if obj.kind == "Workload":
            changes = _workload_changes(old, obj)
            advice = (
                "the API server rejects this update: create a new Workload revision (a new name)"
                " and point new PodGroups and pods at it, instead of editing this one"
            )
        elif obj.kind == "Job":
            changes = _job_changes(old, obj)
            advice = "spec.scheduling is immutable: delete and recreate the Job (or create it under a new name)"
        else:
            changes = _group_changes(old, obj)
            what = (
                "apart from gang.minCount "
                if obj.kind == "PodGroup" and current_line(obj.group, obj.version, obj.kind)
                else ""
            )
            advice = (
                f"a {obj.kind} is immutable {what}once created: create a new one (a new name, from a"
                " new Workload revision when it comes from a template) instead of editing this one"
            )
        changes.extend(_marker_changes(obj, old, ctx.target, [path for path, _ in changes]))
        for path, change in changes:
            yield self.hit(obj, path, f"{change} since {old.file.path}; {advice}")


def _as_stored(obj: KObject, old: KObject, ctx: Context) -> KObject:
    """The object as the API server compares it: its registry strategy first drops the gated
    fields the stored object does not use while their gate is known off on kube-apiserver
    (knowledge/strategies.yaml); such a field is no immutability error (WAS702 reports the drop)."""
    from waslint.knowledge import strategies

    data, dropped = strategies.prepare_for_update(
        ctx.target, obj.group, obj.kind, obj.data, old.data, _apiserver_gates(ctx)
    )
    return dataclasses.replace(obj, data=data, _memo=None) if dropped else obj


def _apiserver_gates(ctx: Context) -> Callable[[str], bool | None]:
    from waslint.lint.rules.gates.common import inventory_of  # with --base only: off the start-up

    inventory = inventory_of(ctx)
    if inventory.empty:
        return lambda _gate: None

    def state(gate: str) -> bool | None:
        return inventory.known_value(gate, (APISERVER,), ctx.target)[0]

    return state


def _cronjob_changes(obj: KObject, old: KObject, target: ReleaseName) -> list[tuple[Path, str]]:
    """The Job's `+k8s:` update markers applied to spec.jobTemplate.spec (upstream's CronJob
    TestDeclarativeValidateUpdate); the imperative basic/gang rule of a Job's own update does not
    apply: each Job the CronJob creates starts a new Workload."""
    from waslint.knowledge import validation

    where: Path = ("spec", "jobTemplate", "spec")
    new_spec, old_spec = (
        as_map(as_map(obj.spec.get("jobTemplate")).get("spec")),
        as_map(as_map(old.spec.get("jobTemplate")).get("spec")),
    )
    issues = validation.validate_update(target, "batch/v1", "Job", {"spec": new_spec}, {"spec": old_spec})
    found: list[tuple[Path, str]] = []
    for issue in issues:
        path = (*where, *issue.path[1:])
        found.append((path, f"{render_path(path)}: {issue.detail} ({issue.origin})"))
    return found


def _related(path: Path, other: Path) -> bool:
    shorter = min(len(path), len(other))
    return path[:shorter] == other[:shorter]


def _marker_changes(obj: KObject, old: KObject, target: ReleaseName, reported: list[Path]) -> list[tuple[Path, str]]:
    """Changes upstream's `+k8s:immutable` / `update=` markers reject that the comparisons above do
    not already report (at the same field, or above or below it)."""
    api_version = obj.api_version if obj.group == SCHEDULING else "batch/v1"
    new_data, old_data = obj.data, old.data
    if obj.kind in ("PodGroup", "CompositePodGroup"):  # admission defaults, as _group_changes applies them
        new_data = {**new_data, "spec": {**_DEFAULTS, **{k: v for k, v in obj.spec.items() if v is not None}}}
        old_data = {**old_data, "spec": {**_DEFAULTS, **{k: v for k, v in old.spec.items() if v is not None}}}
    from waslint.knowledge import validation  # loaded by the first --base comparison

    issues = validation.validate_update(target, api_version, obj.kind, new_data, old_data)
    found: list[tuple[Path, str]] = []
    for issue in issues:
        if not any(_related(issue.path, path) for path in reported + [p for p, _ in found]):
            found.append((issue.path, f"{render_path(issue.path)}: {issue.detail} ({issue.origin})"))
    return found


def _show(value: Any) -> str:
    if value is None:
        return "unset"
    text = json.dumps(value, sort_keys=True, separators=(",", ": "))
    return text if len(text) <= 60 else text[:57] + "..."


def _policy_change(path: Path, old: Any, new: Any, key: str, keep_count: bool) -> Iterator[tuple[Path, str]]:
    """schedulingPolicy: the basic/gang variant is fixed; gang.minCount may change when keep_count."""
    old_variant, new_variant = policy_variant(old), policy_variant(new)
    if old_variant != new_variant:
        yield (
            (*path, key),
            f"{key} changed from {old_variant or 'unset'} to {new_variant or 'unset'}"
            " (the policy kind is fixed at creation)",
        )
        return
    strip = ("gang", MIN_COUNT) if keep_count else None
    if _without(old, strip) != _without(new, strip):
        yield (*path, key), f"{key} changed from {_show(old)} to {_show(new)}"


def _without(policy: Any, strip: tuple[str, str] | None) -> Any:
    if strip is None or not isinstance(policy, dict) or not isinstance(policy.get(strip[0]), dict):
        return policy
    copy = dict(policy)
    inner = dict(copy[strip[0]])
    inner.pop(strip[1], None)
    copy[strip[0]] = inner
    return copy


def _field_path(path: Path, field: str, holder: dict[str, Any]) -> Path:
    return (*path, field) if field in holder else path


def _workload_changes(old: KObject, new: KObject) -> list[tuple[Path, str]]:
    changes: list[tuple[Path, str]] = []
    # the 1.35 line (v1alpha1) checks controllerRef only when the stored one is set
    settable = new.version == _LEGACY_VERSION and old.spec.get("controllerRef") is None
    if old.spec.get("controllerRef") != new.spec.get("controllerRef") and not settable:
        changes.append(
            (
                _field_path(("spec",), "controllerRef", new.spec),
                f"spec.controllerRef changed from {_show(old.spec.get('controllerRef'))} to"
                f" {_show(new.spec.get('controllerRef'))}",
            )
        )
    if not current_line(new.group, new.version, new.kind):  # v1alpha1/v1alpha2: the whole list is immutable
        for list_name, _ in template_lists(new):
            if old.spec.get(list_name) != new.spec.get(list_name):
                changes.append(
                    (
                        _field_path(("spec",), list_name, new.spec),
                        f"spec.{list_name} changed (in {new.version} the whole template list is immutable,"
                        " minCount included)",
                    )
                )
        return changes
    old_groups = _by_name(groups_of(old))
    new_groups = _by_name(groups_of(new))
    old_templates = {name: group.template for name, group in old_groups.items() if group.template is not None}
    new_templates = {name: group.template for name, group in new_groups.items() if group.template is not None}
    for name, template in new_templates.items():
        before = old_templates.get(name)
        if before is None:
            changes.append(
                (
                    (*template.path, "name"),
                    f"template {name!r} was added{_NO_ADD}",
                )
            )
            continue
        if _place(before) != _place(template):
            changes.append(
                (
                    (*template.path, "name"),
                    f"template {name!r} moved from {_place_text(before)} to {_place_text(template)}{_NO_ADD}",
                )
            )
            continue
        changes.extend(_template_changes(old_groups[name], new_groups[name]))
    for name, template in old_templates.items():
        if name in new_templates:
            continue
        parent_path = _surviving_parent(template, new_templates)
        changes.append(
            (
                parent_path,
                f"template {name!r} was removed from {_place_text(template)}{_NO_ADD}",
            )
        )
    return changes


def _by_name(groups: list[Group]) -> dict[str, Group]:
    """A Workload's template groups by name (the first of a name)."""
    found: dict[str, Group] = {}
    for group in groups:
        name = group.name
        if name is not None and name not in found:
            found[name] = group
    return found


def _place(template: GroupTemplate) -> tuple[str | None, Any]:
    parent = as_str(template.parent.data.get("name")) if template.parent is not None else None
    return parent, template.path[-2]


def _place_text(template: GroupTemplate) -> str:
    parent, list_name = _place(template)
    return f"{parent!r}.{list_name}" if parent else f"spec.{list_name}"


def _surviving_parent(template: GroupTemplate, new_templates: dict[str, GroupTemplate]) -> Path:
    parent = template.parent
    while parent is not None:
        name = as_str(parent.data.get("name"))
        if name is not None and name in new_templates:
            return new_templates[name].path
        parent = parent.parent
    return ("spec",)


def _template_changes(old: Group, new: Group) -> list[tuple[Path, str]]:
    name = new.name
    changes: list[tuple[Path, str]] = []
    old_variant, new_variant = old.policy.variant, new.policy.variant
    if old_variant != new_variant:  # gang.minCount / minGroupCount may change, the variant not
        changes.append(
            (
                new.field_path(new.policy.key),
                f"template {name!r}: {new.policy.key} changed from {old_variant or 'unset'} to"
                f" {new_variant or 'unset'} (the policy kind is fixed at creation)",
            )
        )
    for field in TEMPLATE_COPIED_FIELDS:
        before, after = old.data.get(field), new.data.get(field)
        if before != after:
            changes.append(
                (
                    _field_path(new.path, field, new.data),
                    f"template {name!r}: {field} changed from {_show(before)} to {_show(after)}",
                )
            )
    return changes


def _group_changes(old: KObject, new: KObject) -> list[tuple[Path, str]]:
    """PodGroup (all but gang.minCount) and CompositePodGroup (everything): spec with defaults."""
    current = current_line(new.group, new.version, new.kind)
    defaults = _DEFAULTS if current else {"disruptionMode": "Pod"}
    keep_count = new.kind == "PodGroup" and current
    old_spec = {**defaults, **{k: v for k, v in old.spec.items() if v is not None}}
    new_spec = {**defaults, **{k: v for k, v in new.spec.items() if v is not None}}
    changes: list[tuple[Path, str]] = []
    for field in sorted(set(old_spec) | set(new_spec), key=lambda f: (f != "schedulingPolicy", f)):
        before, after = old_spec.get(field), new_spec.get(field)
        if field == "schedulingPolicy":
            changes.extend(_policy_change(("spec",), before, after, field, keep_count))
        elif before != after:
            changes.append(
                (
                    _field_path(("spec",), field, new.spec),
                    f"spec.{field} changed from {_show(before)} to {_show(after)}",
                )
            )
    return changes


def _job_changes(old: KObject, new: KObject) -> list[tuple[Path, str]]:
    before, after = old.spec.get("scheduling"), new.spec.get("scheduling")
    if before is None and after is None:
        return []
    if before is None or after is None:
        verb = "added" if before is None else "removed"
        path: Path = ("spec", "scheduling") if after is not None else ("spec",)
        return [(path, f"spec.scheduling was {verb} (whether a Job has spec.scheduling is fixed at creation)")]
    old_s, new_s = as_map(before), as_map(after)
    changes: list[tuple[Path, str]] = []
    for field in sorted(set(old_s) | set(new_s), key=lambda f: (f != "schedulingPolicy", f)):
        if field == "schedulingPolicy":
            changes.extend(_policy_change(("spec", "scheduling"), old_s.get(field), new_s.get(field), field, True))
        elif old_s.get(field) != new_s.get(field):
            changes.append(
                (
                    _field_path(("spec", "scheduling"), field, new_s),
                    f"spec.scheduling.{field} changed from {_show(old_s.get(field))} to {_show(new_s.get(field))}",
                )
            )
    return changes
