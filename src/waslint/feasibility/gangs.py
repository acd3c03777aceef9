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
from functools import cached_property
from typing import Any

from waslint.core.model import Path
from waslint.feasibility.cycles import cycles
from waslint.feasibility.dra import ClaimBook
from waslint.feasibility.model import Gang, signature
from waslint.objects.groups import (
    Group,
    KaiSubGroup,
    KaiTopology,
    PodSetTopology,
    groups_of,
    kai_leaves,
    kai_owner_topology,
    kai_subgroup_tree,
    kai_topology,
    object_group,
    podset_topology,
    volcano_enforced_minimums,
    volcano_job_task_minimums,
    volcano_task_minimums,
)
from waslint.objects.index import ObjectIndex, distinct_members
from waslint.objects.keys import (
    COMPOSITE,
    COSCHEDULING_PODGROUP,
    JOB,
    JOB_KINDS,
    JOBSET,
    KAI_GROUP_ANNOTATION,
    KAI_MIN_MEMBER_KINDS,
    KAI_PODGROUP,
    KAI_SUBGROUP_LABEL,
    KUEUE_JOB_MIN_PARALLELISM,
    KUEUE_POD_GROUP_LABEL,
    KUEUE_POD_GROUP_TOTAL,
    KUEUE_PODSET_GROUP,
    KUEUE_PODSET_PREFERRED,
    KUEUE_PODSET_REQUIRED,
    LWS,
    OWNER_KINDS,
    POD,
    PODGROUP,
    SCHEDULING,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
    WORKLOAD,
)
from waslint.objects.kobject import KObject, as_int, as_list, as_map, as_str, dig
from waslint.objects.members import is_controlled, kueue_queue, owner_refs
from waslint.objects.shapes import PodShape, shape_from_spec
from waslint.objects.walks import (
    PodTemplate,
    job_pods,
    job_spec,
    kai_min_member,
    lws_sizes,
    parse_min_member,
    pod_count,
    pod_templates,
)


@dataclass
class Collected:
    gangs: list[Gang] = field(default_factory=list)
    all_groups: set[tuple[str, str]] = field(default_factory=set)  # groups with disruptionMode all
    claimed: set[KObject] = field(default_factory=set)  # pod-running objects inside a gang


