"""WAS304 template-drift."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.sizing.common import workload_template_of
from waslint.objects.groups import MIN_COUNT, MIN_GROUP_COUNT, Group, object_group
from waslint.objects.keys import (
    SCHEDULING,
)
from waslint.objects.kobject import KObject

_UNKNOWN = object()  # a field of the wrong type: not compared (WAS002 reports it)


def _disruption(group: Group) -> Any:
    if group.disruption.raw is None:
        return "single"  # the PodGroup default, and what a PodGroup made from the template gets
    mode = group.disruption.mode
    return _UNKNOWN if mode is None else mode


def _topology(group: Group) -> Any:
    constraints = group.data.get("schedulingConstraints")
    if constraints is None:
        return ()
    if not isinstance(constraints, dict) or any(entry.key is None for entry in group.topology):
        return _UNKNOWN
    return tuple(entry.key for entry in group.topology)


def _facets(group: Group) -> list[tuple[str, Path, Any]]:
    """(facet, path of the field, comparable value) of a group for WAS304."""
    policy = group.policy
    kind = policy.variant
    facets: list[tuple[str, Path, Any]] = [("policy kind", policy.path, kind if kind is not None else _UNKNOWN)]
    if kind == "gang":
        value = policy.minimum.value
        facets.append((policy.minimum.field, policy.minimum.path, _UNKNOWN if value is None else value))
    facets.append(("disruptionMode", group.disruption.path, _disruption(group)))
    priority = group.data.get("priorityClassName")
    facets.append(
        (
            "priorityClassName",
            (*group.path, "priorityClassName"),
            priority if priority is None or isinstance(priority, str) else _UNKNOWN,
        )
    )
    facets.append(("topology key", (*group.path, "schedulingConstraints"), _topology(group)))
    if not group.composite:
        raw_claims = group.data.get("resourceClaims")
        claims = (
            frozenset(claim.triple for claim in group.claims)
            if raw_claims is None or isinstance(raw_claims, list)
            else _UNKNOWN
        )
        facets.append(("claims", (*group.path, "resourceClaims"), claims))
    return facets


def _show(facet: str, value: Any) -> str:
    if value is None or value == () or value == frozenset():
        return "unset" if facet != "claims" else "no claims"
    if facet == "disruptionMode":
        return f"{{{value}: {{}}}}"
    if facet == "topology key":
        return ", ".join(value)
    if facet == "claims":
        return "; ".join(_show_triple(t) for t in sorted(value, key=lambda t: tuple(map(str, t))))
    return str(value)


def _show_triple(triple: tuple[str | None, str | None, str | None]) -> str:
    name, claim, template = triple
    parts = [f"name: {name}"]
    if claim is not None:
        parts.append(f"resourceClaimName: {claim}")
    if template is not None:
        parts.append(f"resourceClaimTemplateName: {template}")
    return "{" + ", ".join(parts) + "}"


@register
class TemplateDrift(Rule):
    code = "WAS304"
    name = "template-drift"
    severity = Severity.WARNING
    summary = "A PodGroup or CompositePodGroup differs from the Workload template it names."
    what = (
        "For a PodGroup or CompositePodGroup whose `spec.workloadRef` (or the 1.36"
        " `podGroupTemplateRef.workload`, which WAS104 rewrites) names a Workload in the set (same"
        " namespace) and a template of it, compares: the policy kind (basic/gang),"
        " `minCount`/`minGroupCount`, `disruptionMode` (unset means `{single: {}}`; the 1.36"
        " strings are read as their 1.37 meaning), `priorityClassName`, the topology key and, for"
        " PodGroups, the claims (as a set of triples). One finding per differing field, at the"
        " group's field. A PodGroup naming a composite template (or the reverse) and a template"
        " that is not there are reference problems (WAS402), not drift; fields of the wrong type"
        " are left to WAS002."
    )
    why = (
        "Controllers create PodGroups from the template, so a hand-written PodGroup that differs"
        " behaves differently from the ones the same Workload produces later, and the Workload"
        " no longer documents what runs. All these fields but `minCount` are immutable: the"
        " PodGroup has to be recreated. `minCount` is mutable in 1.37: if the group was scaled"
        " on purpose, scale the template too."
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
      gang:
        minCount: 8
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 6
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 8
"""
    kinds = frozenset({(SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        found = workload_template_of(obj, ctx)
        if found is None:
            return
        workload, template = found
        group = object_group(obj)
        if group is None or template.composite != group.composite:
            return
        name = template.name or "<unnamed>"
        source = f"Workload {workload.namespace}/{workload.name} template {name!r}"
        theirs = {facet: value for facet, _, value in _facets(template)}
        for facet, path, mine in _facets(group):
            # minCount/minGroupCount exist on both sides only when both are gangs.
            other = theirs.get(facet, _UNKNOWN)
            if mine is _UNKNOWN or other is _UNKNOWN or mine == other:
                continue
            yield self._drift(obj, path, facet, mine, other, source)

    def _drift(self, obj: KObject, path: Path, facet: str, mine: Any, other: Any, source: str) -> Hit:
        if facet in (MIN_COUNT, MIN_GROUP_COUNT):
            advice = (
                f"{facet} is mutable: if it was scaled on purpose, scale the template too (new"
                f" groups from it get {other}); otherwise set it back to {other}"
            )
        elif facet == "claims":
            only_mine = ", ".join(_show_triple(t) for t in sorted(mine - other, key=str))
            only_theirs = ", ".join(_show_triple(t) for t in sorted(other - mine, key=str))
            only_mine, only_theirs = only_mine or "none", only_theirs or "none"
            advice = (
                f"only here: {only_mine}; only in the template: {only_theirs}. Claims are"
                f" immutable: recreate the {obj.kind} from the template"
            )
            return self.hit(
                obj,
                path,
                f"{obj.kind} claims differ from {source}: {advice}",
            )
        else:
            advice = f"the field is immutable: recreate the {obj.kind} with the template's value"
        return self.hit(
            obj,
            path,
            f"{obj.kind} {facet} is {_show(facet, mine)} but {source} has {_show(facet, other)}: {advice}",
        )
