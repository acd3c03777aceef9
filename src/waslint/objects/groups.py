"""A group's scheduling fields, read once per object into typed values that carry their paths:
the policy variant (basic/gang) and its minimum (`minCount` / `minGroupCount`, with whether it
is written at all), the topology constraint(s), the disruption mode (the 1.36 string and the 1.37
union), the claims, priority and preemption fields, and for PodGroups and CompositePodGroups the
Workload template they came from and their parent composite.

A group is read from each mapping that holds these fields (`groups_of`): every template of a
Workload (flat and composite, at any depth), the `spec` of a PodGroup or CompositePodGroup, the
`spec.scheduling` of a Job (or of a CronJob's jobTemplate). The field names are the apiVersion's
(`knowledge.lifecycle.field_names`: `podGroups[].policy` in v1alpha1, `schedulingPolicy` since).

Readers never raise on wrong types: a string where a map is expected reads as absent (WAS002 and
WAS003 report the type error). Lint rules, feasibility and the fixers read groups from here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from waslint.core.model import Path
from waslint.objects.keys import CRONJOB, JOB, SCHEDULING
from waslint.objects.kobject import KObject, as_int, as_list, as_map, as_str, dig
from waslint.objects.members import Located
from waslint.objects.walks import Claim, GroupTemplate, claim_entries, job_scheduling, workload_templates

# A gang's minimum: Pods for a PodGroup (template), child groups for a composite.
MIN_COUNT = "minCount"
MIN_GROUP_COUNT = "minGroupCount"
# The 1.36 string form of disruptionMode and the 1.37 union member each one became.
LEGACY_DISRUPTION_MODES = {"Pod": "single", "PodGroup": "all"}


def one_of(value: Any, members: tuple[str, ...]) -> str | None:
    """The one member of a union that is set (a null member counts as unset); None otherwise."""
    mapping = as_map(value)
    present = [member for member in members if mapping.get(member) is not None]
    return present[0] if len(present) == 1 else None


def policy_variant(policy: Any) -> str | None:
    """'basic' or 'gang' when exactly one is set, else None."""
    return one_of(policy, ("basic", "gang"))


def disruption_mode(value: Any) -> str | None:
    """'all' / 'single' for the 1.37 object form and the 1.36 strings; None when unset or unknown."""
    if isinstance(value, str):
        return LEGACY_DISRUPTION_MODES.get(value)
    return one_of(value, ("single", "all")) if isinstance(value, dict) else None


# --------------------------------------------------------------------------- the parts


class GangMinimum(NamedTuple):
    """A gang's minimum: `gang.minCount` (Pods) or, for a composite, `gang.minGroupCount` (child
    groups)."""

    field: str  # "minCount" or "minGroupCount"
    path: Path  # <policy>.gang.<field>
    raw: Any  # as written; None when unset (or when the policy has no gang mapping)
    present: bool  # the key is written (a null value counts as written, and unset)

    @property
    def value(self) -> int | None:
        """The minimum when it is an integer (WAS002 reports other types)."""
        return as_int(self.raw)


class Policy(NamedTuple):
    """The scheduling policy union: `basic: {}` or `gang: {minCount}`."""

    key: str  # the field name of the object's apiVersion: "schedulingPolicy" ("policy" in v1alpha1)
    path: Path  # <holder>.<key>
    raw: Any  # as written; None when absent
    variant: str | None  # "basic" / "gang" when exactly one is set
    minimum: GangMinimum

    @property
    def present(self) -> bool:
        return self.raw is not None

    @property
    def gang(self) -> dict[str, Any] | None:
        """The `gang` mapping, when the policy is a mapping that holds one."""
        gang = as_map(self.raw).get("gang")
        return gang if isinstance(gang, dict) else None


class TopologyConstraint(NamedTuple):
    """One `schedulingConstraints.topology` entry."""

    key: str | None  # None when missing or not a string
    path: Path  # the entry's path
    raw: Any  # the entry as written (a mapping, or whatever WAS002 reports)

    @property
    def key_path(self) -> Path:
        return (*self.path, "key")


class Disruption(NamedTuple):
    """`disruptionMode`: the 1.37 union `{single: {}}` / `{all: {}}`, or a 1.36 string."""

    raw: Any  # as written; None when unset
    path: Path
    mode: str | None  # "single" / "all"; None when unset or not understood

    @property
    def legacy(self) -> bool:
        """Whether it is written in the 1.36 string form (`Pod`, `PodGroup`, or an unknown string)."""
        return isinstance(self.raw, str)


class WorkloadRef(NamedTuple):
    """Which Workload template a PodGroup or CompositePodGroup came from: `spec.workloadRef`, or
    the 1.36 `spec.podGroupTemplateRef.workload` that WAS104 rewrites (both are read)."""

    path: Path  # spec.workloadRef or spec.podGroupTemplateRef
    workload: str | None
    template: str | None
    legacy: bool


class Group(NamedTuple):
    """One mapping that holds a group's scheduling fields, and what they say."""

    obj: KObject
    path: Path  # where the mapping sits in the object
    data: dict[str, Any]
    role: str  # "PodGroup", "CompositePodGroup", "template" (of a Workload) or "job" (spec.scheduling)
    composite: bool  # a CompositePodGroup or a composite template: its minimum counts groups
    template: GroupTemplate | None  # the Workload template (role "template")
    policy: Policy
    topology: tuple[TopologyConstraint, ...]
    disruption: Disruption
    claims: tuple[Claim, ...]
    priority_class_name: Located | None
    priority: int | None
    preemption_policy: Located | None
    workload_ref: WorkloadRef | None = None  # PodGroup, CompositePodGroup
    parent: Located | None = None  # parentCompositePodGroupName (PodGroup, CompositePodGroup)

    @property
    def name(self) -> str | None:
        """The template's name, or the object's."""
        if self.template is not None:
            return as_str(self.data.get("name"))
        return self.obj.name

    def field_path(self, field: str) -> Path:
        """The path of a field of the mapping: the field itself when written, else the mapping."""
        return (*self.path, field) if field in self.data else self.path


