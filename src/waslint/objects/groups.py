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

The third-party schedulers' policies are read here too: Kueue's PodSet topology annotations
(`podset_topology`), KAI's topology constraint and its sub-group tree (`kai_topology`,
`kai_owner_topology`, `kai_subgroup_tree`), Volcano's per-task minimums (`volcano_task_minimums`,
`volcano_job_task_minimums`, `volcano_enforced_minimums`).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, NamedTuple

from waslint.core.model import Path
from waslint.core.records import dataclass
from waslint.objects.keys import (
    CRONJOB,
    JOB,
    KAI_TOPOLOGY,
    KAI_TOPOLOGY_PREFERRED,
    KAI_TOPOLOGY_REQUIRED,
    KUEUE_PODSET_GROUP,
    KUEUE_PODSET_PREFERRED,
    KUEUE_PODSET_REQUIRED,
    KUEUE_PODSET_SLICE_CONSTRAINTS,
    KUEUE_PODSET_SLICE_REQUIRED,
    KUEUE_PODSET_SLICE_SIZE,
    KUEUE_PODSET_UNCONSTRAINED,
    SCHEDULING,
)
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


# --------------------------------------------------------------------------- third-party schedulers
# The policies of the gangs KAI-Scheduler, Volcano and Kueue make, read as each scheduler reads
# them; feasibility builds its gangs from these and lint rules that size gangs read the same.


class PodSetTopology(NamedTuple):
    """A Kueue PodSet's topology request, read from its pod template's own annotations as
    kubernetes-sigs/kueue pkg/controller/jobframework/tas.go `Build` reads them: required, else
    preferred, else unconstrained; a slice layer when both slice annotations are set; the PodSet
    group name only beside a required or preferred level."""

    mode: str | None  # "required", "preferred", "unconstrained"; None: no topology request
    level: Located | None  # the level of a required or preferred request
    slice_level: Located | None
    slice_size: int | None
    group: Located | None  # podset-group-name: PodSets placed in one domain together
    problems: tuple[str, ...] = ()  # what Kueue's webhook rejects (tas_validation.go)
    unmodelled: tuple[str, ...] = ()  # annotations read but not modelled


def podset_topology(metadata: dict[str, Any], path: Path) -> PodSetTopology:
    """The topology request of the pod template whose `metadata` sits at `path`."""
    annotations = as_map(metadata.get("annotations"))
    base: Path = (*path, "annotations")

    def located(key: str) -> Located | None:
        return _located_str(annotations, base, key)

    required, preferred = located(KUEUE_PODSET_REQUIRED), located(KUEUE_PODSET_PREFERRED)
    unconstrained = located(KUEUE_PODSET_UNCONSTRAINED)
    slice_level, slice_raw = located(KUEUE_PODSET_SLICE_REQUIRED), located(KUEUE_PODSET_SLICE_SIZE)
    problems: list[str] = []
    if sum(entry is not None for entry in (required, preferred, unconstrained)) > 1:
        problems.append(
            f"must not contain more than one topology annotation: [{KUEUE_PODSET_REQUIRED}, {KUEUE_PODSET_PREFERRED},"
            f" {KUEUE_PODSET_UNCONSTRAINED}] (Kueue rejects the workload)"
        )
    mode, level = None, None
    if required is not None:
        mode, level = "required", required
    elif preferred is not None:
        mode, level = "preferred", preferred
    elif unconstrained is not None:
        if unconstrained.value.lower() not in _GO_BOOLS:
            problems.append(f"{KUEUE_PODSET_UNCONSTRAINED}: must be a boolean value, not {unconstrained.value!r}")
        elif _GO_BOOLS[unconstrained.value.lower()]:
            mode = "unconstrained"
    size = _slice_size(slice_level, slice_raw, problems)
    group = located(KUEUE_PODSET_GROUP)
    if group is not None:
        problems.extend(_group_problems(group.value, required or preferred, slice_level, slice_raw))
    group = group if mode in ("required", "preferred") else None
    unmodelled = (KUEUE_PODSET_SLICE_CONSTRAINTS,) if KUEUE_PODSET_SLICE_CONSTRAINTS in annotations else ()
    return PodSetTopology(mode, level, slice_level if size else None, size, group, tuple(problems), unmodelled)


