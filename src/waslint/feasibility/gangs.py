"""The gangs of a set of manifests, read with the shared walks (`pod_templates`, `pod_count`,
`job_spec`, the set index's PodGroup members):

- WAS PodGroups (`gang.minCount`) with their member Pods/templates, or, when no member is in the
  set, `minCount` copies of the pod template of the Job/JobSet/LeaderWorkerSet that owns them;
  CompositePodGroups (`minGroupCount`) with the PodGroups/CompositePodGroups naming them as parent;
- Jobs (and CronJob templates) with a `spec.scheduling` gang (minCount defaults to parallelism);
- KAI PodGroups (`minMember`; `subGroups` become children that must all be placed) and objects
  with `kai.scheduler/batch-min-member`; Volcano PodGroups and Jobs, coscheduling PodGroups;
- every other Pod-running object with a known Pod count: its Pods, each a group of one (without a
  topology key, all-or-nothing over the whole cluster is the same question for identical pods).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from waslint.core.model import Path
from waslint.feasibility.cycles import cycles
from waslint.feasibility.dra import ClaimBook
from waslint.feasibility.model import Gang, PodShape, shape_from_spec
from waslint.objects.index import ObjectIndex, distinct_members
from waslint.objects.kobject import SCHEDULING, KObject, as_int, as_list, as_map, as_str, dig
from waslint.objects.walks import (
    COSCHEDULING_LABEL,
    COSCHEDULING_PODGROUP,
    JOB_KINDS,
    KAI_GROUP_ANNOTATION,
    KAI_MIN_MEMBER_KINDS,
    KAI_PODGROUP,
    KAI_SUBGROUP_LABEL,
    VOLCANO_GROUP_ANNOTATIONS,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
    PodTemplate,
    disruption_mode,
    job_pods,
    job_spec,
    kai_min_member,
    parse_min_member,
    pod_count,
    pod_templates,
    policy_variant,
    workload_templates,
)

OWNER_KINDS = JOB_KINDS | {("jobset.x-k8s.io", "JobSet"), ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")}
TOPOLOGY_LEVEL_KEYS = ("requiredTopologyLevel",)


@dataclass
class Collected:
    gangs: list[Gang] = field(default_factory=list)
    all_groups: set[tuple[str, str]] = field(default_factory=set)  # groups with disruptionMode all
    claimed: set[int] = field(default_factory=set)  # id() of pod-running objects inside a gang


class GangReader:
    def __init__(
        self, index: ObjectIndex, priorities: dict[str, int], default_priority: int, claims: ClaimBook | None = None
    ) -> None:
        self.index = index
        self.claims = claims or ClaimBook()
        self.never: set[str] = set()  # PriorityClasses with preemptionPolicy Never
        self.used: dict[int, list[PodTemplate]] = {}
        self.templates: list[PodTemplate] = []
        self.priorities = priorities
        self.default_priority = default_priority
        self.order = {id(obj): position for position, obj in enumerate(index.objects)}
        self.found = Collected()
        self.notes: list[str] = []

    # ----------------------------------------------------------------------- helpers

    def _gang(self, obj: KObject, required: int, path: Path, key: str | None, kind: str | None = None) -> Gang:
        gang = Gang(kind or obj.kind, obj.namespace, obj.name or "<unnamed>", required, topology_key=key)
        self.notes = gang.notes  # notes from reading this gang's pods (DRA claims not counted ...)
        self.templates = self.used.setdefault(id(gang), [])  # the pod templates its pods come from
        gang.order = self.order.get(id(obj), 0)
        gang.origin, gang.min_path = obj, path
        return gang

    def _preempts(self, spec: dict[str, Any], templates: Iterable[PodTemplate]) -> bool:
        """False when the group, its pods or their PriorityClass say preemptionPolicy: Never."""
        for holder in (spec, *(template.spec for template in templates)):
            if holder.get("preemptionPolicy") == "Never" or holder.get("priorityClassName") in self.never:
                return False
        return True

    def _priority(self, spec: dict[str, Any], templates: Iterable[PodTemplate] = ()) -> int:
        value = as_int(spec.get("priority"))
        if value is not None:
            return value
        name = as_str(spec.get("priorityClassName"))
        if name is not None:
            return self.priorities.get(name, self.default_priority)
        for template in templates:
            value = as_int(template.spec.get("priority"))
            if value is not None:
                return value
            name = as_str(template.spec.get("priorityClassName"))
            if name is not None:
                return self.priorities.get(name, self.default_priority)
        return self.default_priority

    def mark_preemption(self, gang: Gang) -> None:
        """preemptionPolicy: Never on the group object, the pod templates it was read from, or their class."""
        origin = gang.origin
        if not isinstance(origin, KObject):
            return
        spec = origin.spec if origin.group in (SCHEDULING, KAI_PODGROUP[0]) else {}
        gang.preempts = self._preempts(spec, self.used.get(id(gang), []))
        for child in gang.children:
            self.mark_preemption(child)

    def _shape(self, template: PodTemplate) -> PodShape:
        self.templates.append(template)
        devices, notes = self.claims.requests(template.spec, template.owner.namespace)
        self.notes.extend(note for note in notes if note not in self.notes)
        return shape_from_spec(template.spec, template.annotations, devices)

    def _members(self, templates: Iterable[PodTemplate]) -> list[tuple[PodShape, int]]:
        members: dict[PodShape, int] = {}
        for template in templates:
            self.found.claimed.add(id(template.owner))
            pods = pod_count(template)
            shape = self._shape(template)
            members[shape] = members.get(shape, 0) + (1 if pods is None else pods)
        return list(members.items())

    def _short(self, gang: Gang, members: list[tuple[PodShape, int]], what: str) -> None:
        have = sum(count for _, count in members)
        gang.members = members
        if have < gang.required:
            gang.problems.append(
                f"only {have} member Pod(s) of {what} in the set while the gang requires {gang.required}:"
                " it can never start"
            )

    # ----------------------------------------------------------------------- WAS

    def was_pod_groups(self) -> dict[tuple[str, str], Gang]:
        """PodGroups by (namespace, name); children are attached to composites afterwards."""
        found: dict[tuple[str, str], Gang] = {}
        for obj in self.index.of_kind(SCHEDULING, "PodGroup"):
            spec = obj.spec
            policy = spec.get("schedulingPolicy")
            variant = policy_variant(policy)
            if variant is None or obj.name is None:
                continue
            members = distinct_members(self.index.pod_group_members(obj.namespace, obj.name), obj)
            if variant == "gang":
                required = as_int(dig(policy, "gang", "minCount"))
                if required is None:
                    continue
                path: Path = ("spec", "schedulingPolicy", "gang", "minCount")
            else:
                required, path = 0, ("spec", "schedulingPolicy")
            gang = self._gang(obj, required, path, _topology_key(spec))
            gang.priority = self._priority(spec, members)
            if disruption_mode(spec.get("disruptionMode")) == "all":
                self.found.all_groups.add((obj.namespace, obj.name))
            if members:
                self._short(gang, self._members(members), f"PodGroup {obj.name}")
            else:
                self._from_owner(gang, obj)
            if variant == "basic":  # no gang: its members are groups of one each
                gang.required = sum(count for _, count in gang.members)
                gang.problems.clear()
                gang.notes.append("basic policy: each Pod is placed on its own (a group of one)")
            found[(obj.namespace, obj.name)] = gang
        return found

    def _from_owner(self, gang: Gang, obj: KObject) -> None:
        """No member in the set: `required` copies of the owner's pod template."""
        owner = self._owner(obj)
        templates = pod_templates(owner) if owner is not None else []
        if not templates:
            gang.problems.append(
                "no member Pod in the set (spec.schedulingGroup.podGroupName) and no owning Job, JobSet or"
                " LeaderWorkerSet to take the pod template from"
            )
            return
        assert owner is not None
        self.found.claimed.add(id(owner))
        template = _named(templates, as_str(dig(obj.spec, "workloadRef", "templateName")))
        gang.members = [(self._shape(template), gang.required)]
        gang.notes.append(f"pods: {gang.required} copies of the pod template of {owner.kind} {owner.name}")

    def _owner(self, obj: KObject) -> KObject | None:
        for ref in as_list(obj.metadata.get("ownerReferences")):
            ref = as_map(ref)
            kind, name = as_str(ref.get("kind")), as_str(ref.get("name"))
            group = (as_str(ref.get("apiVersion")) or "").rpartition("/")[0]
            if kind and name and (group, kind) in OWNER_KINDS:
                found = self.index.get(group, kind, obj.namespace, name)
                if found is not None:
                    return found
        workload_name = as_str(dig(obj.spec, "workloadRef", "workloadName"))
        if workload_name is not None:
            workload = self.index.get(SCHEDULING, "Workload", obj.namespace, workload_name)
            if workload is not None:
                return self._controller(workload)
        return None

    def composites(self, pod_groups: dict[tuple[str, str], Gang]) -> list[Gang]:
        """CompositePodGroups with their children; returns the top-level gangs of the WAS tree."""
        composites: dict[tuple[str, str], Gang] = {}
        for obj in self.index.of_kind(SCHEDULING, "CompositePodGroup"):
            if obj.name is None:
                continue
            policy = obj.spec.get("schedulingPolicy")
            variant = policy_variant(policy)
            minimum = as_int(dig(policy, "gang", "minGroupCount")) if variant == "gang" else None
            path: Path = ("spec", "schedulingPolicy", "gang", "minGroupCount") if minimum else ("spec",)
            gang = self._gang(obj, minimum or 0, path, _topology_key(obj.spec))
            gang.min_groups = minimum or 0
            gang.priority = self._priority(obj.spec)
            composites[(obj.namespace, obj.name)] = gang
        children: set[int] = set()
        looped = _cycle_members(composites)
        for table in (pod_groups, composites):
            for (namespace, name), gang in table.items():
                parent = as_str(gang.origin.spec.get("parentCompositePodGroupName"))
                if table is composites and (namespace, name) in looped:
                    continue  # reported on its own: no parent, no child of the cycle
                if parent is not None and (namespace, parent) in composites:
                    composites[(namespace, parent)].children.append(gang)
                    children.add(id(gang))
        for gang in composites.values():
            if not gang.min_groups:  # basic composite: every child on its own
                gang.min_groups = len(gang.children)
            gang.required = gang.min_groups
            if len(gang.children) < gang.min_groups:
                gang.problems.append(
                    f"only {len(gang.children)} child group(s) in the set while minGroupCount is {gang.min_groups}"
                )
        tops = [gang for gang in [*pod_groups.values(), *composites.values()] if id(gang) not in children]
        return tops

    def job_gangs(self) -> list[Gang]:
        found = []
        for group, kind in sorted(JOB_KINDS):
            for obj in self.index.of_kind(group, kind):
                job = job_spec(obj)
                if job is None:
                    continue
                job_path, spec = job
                scheduling = as_map(spec.get("scheduling"))
                policy = scheduling.get("schedulingPolicy")
                templates = pod_templates(obj)
                if policy_variant(policy) != "gang" or not templates:
                    continue
                if as_map(templates[0].spec).get("schedulingGroup") is not None:
                    continue  # bring-your-own PodGroup: the controller ignores spec.scheduling
                count = job_pods(spec, "")
                pods = count.pods if count is not None else 1
                minimum = as_int(dig(policy, "gang", "minCount"))
                path: Path = (*job_path, "scheduling", "schedulingPolicy", "gang", "minCount")
                if minimum is None:
                    minimum, path = pods, (*job_path, "scheduling", "schedulingPolicy", "gang")
                gang = self._gang(obj, minimum, path, _topology_key(scheduling))
                gang.priority = self._priority({}, templates)
                self._short(gang, self._members(templates), f"{kind} {obj.name}")
                if disruption_mode(scheduling.get("disruptionMode")) == "all":
                    self.found.all_groups.add((obj.namespace, obj.name or ""))
                found.append(gang)
        return found

    def workload_gangs(self) -> list[Gang]:
        """Gang templates of a Workload that no PodGroup of the set instantiates, when the
        Workload's controllerRef owner (a JobSet, Job or LeaderWorkerSet) is in the set: the
        controller creates the PodGroup from the template and the owner's Pods join it."""
        instantiated = {
            (obj.namespace, as_str(dig(obj.spec, "workloadRef", "workloadName")))
            for obj in self.index.of_kind(SCHEDULING, "PodGroup")
        }
        found = []
        for obj in self.index.of_kind(SCHEDULING, "Workload"):
            if obj.name is None or (obj.namespace, obj.name) in instantiated:
                continue
            owner = self._controller(obj)
            if owner is None or id(owner) in self.found.claimed:
                continue  # no pods to place, or the owner is a gang of its own (a Job's spec.scheduling)
            templates = pod_templates(owner)
            for group in workload_templates(obj):
                policy = group.data.get("schedulingPolicy", group.data.get("policy"))
                minimum = as_int(dig(policy, "gang", "minCount"))
                if group.depth != 1 or group.composite or policy_variant(policy) != "gang" or minimum is None:
                    continue
                name = as_str(group.data.get("name")) or "<unnamed>"
                if not templates:
                    continue
                chosen = [_named(templates, name)]
                key = (*group.path, "schedulingPolicy" if "schedulingPolicy" in group.data else "policy")
                gang = self._gang(obj, minimum, (*key, "gang", "minCount"), _topology_key(group.data))
                gang.name = f"{obj.name}/{name}"
                gang.priority = self._priority(group.data, chosen)
                self._short(gang, self._members(chosen), f"{owner.kind} {owner.name}")
                gang.notes.append(f"pods: {owner.kind} {owner.name}, the Workload's controllerRef")
                found.append(gang)
            self.found.claimed.add(id(owner))
        return found

    def _controller(self, workload: KObject) -> KObject | None:
        ref = as_map(workload.spec.get("controllerRef"))
        kind, name = as_str(ref.get("kind")), as_str(ref.get("name"))
        for group, owner_kind in OWNER_KINDS:
            if kind == owner_kind and name is not None:
                found = self.index.get(as_str(ref.get("apiGroup")) or group, kind, workload.namespace, name)
                if found is not None:
                    return found
        return None

    # ----------------------------------------------------------------------- KAI, Volcano, coscheduling

    def kai_gangs(self) -> list[Gang]:
        found = []
        by_group: dict[tuple[str, str], list[PodTemplate]] = {}
        mentions: dict[int, bool] = {}  # per file: does its text name the annotation at all
        for obj in self.index.objects:
            if id(obj.file) not in mentions:
                mentions[id(obj.file)] = KAI_GROUP_ANNOTATION in obj.file.text
            if not mentions[id(obj.file)]:
                continue
            for template in pod_templates(obj):
                group = as_str(template.annotations.get(KAI_GROUP_ANNOTATION)) or as_str(
                    obj.annotations.get(KAI_GROUP_ANNOTATION)
                )
                if group is not None:
                    by_group.setdefault((obj.namespace, group), []).append(template)
        for obj in self.index.of_kind(*KAI_PODGROUP):
            if obj.name is None:
                continue
            spec = obj.spec
            templates = by_group.get((obj.namespace, obj.name), [])
            key = as_str(dig(spec, "topologyConstraint", "requiredTopologyLevel"))
            subgroups = [as_map(item) for item in as_list(spec.get("subGroups"))]
            minimum = as_int(spec.get("minMember")) or 0
            gang = self._gang(obj, minimum, ("spec", "minMember") if "minMember" in spec else ("spec",), key)
            gang.priority = self._priority(spec, templates)
            if subgroups:
                self._kai_subgroups(gang, obj, subgroups, templates)
            elif templates:
                self._short(gang, self._members(templates), f"KAI PodGroup {obj.name}")
            else:
                gang.problems.append(f"no Pod in the set carries the annotation {KAI_GROUP_ANNOTATION}: {obj.name}")
            found.append(gang)
        for group, kind in sorted(KAI_MIN_MEMBER_KINDS):
            for obj in self.index.of_kind(group, kind):
                annotation = kai_min_member(obj)
                batch_min = parse_min_member(annotation[1]) if annotation is not None else None
                templates = pod_templates(obj)
                if annotation is None or batch_min is None or not templates or id(obj) in self.found.claimed:
                    continue
                gang = self._gang(obj, batch_min, annotation[0], None)
                gang.priority = self._priority({}, templates)
                self._short(gang, self._members(templates), f"{kind} {obj.name}")
                found.append(gang)
        return found

    def _kai_subgroups(
        self, gang: Gang, obj: KObject, subgroups: list[dict[str, Any]], templates: list[PodTemplate]
    ) -> None:
        for position, subgroup in enumerate(subgroups):
            name = as_str(subgroup.get("name")) or f"#{position}"
            members = [t for t in templates if as_str(t.labels.get(KAI_SUBGROUP_LABEL)) == name]
            minimum = as_int(subgroup.get("minMember")) or 0
            child = self._gang(obj, minimum, ("spec", "subGroups", position, "minMember"), None, "SubGroup")
            child.name = f"{obj.name}/{name}"
            child.topology_key = as_str(dig(subgroup, "topologyConstraint", "requiredTopologyLevel"))
            child.priority = gang.priority
            self._short(child, self._members(members), f"sub-group {name}")
            gang.children.append(child)
        gang.min_groups = len(gang.children)
        gang.required = gang.min_groups

    def member_label_gangs(self) -> list[Gang]:
        """Volcano and coscheduling PodGroups (`minMember`) with the Pods that name them."""
        found = []
        for kind_key, member_keys, in_labels in (
            (VOLCANO_PODGROUP, VOLCANO_GROUP_ANNOTATIONS, False),
            (COSCHEDULING_PODGROUP, (COSCHEDULING_LABEL,), True),
        ):
            groups = self.index.of_kind(*kind_key)
            if not groups:
                continue
            members: dict[tuple[str, str], list[PodTemplate]] = {}
            for obj in self.index.objects:
                for template in pod_templates(obj):
                    source = template.labels if in_labels else template.annotations
                    outer = obj.labels if in_labels else obj.annotations
                    for member_key in member_keys:
                        group = as_str(source.get(member_key)) or as_str(outer.get(member_key))
                        if group is not None:
                            members.setdefault((obj.namespace, group), []).append(template)
                            break
            for obj in groups:
                minimum = as_int(obj.spec.get("minMember"))
                if obj.name is None or minimum is None:
                    continue
                gang = self._gang(obj, minimum, ("spec", "minMember"), None)
                templates = members.get((obj.namespace, obj.name), [])
                gang.priority = self._priority(obj.spec, templates)
                self._short(gang, self._members(templates), f"{obj.kind} {obj.name}")
                found.append(gang)
        for obj in self.index.of_kind(*VOLCANO_JOB):
            templates = pod_templates(obj)
            if not templates or id(obj) in self.found.claimed:
                continue
            available = as_int(obj.spec.get("minAvailable"))
            job_path: Path = ("spec", "minAvailable") if available is not None else ("spec",)
            gang = self._gang(obj, available or 0, job_path, None)
            job_members = self._members(templates)
            if available is None:
                gang.required = sum(count for _, count in job_members)
            gang.priority = self._priority(obj.spec, templates)
            self._short(gang, job_members, f"Volcano Job {obj.name}")
            found.append(gang)
        return found

    def singles(self) -> list[Gang]:
        """Pod-running objects in no gang: their Pods, each a group of one."""
        found = []
        for obj in self.index.objects:
            if id(obj) in self.found.claimed:
                continue
            templates = pod_templates(obj)
            if not templates:
                continue
            counts = [pod_count(template) for template in templates]
            if any(count is None for count in counts) or _controlled(obj):
                continue
            required = sum(count for count in counts if count is not None)
            if required == 0:
                continue
            gang = self._gang(obj, required, ("spec",) if obj.kind != "Pod" else (), None)
            gang.members = self._members(templates)
            gang.is_gang = False
            gang.priority = self._priority({}, templates)
            gang.notes.append("not a gang: each Pod is placed on its own (a group of one)")
            found.append(gang)
        return found


