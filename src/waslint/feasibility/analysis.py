"""One feasibility run: the cluster state from snapshot items (with the what-ifs `--drain` and
`--add-nodes`), the gangs placed in priority order (then file order), each verdict explained at
the moment it was decided, blockers named, and the `--preempt` what-if for gangs that fail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from waslint.feasibility.admission import QueueBook, admit, as_admitted, commit, note_admission, over_quota
from waslint.feasibility.capacity import ClusterState
from waslint.feasibility.dra import node_devices, shared_claims
from waslint.feasibility.explain import Verdict, explain, gpu_units
from waslint.feasibility.model import Gang, NodeInfo, RunningPod, node_from_dict, priority_table, running_pod_from_dict
from waslint.feasibility.placement import domain_nodes, node_set, place, run_order
from waslint.objects.groups import object_group
from waslint.objects.keys import HOSTNAME, KAI_PODGROUP, PODGROUP, SCHEDULER_KEY_PREFIXES, SCHEDULING
from waslint.objects.kobject import KObject, as_list, as_map, as_str, dig

PREEMPT_DOMAINS = 8  # fitting domains tried for the least important victim set


class WhatIfError(ValueError):
    """A what-if names a node the snapshot does not have: a usage error (exit 2)."""


@dataclass
class WhatIf:
    drain: list[str] = field(default_factory=list)
    add_nodes: int = 0
    like: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    preempt: bool = False

    def describe(self) -> list[str]:
        said = []
        if self.drain:
            said.append(f"drained: {', '.join(self.drain)}")
        if self.add_nodes:
            extra = "".join(f", {k}={v}" for k, v in self.labels.items())
            said.append(f"added {self.add_nodes} node(s) like {self.like}{extra}")
        if self.preempt:
            said.append("preemption of lower-priority groups considered")
        return said


@dataclass
class Cluster:
    state: ClusterState
    priorities: dict[str, int]
    default_priority: int
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        nodes = self.state.nodes
        return {
            "nodes": len(nodes),
            "ready_nodes": sum(1 for node in nodes if node.ready and not node.unschedulable),
            "running_pods": len(self.state.running),
            "priority_classes": len(self.priorities),
        }


def build_cluster(
    node_items: list[dict[str, Any]],
    pod_items: list[dict[str, Any]],
    priority_items: list[dict[str, Any]],
    what_if: WhatIf | None = None,
    all_groups: set[tuple[str, str]] | None = None,
    slice_items: list[dict[str, Any]] | None = None,
) -> Cluster:
    """The cluster state of a snapshot. `all_groups` are (namespace, name) of groups whose
    disruptionMode is `all` (evicting one pod evicts the group)."""
    what_if = what_if or WhatIf()
    priorities, default_priority = priority_table(priority_items)
    nodes = [node for node in (node_from_dict(item) for item in node_items) if node is not None]
    devices = node_devices(slice_items or [])
    for node in nodes:  # DRA devices the node's ResourceSlices publish, as dra/<driver> capacity
        node.allocatable.update(devices.get(node.name, {}))
    names = {node.name for node in nodes}
    for name in what_if.drain:
        if name not in names:
            raise WhatIfError(f"--drain: no node {name} in the snapshot")
    if what_if.add_nodes:
        nodes.extend(_added_nodes(nodes, what_if))
    running = []
    for item in pod_items:
        pod = running_pod_from_dict(item, priorities, default_priority)
        if pod is not None:
            pod.group_all = bool(all_groups) and pod.group in (all_groups or set())
            running.append(pod)
    state = ClusterState(nodes, running, what_if.drain)
    return Cluster(state, priorities, default_priority, what_if.describe())


def _added_nodes(nodes: list[NodeInfo], what_if: WhatIf) -> list[NodeInfo]:
    model = next((node for node in nodes if node.name == what_if.like), None)
    if model is None:
        raise WhatIfError(f"--add-nodes: --like names no node of the snapshot ({what_if.like})")
    added = []
    for number in range(1, what_if.add_nodes + 1):
        name = f"{model.name}-new-{number}"
        labels = {**model.labels, HOSTNAME: name, **what_if.labels}
        added.append(NodeInfo(name, labels, model.taints, dict(model.allocatable), True, False, model.gpu_memory_mib))
    return added


# --------------------------------------------------------------------------- bound members

SHORT_PROBLEM = " member Pod(s) of "  # gangs.py's "only N member Pod(s) of X in the set ..."


def bind_members(state: ClusterState, gangs: list[Gang]) -> None:
    """Upstream semantics (kube-scheduler GangScheduling: PreEnqueue counts every Pod of the group,
    bound or not; a placement holds the group's scheduled Pods): the snapshot's Pods bound to a node
    with `spec.schedulingGroup.podGroupName` naming a WAS PodGroup of the run count toward its
    minimum, and fix its domain, and its parents' (a CompositePodGroup whose bound member sits in
    rack-2 can complete only in rack-2)."""
    by_group: dict[tuple[str, str], list[RunningPod]] = {}
    for pod in state.running:
        name = as_str(dig(pod.source, "spec", "schedulingGroup", "podGroupName"))
        if name is not None:
            by_group.setdefault((pod.namespace, name), []).append(pod)
    if not by_group:
        return
    for gang in gangs:
        _bind(state, gang, by_group)


def _bind(state: ClusterState, gang: Gang, by_group: dict[tuple[str, str], list[RunningPod]]) -> list[int]:
    """Binds the gang (and its children); returns the node positions of its bound members."""
    positions: list[int] = []
    for child in gang.children:
        positions += _bind(state, child, by_group)
    origin = gang.origin
    if not gang.children and isinstance(origin, KObject) and (origin.group, origin.kind) == PODGROUP:
        pods = by_group.get((gang.namespace, gang.name), [])
        positions += [state.index[pod.node] for pod in pods if pod.node in state.index]
        if pods:
            _count_bound(gang, pods)
    if positions and gang.domain_key is not None:
        _fix_domain(state, gang, positions)
    return positions


def _count_bound(gang: Gang, pods: list[RunningPod]) -> None:
    """The bound members count toward the minimum (placement takes `required - bound` more of the
    members); a bound Pod that is also in the set is one member, not two."""
    gang.bound = len(pods)
    listed = {t.owner.name for t in gang.templates if t.owner.kind == "Pod"}
    have = sum(count for _, count in gang.members) + sum(1 for pod in pods if pod.name not in listed)
    if have >= gang.required:
        gang.problems[:] = [p for p in gang.problems if SHORT_PROBLEM not in p]
    _note(gang, f"{gang.bound} member Pod(s) already bound: they count toward the minimum of {gang.required}")


def _note(gang: Gang, said: str) -> None:
    if said not in gang.notes:
        gang.notes.append(said)


def _fix_domain(state: ClusterState, gang: Gang, positions: list[int]) -> None:
    values = state.label_values(gang.domain_key)
    found = sorted({values[p] or "" for p in positions})
    if len(found) == 1 and found[0]:
        gang.fixed_domain = found[0]
        _note(gang, f"bound members run in {gang.topology_key}={found[0]}: the group can complete only in that domain")
        return
    where = ", ".join(value or f"a node without {gang.topology_key}" for value in found)
    gang.problems[:] = [p for p in gang.problems if "bound members already run in" not in p]
    gang.problems.append(
        f"bound members already run in more than one {gang.topology_key} domain ({where}):"
        " the topology constraint can never hold for the group"
    )


# --------------------------------------------------------------------------- upstream readings


def read_upstream(gangs: list[Gang], pod_group_exists: Callable[[str, str], bool]) -> None:
    """What kube-scheduler decides before placement: a Pod whose `schedulingGroup.podGroupName`
    names a PodGroup that does not exist is held in PreEnqueue until it does (GangScheduling:
    "waiting for pod's pod group ... to appear"), so it waits forever; a `basic` PodGroup is no
    gang: each of its Pods is scheduled on its own."""
    for gang in gangs:
        origin = gang.origin
        if isinstance(origin, KObject) and (origin.group, origin.kind) == PODGROUP:
            group = object_group(origin)
            if group is not None and group.policy.variant == "basic":
                gang.is_gang = False
            continue
        if gang.composite:
            continue
        missing = sorted(
            {
                template.membership.pod_group.value
                for template in gang.templates
                if template.membership.pod_group is not None
                and not pod_group_exists(template.owner.namespace, template.membership.pod_group.value)
            }
        )
        for name in missing:
            gang.problems.append(
                f'waiting for pod\'s pod group "{name}" to appear in scheduling queue: no PodGroup {name} in the'
                " set, and kube-scheduler holds its Pods until one exists (they wait forever)"
            )


def co_locate_shared_claims(gangs: list[Gang], node_local: bool) -> None:
    """A ResourceClaim shared by name is one allocation: every pod naming it must reach the same
    devices (kube-scheduler's DynamicResources Filter rejects a node the allocation does not reach:
    "resourceclaim not available on the node"). With node-local devices (the snapshot's
    ResourceSlices name their node) the pods of a gang that all share a claim go on one node."""
    for gang in gangs:
        if gang.composite or not gang.templates:
            continue
        per_template = [set(shared_claims(template.spec)) for template in gang.templates]
        common = set.intersection(*per_template)
        pods = sum(count for _, count in gang.members) + gang.bound
        if (not common and not any(per_template)) or pods < 2:
            continue
        names = ", ".join(sorted(common or set.union(*per_template)))
        if not node_local:
            gang.caveats.append(
                f"the pods share ResourceClaim {names}: one allocation they must all reach; the snapshot has no"
                " ResourceSlices, so where its devices are is not known"
            )
        elif common and gang.topology_key != HOSTNAME:
            gang.topology_key, gang.domain_levels = HOSTNAME, ()
            gang.notes.append(
                f"the pods share ResourceClaim {names}: one allocation of node-local devices, so they all go on"
                " one node"
            )
        elif not common:
            gang.caveats.append(
                f"some of the pods share ResourceClaim {names}: they must go on one node, which placement does not"
                " enforce for part of a gang"
            )


# --------------------------------------------------------------------------- topology levels

KUEUE_PREFIX = SCHEDULER_KEY_PREFIXES["kueue"]


def topology_levels(items: list[dict[str, Any]]) -> dict[tuple[str, str], list[str]]:
    """(scheduler, Topology name) -> its `spec.levels[].nodeLabel`, coarsest first; scheduler is
    `kai` (kai.scheduler Topology) or `kueue` (kueue.x-k8s.io Topology)."""
    found: dict[tuple[str, str], list[str]] = {}
    for item in items:
        group = str(item.get("apiVersion") or "").split("/", 1)[0]
        scheduler = "kai" if group == "kai.scheduler" else "kueue" if group == "kueue.x-k8s.io" else None
        name = as_str(as_map(item.get("metadata")).get("name"))
        levels = [as_str(as_map(level).get("nodeLabel")) for level in as_list(as_map(item.get("spec")).get("levels"))]
        if scheduler is not None and name is not None and all(levels):
            found[(scheduler, name)] = [level for level in levels if level is not None]
    return found


def assign_levels(gangs: list[Gang], topologies: dict[tuple[str, str], list[str]]) -> None:
    """Kueue and KAI name a domain by the values of every level above it (`rack-1` in block b1 and
    `rack-1` in block b2 are two racks): a gang of theirs whose key is a level of its Topology gets
    the levels above it. Upstream (TopologyPlacement) groups by the key's value alone: WAS gangs
    keep it."""
    for gang in gangs:
        levels = _levels_of(gang, topologies)
        _set_levels(gang, levels)


def _set_levels(gang: Gang, levels: list[str] | None) -> None:
    if levels and gang.topology_key in levels:
        gang.domain_levels = tuple(levels[: levels.index(gang.topology_key)])
    for child in gang.children:
        _set_levels(child, levels)


def _levels_of(gang: Gang, topologies: dict[tuple[str, str], list[str]]) -> list[str] | None:
    origin = gang.origin
    if not isinstance(origin, KObject):
        return None
    if (origin.group, origin.kind) == KAI_PODGROUP:
        name = as_str(dig(origin.spec, "topologyConstraint", "topology"))
        return topologies.get(("kai", name)) if name is not None else None
    if not _kueue_managed(origin, gang):
        return None
    key = gang.topology_key or next((c.topology_key for c in gang.children if c.topology_key), None)
    candidates = [levels for (scheduler, _), levels in sorted(topologies.items()) if scheduler == "kueue"]
    return next((levels for levels in candidates if key in levels), None)


def _kueue_managed(origin: KObject, gang: Gang) -> bool:
    if any(str(key).startswith(KUEUE_PREFIX) for key in origin.labels):
        return True
    return any(str(key).startswith(KUEUE_PREFIX) for t in gang.templates for key in t.annotations)


@dataclass
class Run:
    verdicts: list[Verdict]  # in the order the gangs were given
    order: list[Gang]  # the order they were placed in


BLOCKER_DOMAINS = 3  # fitting domains searched for the gangs that took them


def analyse(cluster: Cluster, gangs: list[Gang], preempt: bool = False, queues: QueueBook | None = None) -> Run:
    """Each gang admitted by its queue first (`queues`, admission.py), then placed."""
    state = cluster.state
    bind_members(state, gangs)
    baseline = state.clone()  # the snapshot before this run's gangs consumed anything
    placed_on: dict[int, list[Gang]] = {}  # node -> the gangs of this run placed on it, in order
    verdicts: dict[Gang, Verdict] = {}
    order = run_order(gangs)
    for gang in order:
        admission = admit(queues, gang) if queues is not None else None
        if admission is not None and not admission.admitted:
            verdicts[gang] = over_quota(state, gang, admission)
            continue
        placing = as_admitted(gang, admission) if admission is not None else gang
        attempt = place(state, placing)
        verdict = explain(state, attempt)
        verdict.gang = gang
        if admission is not None:
            note_admission(verdict, admission)
        if attempt.feasible:
            for position in node_set(attempt):
                placed_on.setdefault(position, []).append(gang)
            if admission is not None and queues is not None:
                commit(queues, admission)
        elif not gang.problems:
            _blockers(baseline, placing, placed_on, verdict)
            if preempt:
                verdict.what_if.extend(preemption(state, gang))
        verdicts[gang] = verdict
    return Run([verdicts[gang] for gang in gangs], order)


def _blockers(baseline: ClusterState, gang: Gang, placed_on: dict[int, list[Gang]], verdict: Verdict) -> None:
    """When the gang fits on the snapshot as it was, the earlier gangs of the run that took
    capacity in the (tightest few) domains where it would have fitted block it."""
    if not placed_on:
        return
    alone = place(baseline, gang, keep=False)
    if not alone.feasible:
        return
    domains = domain_nodes(baseline, gang.domain_key, None)
    blockers: dict[Gang, Gang] = {}
    for value in alone.fitting[:BLOCKER_DOMAINS]:
        for position in domains.get(value, []):
            for other in placed_on.get(position, ()):
                blockers.setdefault(other, other)
    verdict.blocked_by = sorted(blockers.values(), key=lambda other: (-other.priority, other.order))
    if verdict.blocked_by:
        names = ", ".join(str(other) for other in verdict.blocked_by[:5])
        more = f" and {len(verdict.blocked_by) - 5} more" if len(verdict.blocked_by) > 5 else ""
        where = f" (e.g. {gang.topology_key}={alone.fitting[0]})" if gang.topology_key and alone.fitting else ""
        verdict.reasons.append(
            f"blocked by {names}{more}, placed earlier in this run (higher priority or earlier in the files):"
            f" on the snapshot alone it would fit{where}"
        )


# --------------------------------------------------------------------------- --preempt


@dataclass
class Victim:
    """What one eviction takes away: a pod, or a whole group whose disruptionMode is `all`."""

    label: str
    pods: list[RunningPod]
    group: bool = False

    @property
    def gpus(self) -> float:
        return sum(gpu_units(pod.requests, pod.gpu_fraction) for pod in self.pods)

    @property
    def importance(self) -> tuple[int, int, int, float]:
        """kube-scheduler's moreImportantVictim (pkg/scheduler/framework/preemption/podgrouppreemption.go):
        higher priority first; at equal priority a group before a single Pod; single Pods by start
        time (the older one is more important), groups by size (the larger one is)."""
        priority = min(pod.priority for pod in self.pods)
        if self.group:
            return (priority, 1, len(self.pods), 0.0)
        pod = self.pods[0]
        in_group = dig(pod.source, "spec", "schedulingGroup", "podGroupName") is not None
        return (priority, 1 if in_group else 0, 0, -_started(pod))


def _started(pod: RunningPod) -> float:
    """status.startTime as seconds; a Pod without one counts as the newest."""
    text = as_str(dig(pod.source, "status", "startTime"))
    if text is None:
        return float("inf")
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return float("inf")


def victims_for(state: ClusterState, gang: Gang) -> list[Victim]:
    """The Pods (and `all` groups) of lower priority than the gang, the least important first."""
    units: dict[tuple[str, str], Victim] = {}
    singles: list[Victim] = []
    for pod in state.running:
        if pod.priority >= gang.priority:
            continue
        if pod.group_all:
            key = pod.group
            units.setdefault(key, Victim(f"group {key[0]}/{key[1]} (disruptionMode all)", [], True)).pods.append(pod)
        else:
            singles.append(Victim(f"pod {pod.namespace}/{pod.name}", [pod]))
    # a group with `all` is evicted whole, including members of equal or higher priority
    for victim in units.values():
        key = victim.pods[0].group
        victim.pods = [pod for pod in state.running if pod.group == key]
    return sorted([*units.values(), *singles], key=lambda victim: (victim.importance, victim.label))


def _evict(state: ClusterState, victims: list[Victim]) -> None:
    for victim in victims:
        for pod in victim.pods:
            position = state.index.get(pod.node)
            if position is not None:
                state.give_back(position, pod.requests, pod.gpu_fraction)


def preemption(state: ClusterState, gang: Gang) -> list[str]:
    """Would evicting lower-priority pods (groups with disruptionMode `all` whole) make the gang
    fit? As workload-aware preemption decides: every lower-priority victim is a candidate, the
    least important are taken first and the most important reprieved first; a WAS gang with a
    topology constraint does not preempt at all in kube-scheduler 1.37."""
    if not gang.preempts:
        return ["--preempt: the gang's preemptionPolicy is Never: it waits, it never preempts"]
    if gang.topology_key is not None and _upstream_group(gang):
        return [
            "--preempt: kube-scheduler 1.37 runs no workload-aware preemption for a pod group with a topology"
            ' constraint ("workload aware preemption is not supported for pod groups with scheduling'
            ' constraints"): the gang waits, nothing is preempted'
        ]
    victims = victims_for(state, gang)
    if not victims:
        return [f"--preempt: no running pod has a priority below {gang.priority}: preemption cannot help"]
    trial = state.clone()
    _evict(trial, victims)
    everything = place(trial, gang, keep=False)
    if not everything.feasible:
        return [f"--preempt: even evicting all {len(victims)} lower-priority victims, the gang does not fit"]
    best: tuple[tuple[tuple[int, int, int, float], int], str, list[Victim]] | None = None
    domains = domain_nodes(trial, gang.domain_key, None)
    for value in everything.fitting[:PREEMPT_DOMAINS]:
        nodes = set(domains.get(value, []))
        local = [victim for victim in victims if any(trial.index.get(pod.node) in nodes for pod in victim.pods)]
        chosen = _victim_set(state, gang, sorted(nodes), local)
        if chosen is None:
            continue
        cost = (max(victim.importance for victim in chosen), sum(len(victim.pods) for victim in chosen))
        if best is None or cost < best[0]:
            best = (cost, value, chosen)
    if best is None:
        return ["--preempt: no victim set found in the fitting domains"]
    _, value, chosen = best
    pods = sum(len(victim.pods) for victim in chosen)
    gpus = sum(victim.gpus for victim in chosen)
    where = f" in {gang.topology_key}={value}" if gang.topology_key else ""
    listed = ", ".join(victim.label for victim in chosen[:6]) + (" ..." if len(chosen) > 6 else "")
    return [f"--preempt: fits{where} after evicting {pods} pod(s) holding {gpus:g} GPU(s): {listed}"]


def _upstream_group(gang: Gang) -> bool:
    """The gang is a kube-scheduler pod group: a WAS PodGroup/CompositePodGroup, a Workload
    template, or a Job whose `spec.scheduling` makes one."""
    origin = gang.origin
    if not isinstance(origin, KObject):
        return False
    return origin.group == SCHEDULING or gang.min_path[:2] == ("spec", "scheduling")


def _victim_set(state: ClusterState, gang: Gang, nodes: list[int], victims: list[Victim]) -> list[Victim] | None:
    """Victims least important first until the gang fits in the nodes, then reprieve the most
    important first of those that are not needed (podgrouppreemption.go selectVictimsOnDomain)."""
    trial = state.clone()
    chosen: list[Victim] = []
    for victim in victims:
        _evict(trial, [victim])
        chosen.append(victim)
        if place(trial, gang, nodes, keep=False).feasible:
            break
    else:
        return None
    for victim in sorted(chosen, key=lambda v: (v.importance, v.label), reverse=True):
        without = [v for v in chosen if v is not victim]
        again = state.clone()
        _evict(again, without)
        if place(again, gang, nodes, keep=False).feasible:
            chosen = without
    return chosen