def _group_problems(name: str, level: Located | None, slice_level: Located | None, size: Located | None) -> list[str]:
    """tas_validation.go ValidateTASPodSetRequest on podset-group-name."""
    problems = []
    if name.isdigit():
        problems.append(f"{KUEUE_PODSET_GROUP}: must not be a number")
    for other, present in ((KUEUE_PODSET_SLICE_SIZE, size), (KUEUE_PODSET_SLICE_REQUIRED, slice_level)):
        if present is not None:
            problems.append(f"{KUEUE_PODSET_GROUP}: may not be set when '{other}' is specified")
    if level is None:
        problems.append(
            f"{KUEUE_PODSET_GROUP}: may not be set when neither '{KUEUE_PODSET_PREFERRED}' nor"
            f" '{KUEUE_PODSET_REQUIRED}' is specified"
        )
    return problems


# strconv.ParseBool's spellings
_GO_BOOLS = {"1": True, "t": True, "true": True, "0": False, "f": False, "false": False}


def _slice_size(slice_level: Located | None, raw: Located | None, problems: list[str]) -> int | None:
    if slice_level is None and raw is None:
        return None
    if raw is None:
        problems.append(f"{KUEUE_PODSET_SLICE_SIZE}: must be set when '{KUEUE_PODSET_SLICE_REQUIRED}' is specified")
        return None
    if slice_level is None:
        problems.append(
            f"{KUEUE_PODSET_SLICE_SIZE}: may not be set when '{KUEUE_PODSET_SLICE_REQUIRED}' is not specified"
        )
        return None
    text = raw.value.strip()
    if not text.lstrip("+-").isdigit():
        problems.append(f"{KUEUE_PODSET_SLICE_SIZE}: must be a numeric value, not {raw.value!r}")
        return None
    if int(text) < 1:
        problems.append(f"{KUEUE_PODSET_SLICE_SIZE}: must be greater than or equal to 1")
        return None
    return int(text)


class KaiTopology(NamedTuple):
    """KAI's topology constraint: a PodGroup's `spec.topologyConstraint`, or the annotations the
    pod-grouper copies to it from the workload's top owner (default_grouper.go)."""

    topology: str | None
    required: Located | None  # requiredTopologyLevel / kai.scheduler/topology-required-placement
    preferred: Located | None


def kai_topology(constraint: Any, path: Path) -> KaiTopology:
    """From a `topologyConstraint` mapping at `path`."""
    mapping = as_map(constraint)
    return KaiTopology(
        as_str(mapping.get("topology")),
        _located_str(mapping, path, "requiredTopologyLevel"),
        _located_str(mapping, path, "preferredTopologyLevel"),
    )


def kai_owner_topology(annotations: dict[str, Any], path: Path) -> KaiTopology:
    """The topology the pod-grouper gives the PodGroup of a top owner with these annotations."""

    def located(key: str) -> Located | None:
        value = as_str(annotations.get(key))
        return Located(value, (*path, key)) if value else None

    return KaiTopology(
        as_str(annotations.get(KAI_TOPOLOGY)) or None, located(KAI_TOPOLOGY_REQUIRED), located(KAI_TOPOLOGY_PREFERRED)
    )


@dataclass
class KaiSubGroup:
    """One node of a KAI PodGroup's sub-group tree. A sub-group that another names as `parent` is
    a set (its `minSubGroup` of its direct members must be satisfied; unset: all of them); any other
    is a pod set of `minMember` Pods (unset: 0), the Pods labelled kai.scheduler/subgroup-name
    with its name (kai-scheduler/KAI-Scheduler pkg/scheduler/api/podgroup_info/subgroup_info/
    factory.go FromPodGroup, subgroupset.go GetMinMembersToSatisfy)."""

    name: str
    path: Path
    min_member: int | None = None
    min_sub_group: int | None = None
    topology: KaiTopology | None = None
    children: list[KaiSubGroup] = field(default_factory=list)

    @property
    def leaf(self) -> bool:
        return not self.children

    @property
    def minimum(self) -> int:
        """Pods (a leaf) or direct members (a set) that must be satisfied."""
        if self.leaf:
            return max(self.min_member or 0, 0)
        return len(self.children) if self.min_sub_group is None else self.min_sub_group