def collect(
    index: ObjectIndex,
    priorities: dict[str, int],
    default_priority: int,
    claims: ClaimBook | None = None,
    never: set[str] | None = None,
) -> Collected:
    reader = GangReader(index, priorities, default_priority, claims)
    reader.never = never or set()
    pod_groups = reader.was_pod_groups()
    gangs = reader.composites(pod_groups)
    gangs += reader.job_gangs()
    gangs += reader.workload_gangs()
    gangs += reader.kai_gangs()
    gangs += reader.member_label_gangs()
    gangs += reader.singles()
    gangs.sort(key=lambda gang: gang.order)
    for gang in gangs:
        reader.mark_preemption(gang)
    reader.found.gangs = gangs
    return reader.found


def _cycle_members(composites: dict[tuple[str, str], Gang]) -> set[tuple[str, str]]:
    """CompositePodGroups whose parent chain comes back to them: each gets the problem that names
    its cycle (the scheduler marks the hierarchy Invalid) and is placed as no one's child."""
    parent_of: dict[tuple[str, str], tuple[str, str] | None] = {}
    for (namespace, name), gang in composites.items():
        parent = as_str(gang.origin.spec.get("parentCompositePodGroupName"))
        parent_of[(namespace, name)] = (namespace, parent) if parent is not None else None
    members: set[tuple[str, str]] = set()
    for cycle in cycles(parent_of):
        ring = " -> ".join(name for _, name in [*cycle, cycle[0]])
        for key in cycle:
            members.add(key)
            composites[key].problems.append(
                f"its parentCompositePodGroupName chain is a cycle ({ring}): the hierarchy is no tree and"
                " none of it can be placed"
            )
    return members


def _named(templates: list[PodTemplate], name: str | None) -> PodTemplate:
    """The pod template of a JobSet replicated job / LWS role of that name, else the first one."""
    for template in templates:
        if name is not None and template.role.split(":", 1)[-1] == name:
            return template
    return templates[0]


def _topology_key(holder: dict[str, Any]) -> str | None:
    """The key of the (single) topology constraint: `schedulingConstraints.topology[0].key`."""
    entries = as_list(dig(holder, "schedulingConstraints", "topology"))
    first = as_map(entries[0]) if entries else {}
    return as_str(first.get("key")) or as_str(first.get("level"))


def _controlled(obj: KObject) -> bool:
    return any(
        isinstance(ref, dict) and ref.get("controller") is True for ref in as_list(obj.metadata.get("ownerReferences"))
    )