class GangReader:
    """Reads the gangs of a set. Each gang is built from explicit values (`_gang`), and its
    members, notes and pod templates are added to that gang (`_members`): nothing depends on
    the order the readers run in but `claimed` (an object in a gang is not read again later)."""

    def __init__(
        self,
        index: ObjectIndex,
        priorities: dict[str, int],
        default_priority: int,
        claims: ClaimBook | None = None,
        never: set[str] | None = None,
    ) -> None:
        self.index = index
        self.claims = claims or ClaimBook()
        self.never = never or set()  # PriorityClasses with preemptionPolicy Never
        self.priorities = priorities
        self.default_priority = default_priority
        self.order = {obj: position for position, obj in enumerate(index.objects)}
        self.found = Collected()

    # ----------------------------------------------------------------------- helpers

    def _gang(self, obj: KObject, required: int, path: Path, key: str | None, kind: str | None = None) -> Gang:
        """A gang read from `obj`, its minimum at `path`."""
        gang = Gang(kind or obj.kind, obj.namespace, obj.name or "<unnamed>", required, topology_key=key)
        gang.order = self.order.get(obj, 0)
        gang.origin, gang.min_path = obj, path
        return gang

    def _preempts(self, spec: dict[str, Any], templates: Iterable[PodTemplate]) -> bool:
        """False when the group, its pods or their PriorityClass say preemptionPolicy: Never."""
        for holder in (spec, *(template.spec for template in templates)):
            if holder.get("preemptionPolicy") == "Never" or holder.get("priorityClassName") in self.never:
                return False
        return True

    def _priority(self, group: Group | None, templates: Iterable[PodTemplate] = ()) -> int:
        """The group's priority (its own, or its class's), else its first pod template's."""
        if group is not None:
            if group.priority is not None:
                return group.priority
            if group.priority_class_name is not None:
                return self.priorities.get(group.priority_class_name.value, self.default_priority)
        return self._pod_priority(templates)

    def _spec_priority(self, spec: dict[str, Any], templates: Iterable[PodTemplate] = ()) -> int:
        """The same for a third-party group object's spec (KAI, Volcano and coscheduling PodGroups)."""
        value = as_int(spec.get("priority"))
        if value is not None:
            return value
        name = as_str(spec.get("priorityClassName"))
        if name is not None:
            return self.priorities.get(name, self.default_priority)
        return self._pod_priority(templates)

    def _pod_priority(self, templates: Iterable[PodTemplate]) -> int:
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
        if origin is None:
            return
        spec = origin.spec if origin.group in (SCHEDULING, KAI_PODGROUP[0]) else {}
        gang.preempts = self._preempts(spec, gang.templates)
        for child in gang.children:
            self.mark_preemption(child)

    def _shape(self, gang: Gang, template: PodTemplate) -> PodShape:
        """The shape of one pod of `template`, a member of `gang` (which notes what is not counted)."""
        gang.templates.append(template)
        devices, notes = self.claims.requests(template.spec, template.owner.namespace)
        gang.notes.extend(note for note in notes if note not in gang.notes)
        return shape_from_spec(template.spec, template.annotations, devices)

    def _members(self, gang: Gang, templates: Iterable[PodTemplate]) -> list[tuple[PodShape, int]]:
        members: dict[PodShape, int] = {}
        for template in templates:
            self.found.claimed.add(template.owner)
            pods = pod_count(template)
            shape = self._shape(gang, template)
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
        for obj in self.index.of_kind(*PODGROUP):
            group = object_group(obj)
            variant = group.policy.variant if group is not None else None
            if group is None or variant is None or obj.name is None:
                continue
            members = distinct_members(self.index.pod_group_members(obj.namespace, obj.name), obj)
            if variant == "gang":
                required = group.policy.minimum.value
                if required is None:
                    continue
                path = group.policy.minimum.path
            else:
                required, path = 0, group.policy.path
            gang = self._gang(obj, required, path, _topology_key(group))
            gang.priority = self._priority(group, members)
            if group.disruption.mode == "all":
                self.found.all_groups.add((obj.namespace, obj.name))
            if members:
                self._short(gang, self._members(gang, members), f"PodGroup {obj.name}")
            else:
                self._from_owner(gang, obj, group)
            if variant == "basic":  # no gang: its members are groups of one each
                gang.required = sum(count for _, count in gang.members)
                gang.problems.clear()
                gang.notes.append("basic policy: each Pod is placed on its own (a group of one)")
            found[(obj.namespace, obj.name)] = gang
        return found

    def _from_owner(self, gang: Gang, obj: KObject, group: Group) -> None:
        """No member in the set: `required` copies of the owner's pod template."""
        owner = self._owner(obj, group)
        templates = pod_templates(owner) if owner is not None else []
        if owner is None or not templates:
            gang.problems.append(
                "no member Pod in the set (spec.schedulingGroup.podGroupName) and no owning Job, JobSet or"
                " LeaderWorkerSet to take the pod template from"
            )
            return
        self.found.claimed.add(owner)
        ref = group.workload_ref
        template = _named(templates, ref.template if ref is not None and not ref.legacy else None)
        gang.members = [(self._shape(gang, template), gang.required)]
        gang.notes.append(f"pods: {gang.required} copies of the pod template of {owner.kind} {owner.name}")

    def _owner(self, obj: KObject, group: Group) -> KObject | None:
        for owner in owner_refs(obj.metadata):
            if owner.kind and owner.name and (owner.group, owner.kind) in OWNER_KINDS:
                found = self.index.get(owner.group, owner.kind, obj.namespace, owner.name)
                if found is not None:
                    return found
        ref = group.workload_ref
        if ref is not None and not ref.legacy and ref.workload is not None:
            workload = self.index.get(*WORKLOAD, obj.namespace, ref.workload)
            if workload is not None:
                return self._controller(workload)
        return None

    def composites(self, pod_groups: dict[tuple[str, str], Gang]) -> list[Gang]:
        """CompositePodGroups with their children; returns the top-level gangs of the WAS tree."""
        composites: dict[tuple[str, str], Gang] = {}
        parents: dict[Gang, str | None] = {}
        for gang in pod_groups.values():
            parents[gang] = _parent_name(gang)
        for obj in self.index.of_kind(*COMPOSITE):
            group = object_group(obj)
            if obj.name is None or group is None:
                continue
            minimum = group.policy.minimum.value if group.policy.variant == "gang" else None
            path = group.policy.minimum.path if minimum else ("spec",)
            gang = self._gang(obj, minimum or 0, path, _topology_key(group))
            gang.min_groups = minimum or 0
            gang.priority = self._priority(group)
            composites[(obj.namespace, obj.name)] = gang
            parents[gang] = group.parent.value if group.parent is not None else None
        children: set[Gang] = set()
        looped = _cycle_members(composites, parents)
        for table in (pod_groups, composites):
            for (namespace, name), gang in table.items():
                parent = parents[gang]
                if table is composites and (namespace, name) in looped:
                    continue  # reported on its own: no parent, no child of the cycle
                if parent is not None and (namespace, parent) in composites:
                    composites[(namespace, parent)].children.append(gang)
                    children.add(gang)
        for gang in composites.values():
            if not gang.min_groups:  # basic composite: every child on its own
                gang.min_groups = len(gang.children)
            gang.required = gang.min_groups
            if len(gang.children) < gang.min_groups:
                gang.problems.append(
                    f"only {len(gang.children)} child group(s) in the set while minGroupCount is {gang.min_groups}"
                )
        return [gang for gang in [*pod_groups.values(), *composites.values()] if gang not in children]

    def job_gangs(self) -> list[Gang]:
        found = []
        for group_name, kind in sorted(JOB_KINDS):
            for obj in self.index.of_kind(group_name, kind):
                job = job_spec(obj)
                group = object_group(obj)
                if job is None or group is None:
                    continue
                templates = pod_templates(obj)
                if group.policy.variant != "gang" or not templates:
                    continue
                if templates[0].membership.scheduling_group:
                    continue  # bring-your-own PodGroup: the controller ignores spec.scheduling
                count = job_pods(job[1], "")
                pods = count.pods if count is not None else 1
                minimum: int | None = group.policy.minimum.value
                path = group.policy.minimum.path
                if minimum is None:
                    minimum, path = pods, (*group.policy.path, "gang")
                gang = self._gang(obj, minimum, path, _topology_key(group))
                gang.priority = self._priority(None, templates)
                self._short(gang, self._members(gang, templates), f"{kind} {obj.name}")
                if group.disruption.mode == "all":
                    self.found.all_groups.add((obj.namespace, obj.name or ""))
                found.append(gang)
        return found

    def workload_gangs(self) -> list[Gang]:
        """Gang templates of a Workload that no PodGroup of the set instantiates, when the
        Workload's controllerRef owner (a JobSet, Job or LeaderWorkerSet) is in the set: the
        controller creates the PodGroup from the template and the owner's Pods join it."""
        instantiated = set()
        for obj in self.index.of_kind(*PODGROUP):
            group = object_group(obj)
            ref = group.workload_ref if group is not None else None
            instantiated.add((obj.namespace, ref.workload if ref is not None and not ref.legacy else None))
        found = []
        for obj in self.index.of_kind(*WORKLOAD):
            if obj.name is None or (obj.namespace, obj.name) in instantiated:
                continue
            owner = self._controller(obj)
            if owner is None or owner in self.found.claimed:
                continue  # no pods to place, or the owner is a gang of its own (a Job's spec.scheduling)
            templates = pod_templates(owner)
            for group in groups_of(obj):
                template = group.template
                minimum = group.policy.minimum.value
                if template is None or template.depth != 1 or group.composite or group.policy.variant != "gang":
                    continue
                if minimum is None or not templates:
                    continue
                name = group.name or "<unnamed>"
                chosen = [_named(templates, name)]
                gang = self._gang(obj, minimum, group.policy.minimum.path, _topology_key(group))
                gang.name = f"{obj.name}/{name}"
                gang.priority = self._priority(group, chosen)
                self._short(gang, self._members(gang, chosen), f"{owner.kind} {owner.name}")
                gang.notes.append(f"pods: {owner.kind} {owner.name}, the Workload's controllerRef")
                found.append(gang)
            self.found.claimed.add(owner)
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
        for obj in self.index.of_kind(*KAI_PODGROUP):
            if obj.name is None:
                continue
            spec = obj.spec
            templates = self.index.scheduler_members("kai", obj.namespace, obj.name)
            topology = kai_topology(spec.get("topologyConstraint"), ("spec", "topologyConstraint"))
            minimum = as_int(spec.get("minMember"))
            minimum = 1 if minimum is None else minimum  # podgroup_info/job_info.go setSubGroups
            gang = self._gang(obj, minimum, ("spec", "minMember") if "minMember" in spec else ("spec",), None)
            _kai_constraint(gang, topology)
            gang.priority = self._spec_priority(spec, templates)
            if as_list(spec.get("subGroups")):
                self._kai_subgroups(gang, obj, templates)
            elif templates:
                self._short(gang, self._members(gang, templates), f"KAI PodGroup {obj.name}")
            else:
                gang.problems.append(f"no Pod in the set carries the annotation {KAI_GROUP_ANNOTATION}: {obj.name}")
            found.append(gang)
        for group_name, kind in sorted(KAI_MIN_MEMBER_KINDS):
            for obj in self.index.of_kind(group_name, kind):
                annotation = kai_min_member(obj)
                batch_min = parse_min_member(annotation[1]) if annotation is not None else None
                templates = pod_templates(obj)
                if annotation is None or batch_min is None or not templates or obj in self.found.claimed:
                    continue
                gang = self._gang(obj, batch_min, annotation[0], None)
                # the pod-grouper copies the top owner's topology annotations to the PodGroup it makes
                _kai_constraint(gang, kai_owner_topology(obj.annotations, ("metadata", "annotations")))
                gang.priority = self._priority(None, templates)
                self._short(gang, self._members(gang, templates), f"{kind} {obj.name}")
                found.append(gang)
        return found

    def _kai_subgroups(self, gang: Gang, obj: KObject, templates: list[PodTemplate]) -> None:
        """The sub-group tree: each set needs its minSubGroup direct members (unset: all), each pod
        set its minMember Pods; the PodGroup's own minMember no longer counts."""
        root, problems = kai_subgroup_tree(obj.spec)
        gang.problems.extend(problems)
        by_name: dict[str, list[PodTemplate]] = {}
        for template in templates:
            by_name.setdefault(_subgroup(template) or "", []).append(template)
        leaves = {leaf.name for leaf in kai_leaves(root)}
        strays = sum(len(members) for name, members in by_name.items() if name not in leaves)
        if strays:
            gang.notes.append(
                f"{strays} member pod template(s) name no sub-group of the tree ({KAI_SUBGROUP_LABEL}):"
                " KAI does not schedule them"
            )
        gang.min_path = ("spec", "minSubGroup") if "minSubGroup" in obj.spec else ("spec", "subGroups")
        self._kai_node(gang, obj, root, by_name)

    def _kai_node(self, gang: Gang, obj: KObject, node: KaiSubGroup, by_name: dict[str, list[PodTemplate]]) -> None:
        for child in node.children:
            field_name = "minMember" if child.leaf else "minSubGroup"
            sub = self._gang(obj, child.minimum, (*child.path, field_name), None, "SubGroup")
            sub.name = f"{obj.name}/{child.name}"
            sub.priority = gang.priority
            if child.topology is not None:
                _kai_constraint(sub, child.topology)
            if child.leaf:
                self._short(sub, self._members(sub, by_name.get(child.name, [])), f"sub-group {child.name}")
            elif child.minimum == 0:
                sub.notes.append(f"minSubGroup 0: sub-group {child.name} is satisfied with none of its members")
            else:
                self._kai_node(sub, obj, child, by_name)
            gang.children.append(sub)
        gang.min_groups = node.minimum
        gang.required = gang.min_groups
        if node.minimum == 0 and gang.children:
            gang.children.clear()
            gang.notes.append("minSubGroup 0: satisfied with none of its sub-groups")

    def member_label_gangs(self) -> list[Gang]:
        """Volcano and coscheduling PodGroups (`minMember`) with the Pods that name them; Volcano
        PodGroups and Jobs with their per-task minimums (`minTaskMember`)."""
        found = []
        for kind_key, scheduler in ((VOLCANO_PODGROUP, "volcano"), (COSCHEDULING_PODGROUP, "coscheduling")):
            for obj in self.index.of_kind(*kind_key):
                minimum = as_int(obj.spec.get("minMember"))
                if obj.name is None or minimum is None:
                    continue
                gang = self._gang(obj, minimum, ("spec", "minMember"), None)
                templates = self.index.scheduler_members(scheduler, obj.namespace, obj.name)
                gang.priority = self._spec_priority(obj.spec, templates)
                self._short(gang, self._members(gang, templates), f"{obj.kind} {obj.name}")
                if scheduler == "volcano":
                    tasks = volcano_enforced_minimums(minimum, volcano_task_minimums(obj.spec))
                    self._task_minimums(gang, tasks, [(_volcano_task(t), t) for t in templates])
                found.append(gang)
        for obj in self.index.of_kind(*VOLCANO_JOB):
            templates = pod_templates(obj)
            if not templates or obj in self.found.claimed:
                continue
            available = as_int(obj.spec.get("minAvailable"))
            job_path: Path = ("spec", "minAvailable") if available is not None else ("spec",)
            gang = self._gang(obj, available or 0, job_path, None)
            job_members = self._members(gang, templates)
            if available is None:
                gang.required = sum(count for _, count in job_members)
            gang.priority = self._spec_priority(obj.spec, templates)
            self._short(gang, job_members, f"Volcano Job {obj.name}")
            tasks = volcano_enforced_minimums(gang.required, volcano_job_task_minimums(obj.spec))
            named = [(as_str(dig(obj.spec, "tasks", t.path[2], "name")), t) for t in templates]
            self._task_minimums(gang, tasks, named)
            found.append(gang)
        return found

    def _task_minimums(
        self, gang: Gang, tasks: dict[str, int], templates: list[tuple[str | None, PodTemplate]]
    ) -> None:
        """Each task's minimum on the shape of its Pods; a task with fewer Pods than its minimum makes
        the job invalid (job_info.go CheckTaskValid: "Not enough valid pods of each task")."""
        for task, minimum in sorted(tasks.items()):
            members = [template for name, template in templates if name == task]
            shapes = {self._shape_of(gang, template) for template in members}
            have = sum(pod_count(template) or 0 for template in members)
            if have < minimum:
                gang.problems.append(
                    f"task {task}: {have} Pod(s) in the set while minTaskMember is {minimum}: Not enough valid pods"
                    " of each task for gang-scheduling"
                )
            elif len(shapes) == 1:
                gang.minimums.append((shapes.pop(), minimum))
            else:
                gang.notes.append(f"task {task}: its Pods differ in shape, its minTaskMember {minimum} is not checked")

    def _shape_of(self, gang: Gang, template: PodTemplate) -> PodShape:
        devices, _ = self.claims.requests(template.spec, template.owner.namespace)
        return shape_from_spec(template.spec, template.annotations, devices)

    # ----------------------------------------------------------------------- Kueue

    def kueue_gangs(self) -> list[Gang]:
        """Kueue-managed Jobs, JobSets, LeaderWorkerSets (one Workload per group) and plain-Pod
        groups: Kueue admits a Workload's PodSets all at once, each PodSet in one domain of its
        required level, PodSets of one podset-group-name together, slices each in one domain."""
        found: list[Gang] = []
        for key in (JOB, JOBSET, LWS):
            for obj in self.index.of_kind(*key):
                queue = kueue_queue(obj.metadata)
                if queue is None or obj in self.found.claimed or is_controlled(obj.metadata):
                    continue
                templates = pod_templates(obj)
                if not templates:
                    continue
                self.found.claimed.add(obj)
                if key == LWS:
                    found.extend(self._kueue_lws(obj, templates, queue.value))
                    continue
                podsets = [_PodSet(_podset_name(t), t, pod_count(t) or 0) for t in templates]
                minimum = _min_parallelism(obj, podsets[0].count) if key == JOB else None
                path: Path = ("spec", "parallelism") if key == JOB else ("spec", "replicatedJobs")
                found.append(self._kueue_workload(obj, obj.name or "<unnamed>", podsets, path, queue.value, minimum))
        found.extend(self._kueue_pod_groups())
        return found

    def _kueue_lws(self, obj: KObject, templates: list[PodTemplate], queue: str) -> list[Gang]:
        sizes = lws_sizes(obj)
        if sizes is None:
            return []
        groups, size, has_leader = sizes
        podsets = []
        for template in templates:
            leader = template.role == "lws:leader"
            count = 1 if leader else (size - 1 if has_leader else size)
            # leaderworkerset_reconciler.go podSets: "leader" and "worker", or "main" without a leader
            podsets.append(_PodSet("leader" if leader else ("worker" if has_leader else "main"), template, count))
        path: Path = ("spec", "leaderWorkerTemplate", "size")
        return [self._kueue_workload(obj, f"{obj.name}/group-{index}", podsets, path, queue) for index in range(groups)]

    def _kueue_pod_groups(self) -> list[Gang]:
        groups: dict[tuple[str, str], list[PodTemplate]] = {}
        for obj in self.index.mentioning(KUEUE_POD_GROUP_LABEL, kinds=[POD]):
            if obj in self.found.claimed or kueue_queue(obj.metadata) is None:
                continue
            for template in pod_templates(obj):
                joined = template.membership.kueue
                if joined is not None:
                    groups.setdefault((obj.namespace, joined.value), []).append(template)
        found = []
        for (_, name), templates in groups.items():
            first = templates[0]
            queue = kueue_queue(first.owner.metadata)
            podsets = _role_podsets(templates)
            total = first.membership.kueue_total
            path: Path = total.path if total is not None else ("metadata", "labels", KUEUE_POD_GROUP_LABEL)
            gang = self._kueue_workload(first.owner, name, podsets, path, queue.value if queue else "")
            gang.kind = "PodGroup (Kueue)"
            count = int(total.value.strip()) if total is not None and total.value.strip().isdigit() else None
            if count is None:
                gang.problems.append(
                    f"failed to extract '{KUEUE_POD_GROUP_TOTAL}' annotation from the pod '{first.owner.name}'"
                    " (Kueue does not admit the group)"
                )
            elif len(templates) < count:
                gang.problems.append(
                    f"'{name}' group has fewer runnable pods than expected: {len(templates)} in the set,"
                    f" {KUEUE_POD_GROUP_TOTAL} {count} (Kueue does not admit it)"
                )
            for template in templates:
                self.found.claimed.add(template.owner)
            found.append(gang)
        return found

    def _kueue_workload(
        self,
        obj: KObject,
        name: str,
        podsets: list[_PodSet],
        path: Path,
        queue: str,
        minimum: int | None = None,
    ) -> Gang:
        """One Workload: a gang per unit (a PodSet, or the PodSets of one podset-group-name), under a
        parent that needs every unit when there are several."""
        units: dict[str, list[_PodSet]] = {}
        for podset in podsets:
            group = podset.topology.group
            units.setdefault(f"group:{group.value}" if group is not None else f"podset:{podset.name}", []).append(
                podset
            )
        gangs = [self._kueue_unit(obj, name, members, path, minimum) for members in units.values()]
        grouping = [problem for members in units.values() for problem in _grouping_problems(members)]
        if len(gangs) == 1:
            gang = gangs[0]
            gang.kind, gang.name = obj.kind, name
        else:
            gang = self._gang(obj, len(gangs), path, None)
            gang.name = name
            gang.children = gangs
            gang.min_groups = gang.required = len(gangs)
            gang.templates = [template for child in gangs for template in child.templates]
        gang.priority = self._priority(None, [podset.template for podset in podsets])
        for child in gang.children:
            child.priority = gang.priority
        shown = ", ".join(f"{podset.name} {podset.count}" for podset in podsets)
        gang.notes.insert(0, f"Kueue (queue {queue}) admits the Workload all-or-nothing: PodSets {shown}")
        gang.problems.extend(grouping)
        for podset in podsets:
            gang.problems.extend(f"PodSet {podset.name}: {problem}" for problem in podset.topology.problems)
            gang.notes.extend(f"PodSet {podset.name}: {key} is not modelled" for key in podset.topology.unmodelled)
        return gang

    def _kueue_unit(self, obj: KObject, name: str, podsets: list[_PodSet], path: Path, minimum: int | None) -> Gang:
        topology = podsets[0].topology
        key = topology.level.value if topology.mode == "required" and topology.level is not None else None
        total = sum(podset.count for podset in podsets)
        gang = self._gang(obj, minimum if minimum is not None else total, path, key, "PodSet")
        gang.name = f"{name}/{'+'.join(podset.name for podset in podsets)}"
        if topology.mode == "preferred" and topology.level is not None:
            gang.notes.append(
                f"preferred topology {topology.level.value}: Kueue tries one such domain first, then the levels"
                " above, then any; judged here on the whole cluster"
            )
        if minimum is not None:
            gang.notes.append(f"partial admission: Kueue may admit down to {minimum} of {total} Pods")
        if topology.slice_level is not None and topology.slice_size is not None and len(podsets) == 1:
            self._kueue_slices(gang, podsets[0], topology.slice_level.value, topology.slice_size)
            return gang
        members: dict[PodShape, int] = {}
        for podset in podsets:
            self.found.claimed.add(podset.template.owner)
            shape = self._shape(gang, podset.template)
            members[shape] = members.get(shape, 0) + podset.count
        gang.members = list(members.items())
        return gang

    def _kueue_slices(self, gang: Gang, podset: _PodSet, level: str, size: int) -> None:
        """Slices of `size` Pods, each in one domain of `level` (a last, smaller slice for a rest)."""
        shape = self._shape(gang, podset.template)
        sizes = [size] * (podset.count // size) + ([podset.count % size] if podset.count % size else [])
        for position, pods in enumerate(sizes):
            child = Gang("Slice", gang.namespace, f"{gang.name}/slice-{position}", pods, topology_key=level)
            child.order, child.origin, child.min_path = gang.order, gang.origin, gang.min_path
            child.members = [(shape, pods)]
            child.templates = [podset.template]
            gang.children.append(child)
        gang.min_groups = gang.required = len(gang.children)
        gang.notes.append(f"slices: {len(sizes)} of {size} Pods, each in one {level} domain")

    def singles(self) -> list[Gang]:
        """Pod-running objects in no gang: their Pods, each a group of one."""
        found = []
        for obj in self.index.objects:
            if obj in self.found.claimed:
                continue
            templates = pod_templates(obj)
            if not templates:
                continue
            counts = [pod_count(template) for template in templates]
            if any(count is None for count in counts) or is_controlled(obj.metadata):
                continue
            required = sum(count for count in counts if count is not None)
            if required == 0:
                continue
            gang = self._gang(obj, required, ("spec",) if obj.kind != "Pod" else (), None)
            gang.members = self._members(gang, templates)
            gang.is_gang = False
            gang.priority = self._priority(None, templates)
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
    reader = GangReader(index, priorities, default_priority, claims, never)
    pod_groups = reader.was_pod_groups()
    gangs = reader.composites(pod_groups)
    gangs += reader.job_gangs()
    gangs += reader.workload_gangs()
    gangs += reader.kai_gangs()
    gangs += reader.member_label_gangs()
    gangs += reader.kueue_gangs()
    gangs += reader.singles()
    gangs.sort(key=lambda gang: gang.order)
    for gang in gangs:
        reader.mark_preemption(gang)
    reader.found.gangs = gangs
    return reader.found


@dataclass
class _PodSet:
    """A Kueue PodSet: its pod template, its Pod count and its topology request."""

    name: str
    template: PodTemplate
    count: int

    @cached_property
    def topology(self) -> PodSetTopology:
        return podset_topology(self.template.metadata, self.template.metadata_path)


def _podset_name(template: PodTemplate) -> str:
    """Kueue's PodSet name: "main" for a Job, the replicated job's name for a JobSet."""
    return template.role.split(":", 1)[1] if ":" in template.role else "main"


def _role_podsets(templates: list[PodTemplate]) -> list[_PodSet]:
    """A plain-Pod group's PodSets: its Pods by role (their spec and topology annotations; Kueue
    hashes the role: pkg/controller/jobs/pod/pod_controller.go constructGroupPodSets)."""
    roles: dict[str, _PodSet] = {}
    for template in templates:
        topology = podset_topology(template.metadata, template.metadata_path)
        role = signature([template.spec, topology.mode, topology.level, topology.slice_level, topology.slice_size])
        if role in roles:
            roles[role].count += 1
        else:
            podset = roles[role] = _PodSet(f"role-{len(roles)}", template, 1)
            podset.__dict__["topology"] = topology  # read once: the cached_property's slot
    return list(roles.values())


def _grouping_problems(podsets: list[_PodSet]) -> list[str]:
    """What Kueue's webhook rejects in a PodSet group (kubernetes-sigs/kueue
    pkg/controller/jobframework/tas_validation.go ValidatePodSetGroupingTopology): exactly 2 PodSets,
    one of a single Pod, the same required or preferred level."""
    group = podsets[0].topology.group
    if group is None:
        return []
    where = f"{KUEUE_PODSET_GROUP} {group.value}"
    if len(podsets) != 2:
        return [f"{where}: can only define groups of exactly 2 pod sets, got: {len(podsets)} pod set(s)"]
    first, second = podsets
    problems = []
    if first.count != 1 and second.count != 1:
        problems.append(
            f"{where}: can only define groups where at least one pod set has only 1 replica, got:"
            f" {first.count} replica(s) and {second.count} replica(s) in the group"
        )
    levels = [(podset.topology.mode, _level(podset.topology)) for podset in podsets]
    if levels[0] != levels[1]:
        problems.append(
            f"{where}: must specify '{KUEUE_PODSET_REQUIRED}' or '{KUEUE_PODSET_PREFERRED}' topology consistent"
            " in both pod sets of the group"
        )
    return problems


def _level(topology: PodSetTopology) -> str | None:
    return topology.level.value if topology.level is not None else None


def _min_parallelism(obj: KObject, count: int) -> int | None:
    """kueue.x-k8s.io/job-min-parallelism: the fewest Pods Kueue may admit the Job with."""
    value = as_str(obj.annotations.get(KUEUE_JOB_MIN_PARALLELISM))
    number = int(value) if value is not None and value.strip().isdigit() else None
    return number if number is not None and 1 <= number < count else None


def _cycle_members(composites: dict[tuple[str, str], Gang], parents: dict[Gang, str | None]) -> set[tuple[str, str]]:
    """CompositePodGroups whose parent chain comes back to them: each gets the problem that names
    its cycle (the scheduler marks the hierarchy Invalid; lint: WAS607) and is placed as no one's
    child."""
    parent_of: dict[tuple[str, str], tuple[str, str] | None] = {}
    for (namespace, name), gang in composites.items():
        parent = parents[gang]
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


def _topology_key(group: Group) -> str | None:
    """The key of the (single) topology constraint: `schedulingConstraints.topology[0].key`."""
    if not group.topology:
        return None
    first = group.topology[0]
    return first.key or as_str(as_map(first.raw).get("level"))


def _parent_name(gang: Gang) -> str | None:
    group = object_group(gang.origin) if gang.origin is not None else None
    return group.parent.value if group is not None and group.parent is not None else None


def _kai_constraint(gang: Gang, topology: KaiTopology) -> None:
    """KAI's required level is the gang's domain; a preferred level is a preference only."""
    if topology.required is not None:
        gang.topology_key = topology.required.value
    if topology.preferred is not None:
        gang.notes.append(
            f"preferred topology level {topology.preferred.value}: KAI tries one such domain first, then the"
            " levels above; judged here without it"
        )


def _volcano_task(template: PodTemplate) -> str | None:
    return template.membership.volcano_task


def _subgroup(template: PodTemplate) -> str | None:
    subgroup = template.membership.kai_subgroup
    return subgroup.value if subgroup is not None else None