def kai_subgroup_tree(spec: dict[str, Any]) -> tuple[KaiSubGroup, list[str]]:
    """The root of a KAI PodGroup's tree (its `minSubGroup`, its members the sub-groups without a
    parent) and KAI's errors reading it (a duplicate name, a parent that is not there). A parent is
    looked up lower-cased, as KAI does (factory.go formatParentName)."""
    root = KaiSubGroup("", ("spec",), min_sub_group=as_int(spec.get("minSubGroup")))
    problems: list[str] = []
    nodes: dict[str, KaiSubGroup] = {}
    parents: dict[str, str] = {}
    for position, item in enumerate(as_list(spec.get("subGroups"))):
        entry = as_map(item)
        name = as_str(entry.get("name")) or f"#{position}"
        path: Path = ("spec", "subGroups", position)
        if name in nodes:
            problems.append(f"subgroup <{name}> already exists")
            continue
        nodes[name] = KaiSubGroup(
            name,
            path,
            as_int(entry.get("minMember")),
            as_int(entry.get("minSubGroup")),
            kai_topology(entry.get("topologyConstraint"), (*path, "topologyConstraint")),
        )
        parents[name] = (as_str(entry.get("parent")) or "").lower()
    for name, node in nodes.items():
        parent = parents[name]
        holder = root if parent == "" else nodes.get(parent)
        if holder is None:
            problems.append(f"parent subgroup <{parent}> of <{name}> not found")
            continue
        holder.children.append(node)
    return root, problems


def kai_leaves(node: KaiSubGroup) -> list[KaiSubGroup]:
    """The pod sets under a node, depth first."""
    if node.leaf:
        return [node]
    return [leaf for child in node.children for leaf in kai_leaves(child)]


def volcano_task_minimums(spec: dict[str, Any]) -> dict[str, int]:
    """A Volcano PodGroup's `spec.minTaskMember`: task name -> Pods of that task the gang needs."""
    found: dict[str, int] = {}
    for task, value in as_map(spec.get("minTaskMember")).items():
        number = as_int(value)
        if isinstance(task, str) and number is not None:
            found[task] = number
    return found


def volcano_job_task_minimums(spec: dict[str, Any]) -> dict[str, int]:
    """The minTaskMember the Volcano job controller writes for a Job's PodGroup: each task's
    `minAvailable`, else partitionPolicy minPartitions x partitionSize, else its `replicas`
    (volcano-sh/volcano pkg/controllers/job/job_controller_actions.go getMinTaskMember)."""
    found: dict[str, int] = {}
    for item in as_list(spec.get("tasks")):
        task = as_map(item)
        name = as_str(task.get("name"))
        if name is None:
            continue
        minimum = as_int(task.get("minAvailable"))
        partition = as_map(task.get("partitionPolicy"))
        partitions, size = as_int(partition.get("minPartitions")), as_int(partition.get("partitionSize"))
        if minimum is None and partitions and size:
            minimum = partitions * size
        if minimum is None:
            minimum = as_int(task.get("replicas"))
        if minimum is not None:
            found[name] = minimum
    return found


def volcano_enforced_minimums(min_member: int, tasks: dict[str, int]) -> dict[str, int]:
    """The per-task minimums Volcano enforces: none when minMember is below their sum (job_info.go
    CheckTaskValid / CheckTaskReady skip the check then), else those above 0."""
    if min_member < sum(tasks.values()):
        return {}
    return {task: count for task, count in tasks.items() if count > 0}
