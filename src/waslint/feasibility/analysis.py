"""One feasibility run: the cluster state from snapshot items (with the what-ifs `--drain` and
`--add-nodes`), the gangs placed in priority order (then file order), each verdict explained at
the moment it was decided, blockers named, and the `--preempt` what-if for gangs that fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from waslint.feasibility.admission import QueueBook, admit, as_admitted, commit, note_admission, over_quota
from waslint.feasibility.capacity import ClusterState
from waslint.feasibility.dra import node_devices
from waslint.feasibility.explain import Verdict, explain, gpu_units
from waslint.feasibility.model import Gang, NodeInfo, RunningPod, node_from_dict, priority_table, running_pod_from_dict
from waslint.feasibility.placement import domain_nodes, node_set, place, run_order
from waslint.objects.keys import HOSTNAME

PREEMPT_DOMAINS = 8  # domains tried for the cheapest victim set


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


@dataclass
class Run:
    verdicts: list[Verdict]  # in the order the gangs were given
    order: list[Gang]  # the order they were placed in


BLOCKER_DOMAINS = 3  # fitting domains searched for the gangs that took them


def analyse(cluster: Cluster, gangs: list[Gang], preempt: bool = False, queues: QueueBook | None = None) -> Run:
    """Each gang admitted by its queue first (`queues`, admission.py), then placed."""
    state = cluster.state
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
    domains = domain_nodes(baseline, gang.topology_key, None)
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

    @property
    def gpus(self) -> float:
        return sum(gpu_units(pod.requests, pod.gpu_fraction) for pod in self.pods)

    @property
    def cost(self) -> tuple[float, int, str]:
        return (self.gpus, len(self.pods), self.label)


def victims_for(state: ClusterState, gang: Gang) -> list[Victim]:
    units: dict[tuple[str, str], Victim] = {}
    singles: list[Victim] = []
    for pod in state.running:
        if pod.priority >= gang.priority:
            continue
        if pod.group_all:
            key = pod.group
            units.setdefault(key, Victim(f"group {key[0]}/{key[1]} (disruptionMode all)", [])).pods.append(pod)
        else:
            singles.append(Victim(f"pod {pod.namespace}/{pod.name}", [pod]))
    # a group with `all` is evicted whole, including members of equal or higher priority
    for victim in units.values():
        key = victim.pods[0].group
        victim.pods = [pod for pod in state.running if pod.group == key]
    return sorted([*units.values(), *singles], key=lambda victim: victim.cost)


def _evict(state: ClusterState, victims: list[Victim]) -> None:
    for victim in victims:
        for pod in victim.pods:
            position = state.index.get(pod.node)
            if position is not None:
                state.give_back(position, pod.requests, pod.gpu_fraction)


def preemption(state: ClusterState, gang: Gang) -> list[str]:
    """Would evicting lower-priority pods (groups with disruptionMode `all` whole) make the gang
    fit? The cheapest victim set by GPU count (then pods) over the tightest domains."""
    if not gang.preempts:
        return ["--preempt: the gang's preemptionPolicy is Never: it waits, it never preempts"]
    victims = victims_for(state, gang)
    if not victims:
        return [f"--preempt: no running pod has a priority below {gang.priority}: preemption cannot help"]
    trial = state.clone()
    _evict(trial, victims)
    everything = place(trial, gang, keep=False)
    if not everything.feasible:
        return [f"--preempt: even evicting all {len(victims)} lower-priority victims, the gang does not fit"]
    best: tuple[tuple[float, int], str, list[Victim]] | None = None
    domains = domain_nodes(trial, gang.topology_key, None)
    for value in everything.fitting[:PREEMPT_DOMAINS]:
        nodes = set(domains.get(value, []))
        local = [victim for victim in victims if any(trial.index.get(pod.node) in nodes for pod in victim.pods)]
        chosen = _cheapest(state, gang, sorted(nodes), local)
        if chosen is None:
            continue
        cost = (sum(victim.gpus for victim in chosen), sum(len(victim.pods) for victim in chosen))
        if best is None or cost < best[0]:
            best = (cost, value, chosen)
    if best is None:
        return ["--preempt: no victim set found in the fitting domains"]
    (gpus, pods), value, chosen = best
    where = f" in {gang.topology_key}={value}" if gang.topology_key else ""
    listed = ", ".join(victim.label for victim in chosen[:6]) + (" ..." if len(chosen) > 6 else "")
    return [f"--preempt: fits{where} after evicting {pods} pod(s) holding {gpus:g} GPU(s): {listed}"]


def _cheapest(state: ClusterState, gang: Gang, nodes: list[int], victims: list[Victim]) -> list[Victim] | None:
    """Add victims cheapest first until the gang fits in the nodes, then drop any not needed."""
    trial = state.clone()
    chosen: list[Victim] = []
    for victim in victims:
        _evict(trial, [victim])
        chosen.append(victim)
        if place(trial, gang, nodes, keep=False).feasible:
            break
    else:
        return None
    for victim in sorted(chosen, key=lambda v: v.cost, reverse=True):
        without = [v for v in chosen if v is not victim]
        again = state.clone()
        _evict(again, without)
        if place(again, gang, nodes, keep=False).feasible:
            chosen = without
    return chosen
