"""Free capacity and how many pods of one shape a node, or a topology domain, still takes.

Free = allocatable - requests of the Pods bound to the node (`spec.nodeName` set, phase not
Succeeded/Failed: a Pending pod with a node holds its capacity). The state is mutable: placing a
gang consumes capacity for the next one, and a journal lets a tentative placement (a composite
group's child, a what-if) be rolled back.

Speed by design: a `ShapeView` keeps, for one pod shape, the pod count of every node and the sum
per domain of each topology key asked for; consuming capacity on a node updates the views of that
node only (incremental), so a run of thousands of gangs never rescans the cluster. Node filters
run once per class of identical nodes (labels other than the hostname, taints, readiness).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Iterable
from typing import Any

from waslint.feasibility.filters import DRAINED, exclusion
from waslint.feasibility.model import PATH_SEP, NodeInfo, RunningPod
from waslint.objects.quantity import GPU, MILLI, Resources
from waslint.objects.shapes import PodShape

WHOLE = "<all nodes>"  # the one domain of a gang without a topology key


class ClusterState:
    def __init__(self, nodes: list[NodeInfo], running: Iterable[RunningPod] = (), drained: Iterable[str] = ()) -> None:
        self.nodes = nodes
        self.index = {node.name: position for position, node in enumerate(nodes)}
        self.free: list[Resources] = [dict(node.allocatable) for node in nodes]
        self.partial: list[list[int]] = [[] for _ in nodes]  # free milli of partly used GPU devices
        self.drained = {self.index[name] for name in drained if name in self.index}
        self.running: list[RunningPod] = []
        self.on_node: list[list[RunningPod]] = [[] for _ in nodes]
        self.views: dict[PodShape, ShapeView] = {}
        self.journal: list[tuple[int, Resources, list[int]]] = []
        self.journaling = 0
        self._label_values: dict[str, list[str | None]] = {}
        self._domains: dict[str, dict[str, list[int]]] = {}
        self._classes: dict[Any, list[int]] | None = None
        for pod in running:
            position = self.index.get(pod.node)
            if position is None:
                continue
            self.running.append(pod)
            self.on_node[position].append(pod)
            self._take(position, pod.requests, pod.gpu_fraction)

    def clone(self) -> ClusterState:
        """A copy with the same free capacity, no views and no journal (for baselines and what-ifs)."""
        copy = ClusterState.__new__(ClusterState)
        copy.nodes, copy.index = self.nodes, self.index
        copy.free = [dict(free) for free in self.free]
        copy.partial = [list(partial) for partial in self.partial]
        copy.drained = set(self.drained)
        copy.running, copy.on_node = self.running, self.on_node
        copy.views, copy.journal, copy.journaling = {}, [], 0
        copy._label_values, copy._domains, copy._classes = self._label_values, self._domains, self._classes
        return copy

    # ----------------------------------------------------------------------- capacity

    def _take(self, position: int, requests: Resources, fraction: int) -> None:
        free = self.free[position]
        for name, amount in requests.items():
            free[name] = free.get(name, 0) - amount
        if fraction:
            self._take_fraction(position, fraction)

    def _take_fraction(self, position: int, fraction: int) -> None:
        partial = self.partial[position]
        fitting = [slot for slot, left in enumerate(partial) if left >= fraction]
        if fitting:  # best fit: the fullest device that still holds the fraction
            slot = min(fitting, key=lambda s: partial[s])
            partial[slot] -= fraction
            return
        free = self.free[position]
        if free.get(GPU, 0) >= MILLI:
            free[GPU] -= MILLI
            partial.append(MILLI - fraction)

    def give_back(self, position: int, requests: Resources, fraction: int) -> None:
        """Release a running pod's requests (preemption what-ifs)."""
        before = dict(self.free[position])
        if self.journaling:
            self.journal.append((position, before, list(self.partial[position])))
        free = self.free[position]
        for name, amount in requests.items():
            free[name] = free.get(name, 0) + amount
        if fraction:
            partial = self.partial[position]
            used = [slot for slot, left in enumerate(partial) if left + fraction <= MILLI]
            if used:
                slot = min(used, key=lambda s: partial[s])
                partial[slot] += fraction
                if partial[slot] == MILLI:
                    partial.pop(slot)
                    free[GPU] = free.get(GPU, 0) + MILLI
        self._refresh(position, before)

    def count(self, position: int, shape: PodShape) -> tuple[int, str | None]:
        """How many more pods of `shape` fit on the node by resources, and the resource that
        limits that count (None when nothing does)."""
        free = self.free[position]
        best, limiting = 1 << 30, None
        for name, amount in shape.requests:  # extended resources first: they name the limit on ties
            fits = free.get(name, 0) // amount
            if fits < best:
                best, limiting = fits, name
        fraction = self.fraction_of(position, shape)
        if fraction is not None:
            if fraction <= 0:
                return 0, f"{GPU} (no nvidia.com/gpu.memory label to size gpu-memory)"
            devices = sum(left // fraction for left in self.partial[position])
            devices += (free.get(GPU, 0) // MILLI) * (MILLI // fraction)
            if devices < best:
                best, limiting = devices, GPU
        return max(0, best), limiting

    def fraction_of(self, position: int, shape: PodShape) -> int | None:
        """The share of one GPU device a KAI fractional pod takes on this node, in milli; None
        for a pod that is not fractional, 0 when it cannot be sized here."""
        if shape.gpu_fraction:
            return shape.gpu_fraction
        if shape.gpu_memory_mib:
            device = self.nodes[position].gpu_memory_mib
            if not device:
                return 0
            return min(MILLI, -(-shape.gpu_memory_mib * MILLI // device))
        return None

    def consume(self, position: int, shape: PodShape, pods: int) -> None:
        before = dict(self.free[position])
        if self.journaling:
            self.journal.append((position, before, list(self.partial[position])))
        fraction = self.fraction_of(position, shape) or 0
        requests = shape.request_map
        for _ in range(pods):
            self._take(position, requests, fraction)
        self._refresh(position, before)

    def _refresh(self, position: int, before: Resources) -> None:
        after = self.free[position]
        delta = {name: after.get(name, 0) - before.get(name, 0) for name in after.keys() | before.keys()}
        for view in self.views.values():
            view.refresh(position, delta)

    def checkpoint(self) -> int:
        self.journaling += 1
        return len(self.journal)

    def commit(self, mark: int) -> None:
        self.journaling -= 1
        if not self.journaling:
            del self.journal[mark:]

    def rollback(self, mark: int) -> None:
        self.journaling -= 1
        while len(self.journal) > mark:
            position, free, partial = self.journal.pop()
            before = self.free[position]
            self.free[position], self.partial[position] = free, partial
            self._refresh(position, before)

    # ----------------------------------------------------------------------- topology

    def label_values(self, key: str | None) -> list[str | None]:
        if key is None:
            return [WHOLE] * len(self.nodes)
        found = self._label_values.get(key)
        if found is None:
            if PATH_SEP in key:  # a path of levels: the domain is named by every level's value
                found = [_path_value(node.labels, key.split(PATH_SEP)) for node in self.nodes]
            else:
                found = [node.labels.get(key) for node in self.nodes]
            self._label_values[key] = found
        return found

    def domains(self, key: str | None) -> dict[str, list[int]]:
        """Domain value -> node positions, for one topology key (None: one domain of all nodes)."""
        cache_key = key if key is not None else "\0"
        found = self._domains.get(cache_key)
        if found is None:
            found = {}
            for position, value in enumerate(self.label_values(key)):
                if value is not None:
                    found.setdefault(value, []).append(position)
            self._domains[cache_key] = found
        return found

    def classes(self) -> dict[Any, list[int]]:
        """Nodes grouped by what node filters look at (all but the hostname): filters run once per class."""
        if self._classes is None:
            self._classes = {}
            for position, node in enumerate(self.nodes):
                self._classes.setdefault(node.filter_class, []).append(position)
        return self._classes

    def view(self, shape: PodShape) -> ShapeView:
        found = self.views.get(shape)
        if found is None:
            found = ShapeView(self, shape)
            self.views[shape] = found
        return found


def _path_value(labels: dict[str, str], levels: list[str]) -> str | None:
    """`b1/r1`: the values of every level, coarsest first (label values never hold a `/`);
    None when the node lacks one of the levels."""
    values = [labels.get(level) for level in levels]
    if any(value is None for value in values):
        return None
    return "/".join(value for value in values if value is not None)


class ShapeView:
    """Per node: why it is excluded (None: it passes the filters), how many pods of the shape fit,
    and which resource limits that. Kept up to date as capacity is consumed, per topology key
    asked for: pods that fit per domain, free amount of a resource per domain (eligible nodes),
    and over the whole cluster the eligible nodes that take no pod, by limiting resource."""

    def __init__(self, state: ClusterState, shape: PodShape) -> None:
        self.state = state
        self.shape = shape
        self.excluded: list[str | None] = self._filter()
        self.static = Counter(reason for reason in self.excluded if reason is not None)
        self.counts = [0] * len(state.nodes)
        self.limits: list[str | None] = [None] * len(state.nodes)
        self.zero: Counter[str | None] = Counter()  # eligible nodes taking no pod, by limiting resource
        for position, reason in enumerate(self.excluded):
            if reason is None:
                count, limit = state.count(position, shape)
                self.counts[position], self.limits[position] = count, limit
                if count == 0:
                    self.zero[limit] += 1
        self._sums: dict[str | None, dict[str, int]] = {}
        self._free: dict[tuple[str | None, str], dict[str, int]] = {}
        self._unlabelled: dict[str, list[int]] = {}
        self._eligible: dict[str | None, dict[str, int]] = {}
        self._ranked: dict[str | None, RoomIndex] = {}

    def _filter(self) -> list[str | None]:
        state, shape, nodes = self.state, self.shape, self.state.nodes
        if shape.names_host:
            reasons = [exclusion(shape, node) for node in nodes]
        else:
            reasons = [None] * len(nodes)
            for positions in state.classes().values():
                reason = exclusion(shape, nodes[positions[0]])
                if reason is not None:
                    for position in positions:
                        reasons[position] = reason
        for position in state.drained:
            reasons[position] = DRAINED
        return reasons

    def refresh(self, position: int, delta: Resources) -> None:
        if self.excluded[position] is not None:
            return
        old, old_limit = self.counts[position], self.limits[position]
        new, limiting = self.state.count(position, self.shape)
        self.counts[position], self.limits[position] = new, limiting
        if old == 0:
            self.zero[old_limit] -= 1
        if new == 0:
            self.zero[limiting] += 1
        if new != old:
            for key, sums in self._sums.items():
                value = self.state.label_values(key)[position]
                if value is not None:
                    before = sums[value]
                    sums[value] = before + new - old
                    ranked = self._ranked.get(key)
                    if ranked is not None:
                        ranked.move(value, before, before + new - old)
        for (key, resource), free in self._free.items():
            change = delta.get(resource, 0)
            value = self.state.label_values(key)[position]
            if change and value is not None:
                free[value] += change

    def free_sums(self, key: str | None, resource: str) -> dict[str, int]:
        """Domain value -> free amount of `resource` on the eligible nodes of the domain (kept up to date)."""
        found = self._free.get((key, resource))
        if found is None:
            found = {}
            free, excluded = self.state.free, self.excluded
            for value, positions in self.state.domains(key).items():
                found[value] = sum(free[p].get(resource, 0) for p in positions if excluded[p] is None)
            self._free[(key, resource)] = found
        return found

    def eligible(self, key: str | None) -> dict[str, int]:
        """Domain value -> nodes of the domain that pass the filters (fixed: filters never change)."""
        found = self._eligible.get(key)
        if found is None:
            excluded = self.excluded
            found = {
                value: sum(1 for p in positions if excluded[p] is None)
                for value, positions in self.state.domains(key).items()
            }
            self._eligible[key] = found
        return found

    def unlabelled(self, key: str) -> list[int]:
        """Eligible nodes without the topology label `key` (fixed: labels never change)."""
        found = self._unlabelled.get(key)
        if found is None:
            values = self.state.label_values(key)
            found = [p for p, value in enumerate(values) if value is None and self.excluded[p] is None]
            self._unlabelled[key] = found
        return found

    def ranked(self, key: str | None) -> RoomIndex:
        """The domains of `key` ordered by the pods of this shape they take (kept up to date)."""
        found = self._ranked.get(key)
        if found is None:
            found = RoomIndex(self.sums(key))
            self._ranked[key] = found
        return found

    def sums(self, key: str | None) -> dict[str, int]:
        """Domain value -> pods of this shape that fit in it now (kept up to date)."""
        found = self._sums.get(key)
        if found is None:
            found = {}
            counts = self.counts
            for value, positions in self.state.domains(key).items():
                found[value] = sum(counts[p] for p in positions)
            self._sums[key] = found
        return found


class RoomIndex:
    """Domains bucketed by room (pods that fit), buckets in ascending order and domains sorted
    inside each: the tightest domain with room for n pods, or the roomiest ones, without a scan
    of every domain per gang (that would make a run quadratic in racks x gangs)."""

    def __init__(self, sums: dict[str, int]) -> None:
        self.buckets: dict[int, list[str]] = {}
        for value, room in sums.items():
            self.buckets.setdefault(room, []).append(value)
        for members in self.buckets.values():
            members.sort()
        self.rooms = sorted(self.buckets)

    def move(self, value: str, old: int, new: int) -> None:
        members = self.buckets[old]
        del members[bisect_left(members, value)]
        if not members:
            del self.buckets[old]
            del self.rooms[bisect_left(self.rooms, old)]
        target = self.buckets.get(new)
        if target is None:
            self.buckets[new] = [value]
            insort(self.rooms, new)
        else:
            insort(target, value)

    def at_least(self, need: int, limit: int) -> list[str]:
        """Up to `limit` domains with room for `need` pods, the tightest first (ties by value)."""
        found: list[str] = []
        position = bisect_left(self.rooms, need)
        while position < len(self.rooms) and len(found) < limit:
            found.extend(self.buckets[self.rooms[position]][: limit - len(found)])
            position += 1
        return found

    def largest(self, limit: int) -> list[str]:
        """Up to `limit` domains with the most room (ties by value)."""
        found: list[str] = []
        for room in reversed(self.rooms):
            found.extend(self.buckets[room][: limit - len(found)])
            if len(found) >= limit:
                break
        return found