# --------------------------------------------------------------------------- reading


def groups_of(obj: KObject) -> list[Group]:
    """The groups an object holds: each Workload template (depth first), the spec of a PodGroup or
    CompositePodGroup, a Job's (or a CronJob jobTemplate's) `spec.scheduling`. Read once per object."""
    memo = obj.memo
    found: list[Group] | None = memo.get("groups")
    if found is None:
        found = memo["groups"] = _read_groups(obj)
    return found


def object_group(obj: KObject) -> Group | None:
    """The group of a PodGroup or CompositePodGroup (its `spec`), of a Job/CronJob (its
    `spec.scheduling`); None for other objects (a Workload holds several: `groups_of`)."""
    if (obj.group, obj.kind) == (SCHEDULING, "Workload"):
        return None
    found = groups_of(obj)
    return found[0] if found else None


def _read_groups(obj: KObject) -> list[Group]:
    if obj.group == SCHEDULING and obj.kind == "Workload":
        policy_key = obj.fields.policy
        return [
            _group(obj, template.path, template.data, "template", template.composite, policy_key, template)
            for template in workload_templates(obj)
        ]
    if obj.group == SCHEDULING and obj.kind in ("PodGroup", "CompositePodGroup"):
        composite = obj.kind == "CompositePodGroup"
        return [_group(obj, ("spec",), obj.spec, obj.kind, composite, obj.fields.policy, None, refs=True)]
    if (obj.group, obj.kind) in (JOB, CRONJOB):
        scheduling = job_scheduling(obj)
        if scheduling is None:
            return []
        path, holder = scheduling
        return [_group(obj, path, holder, "job", False, obj.fields.policy, None)]
    return []


def _group(
    obj: KObject,
    path: Path,
    data: dict[str, Any],
    role: str,
    composite: bool,
    policy_key: str,
    template: GroupTemplate | None,
    refs: bool = False,
) -> Group:
    """`refs`: a PodGroup's or CompositePodGroup's spec, which also names its template and parent."""
    return Group(
        obj=obj,
        path=path,
        data=data,
        role=role,
        composite=composite,
        template=template,
        policy=_policy(path, data, policy_key, composite),
        topology=_topology(path, data),
        disruption=Disruption(
            data.get("disruptionMode"), (*path, "disruptionMode"), disruption_mode(data.get("disruptionMode"))
        ),
        claims=tuple(claim_entries(data, path)),
        priority_class_name=_located_str(data, path, "priorityClassName"),
        priority=as_int(data.get("priority")),
        preemption_policy=_located_str(data, path, "preemptionPolicy"),
        workload_ref=read_workload_ref(data) if refs else None,
        parent=_located_str(data, path, "parentCompositePodGroupName") if refs else None,
    )


def _policy(path: Path, data: dict[str, Any], key: str, composite: bool) -> Policy:
    raw = data.get(key)
    policy_path: Path = (*path, key)
    field = MIN_GROUP_COUNT if composite else MIN_COUNT
    gang = as_map(as_map(raw).get("gang"))
    minimum = GangMinimum(field, (*policy_path, "gang", field), gang.get(field), field in gang)
    return Policy(key, policy_path, raw, policy_variant(raw), minimum)


def _topology(path: Path, data: dict[str, Any]) -> tuple[TopologyConstraint, ...]:
    base: Path = (*path, "schedulingConstraints", "topology")
    entries = as_list(dig(data, "schedulingConstraints", "topology"))
    return tuple(
        TopologyConstraint(as_str(as_map(entry).get("key")), (*base, position), entry)
        for position, entry in enumerate(entries)
    )


def _located_str(data: dict[str, Any], path: Path, field: str) -> Located | None:
    value = as_str(data.get(field))
    return Located(value, (*path, field)) if value is not None else None


def read_workload_ref(spec: dict[str, Any]) -> WorkloadRef | None:
    """`spec.workloadRef` of a PodGroup/CompositePodGroup, else the 1.36 `podGroupTemplateRef`."""
    ref = spec.get("workloadRef")
    if isinstance(ref, dict):
        return WorkloadRef(
            ("spec", "workloadRef"), as_str(ref.get("workloadName")), as_str(ref.get("templateName")), False
        )
    legacy = spec.get("podGroupTemplateRef")
    if isinstance(legacy, dict):
        inner = as_map(legacy.get("workload"))
        return WorkloadRef(
            ("spec", "podGroupTemplateRef"),
            as_str(inner.get("workloadName")),
            as_str(inner.get("podGroupTemplateName")),
            True,
        )
    return None
