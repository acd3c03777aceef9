"""Kueue quota admission: LocalQueue -> ClusterQueue, flavor assignment per pod set, quota with
cohort borrowing and lending, as kubernetes-sigs/kueue decides it:

- flavors (pkg/scheduler/flavorassigner/flavorassigner.go): for each pod set and each resource
  group covering its requests, the flavors in order; a flavor is skipped when one of its
  `nodeTaints` is not tolerated (pod tolerations plus the flavor's own) or when the pod's
  nodeSelector / required node affinity, restricted to the flavor's own label keys, does not
  match its `nodeLabels`. A requested resource no group covers: "resource R unavailable in
  ClusterQueue". The first flavor whose quota fits is taken (default flavorFungibility:
  whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor); else the best one tried is reported.
- quota (pkg/cache/scheduler/resource_node.go): `available` = the local quota left plus what
  the cohort has left, capped by `borrowingLimit`; `potentialAvailable` = the same with no usage.
  A request above potentialAvailable never fits ("insufficient quota ... > maximum capacity");
  above available it waits for quota (or preempts): "insufficient unused quota ..., N more needed".
  `lendingLimit` keeps `nominal - lendingLimit` local to the ClusterQueue.

Usage is the `status.admission` of the snapshot's admitted, unfinished Workloads. The whole
Workload is admitted at once: every pod set at its full count. The gang is then placed only on
nodes of the assigned flavors (their nodeLabels become its node selector, their tolerations its
tolerations), as Kueue injects them into the pods.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from waslint.feasibility.filters import requirement_matches, tolerates
from waslint.feasibility.model import NodeInfo, Taint
from waslint.feasibility.quota import Admission, amount_words
from waslint.objects.quantity import PODS, Resources
from waslint.objects.queues import KueueAdmission, KueueClusterQueue, KueueFlavor, KueueQuota
from waslint.objects.shapes import PodShape, Toleration

FIT, PREEMPT, NO_FIT = 0, 1, 2  # flavorassigner's modes, best first

FlavorResource = tuple[str, str]


@dataclass
class KueueQueues:
    cluster_queues: dict[str, KueueClusterQueue]
    local_queues: dict[tuple[str, str], str | None]
    flavors: dict[str, KueueFlavor]
    usage: dict[str, dict[FlavorResource, int]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        cluster_queues: list[KueueClusterQueue],
        local_queues: list[tuple[str, str, str | None]],
        flavors: list[KueueFlavor],
        admitted: list[KueueAdmission],
    ) -> KueueQueues:
        book = cls(
            {queue.name: queue for queue in cluster_queues},
            {(namespace, name): target for namespace, name, target in local_queues},
            {flavor.name: flavor for flavor in flavors},
        )
        for held in admitted:
            usage = book.usage.setdefault(held.cluster_queue, {})
            for key, amount in held.usage.items():
                usage[key] = usage.get(key, 0) + amount
        return book

    # ----------------------------------------------------------------------- quota (resource_node.go)

    def _quota(self, queue: str, fr: FlavorResource) -> KueueQuota | None:
        for group in self.cluster_queues[queue].groups:
            for flavor in group.flavors:
                if flavor.flavor == fr[0] and fr[1] in flavor.resources:
                    return flavor.resources[fr[1]]
        return None

    def _members(self, cohort: str) -> list[str]:
        return [name for name, queue in self.cluster_queues.items() if queue.cohort == cohort]

    def _local_quota(self, queue: str, fr: FlavorResource) -> int:
        quota = self._quota(queue, fr)
        if quota is None or quota.lending_limit is None:
            return 0
        return max(0, quota.nominal - quota.lending_limit)

    def _cohort_pool(self, cohort: str, fr: FlavorResource) -> tuple[int, int]:
        """(SubtreeQuota, Usage) of a cohort: what its ClusterQueues lend, what they use past their local quota."""
        quota = used = 0
        for member in self._members(cohort):
            nominal = self._quota(member, fr)
            local = self._local_quota(member, fr)
            quota += (nominal.nominal if nominal else 0) - local
            used += max(0, self.usage.get(member, {}).get(fr, 0) - local)
        return quota, used

    def available(self, queue: str, fr: FlavorResource) -> int:
        quota = self._quota(queue, fr)
        nominal = quota.nominal if quota else 0
        used = self.usage.get(queue, {}).get(fr, 0)
        cohort = self.cluster_queues[queue].cohort
        if cohort is None:
            return nominal - used
        pool, pool_used = self._cohort_pool(cohort, fr)
        parent = pool - pool_used
        local = self._local_quota(queue, fr)
        if quota is not None and quota.borrowing_limit is not None:
            stored = nominal - local
            used_in_parent = max(0, used - local)
            parent = min(stored - used_in_parent + quota.borrowing_limit, parent)
        return max(0, local - used) + parent

    def potential(self, queue: str, fr: FlavorResource) -> int:
        quota = self._quota(queue, fr)
        nominal = quota.nominal if quota else 0
        cohort = self.cluster_queues[queue].cohort
        if cohort is None:
            return nominal
        pool, _ = self._cohort_pool(cohort, fr)
        most = self._local_quota(queue, fr) + pool
        if quota is not None and quota.borrowing_limit is not None:
            most = min(nominal + quota.borrowing_limit, most)
        return most

    # ----------------------------------------------------------------------- admission

    def admit(self, namespace: str, local_queue: str, podsets: list[tuple[PodShape, int]]) -> Admission:
        admission = Admission("kueue", local_queue)
        if (namespace, local_queue) not in self.local_queues:
            admission.refuse(
                f"queue {local_queue}: no LocalQueue {namespace}/{local_queue} in the snapshot"
                " (Kueue leaves the Workload inadmissible: LocalQueue doesn't exist)",
                waits=False,
            )
            return admission
        target = self.local_queues[(namespace, local_queue)]
        if target is None or target not in self.cluster_queues:
            admission.refuse(
                f"queue {local_queue}: its ClusterQueue {target or '<unset>'} is not in the snapshot"
                " (Kueue: ClusterQueue doesn't exist)",
                waits=False,
            )
            return admission
        admission.cluster_queue = target
        if self.cluster_queues[target].inactive:
            admission.refuse(
                f"queue {local_queue}: ClusterQueue {target} is stopped (stopPolicy"
                f" {self.cluster_queues[target].stop_policy}): it admits nothing",
                waits=True,
            )
            return admission
        assigned: dict[FlavorResource, int] = {}
        for shape, count in podsets:
            if not self._assign(admission, target, shape, count, assigned):
                return admission
        admission.flavor_charge = assigned
        return admission

    def _assign(
        self, admission: Admission, queue: str, shape: PodShape, count: int, assigned: dict[FlavorResource, int]
    ) -> bool:
        """One pod set: a flavor per resource group, its quota charged to `assigned`; False (and the
        admission refused) when a group has no flavor that fits."""
        cq = self.cluster_queues[queue]
        covered = {resource for group in cq.groups for resource in group.covered}
        requests = {
            resource: amount * count
            for resource, amount in shape.requests
            if amount > 0 and (resource != PODS or PODS in covered)
        }
        for resource in requests:
            if resource not in covered:
                admission.refuse(
                    f"queue {admission.queue}: resource {resource} unavailable in ClusterQueue {queue}", waits=False
                )
                return False
        for group in cq.groups:
            wanted = {resource: amount for resource, amount in requests.items() if resource in group.covered}
            if not wanted:
                continue
            best: tuple[int, list[str]] | None = None
            for flavor_quotas in group.flavors:
                mode, reasons = self._try_flavor(
                    queue, flavor_quotas.flavor, flavor_quotas.resources, shape, wanted, assigned
                )
                if mode == FIT:
                    flavor = self.flavors.get(flavor_quotas.flavor)
                    for resource, amount in wanted.items():
                        key = (flavor_quotas.flavor, resource)
                        assigned[key] = assigned.get(key, 0) + amount
                        admission.flavors[resource] = flavor_quotas.flavor
                    if flavor is not None:
                        admission.node_labels.update(flavor.node_labels)
                        admission.tolerations += tuple(_toleration(item) for item in flavor.tolerations)
                    break
                if best is None or mode < best[0]:
                    best = (mode, reasons)
            else:
                mode, reasons = best if best is not None else (NO_FIT, ["no flavor in the resource group"])
                first = reasons[0] if reasons else "no flavor fits"
                admission.refuse(
                    f"queue {admission.queue} (ClusterQueue {queue}): {first}",
                    waits=mode == PREEMPT,
                    detail="; ".join(reasons[1:]) or None,
                )
                return False
        return True

    def _try_flavor(
        self,
        queue: str,
        name: str,
        quotas: dict[str, KueueQuota],
        shape: PodShape,
        wanted: Resources,
        assigned: dict[FlavorResource, int],
    ) -> tuple[int, list[str]]:
        flavor = self.flavors.get(name)
        if flavor is not None:
            problem = _flavor_mismatch(flavor, shape)
            if problem is not None:
                return NO_FIT, [problem]
        mode, reasons = FIT, []
        for resource, amount in wanted.items():
            if resource not in quotas:
                return NO_FIT, [f"flavor {name} does not provide resource {resource}"]
            fr = (name, resource)
            earlier = assigned.get(fr, 0)
            value = earlier + amount
            if value > self.potential(queue, fr):
                return NO_FIT, [
                    f"insufficient quota for {resource} in flavor {name}, previously considered podsets requests"
                    f" ({amount_words(resource, earlier, bare=True)}) + current podset request"
                    f" ({amount_words(resource, amount, bare=True)}) > maximum capacity"
                    f" ({amount_words(resource, self.potential(queue, fr), bare=True)})"
                ]
            left = self.available(queue, fr)
            if value > left:
                mode = PREEMPT
                used = self.usage.get(queue, {}).get(fr, 0)
                nominal = quotas[resource].nominal
                reasons.append(
                    f"insufficient unused quota for {resource} in flavor {name},"
                    f" {amount_words(resource, value - left, bare=True)} more needed"
                    f" (nominalQuota {amount_words(resource, nominal, bare=True)},"
                    f" {amount_words(resource, used, bare=True)} in use by admitted Workloads,"
                    f" the gang needs {amount_words(resource, amount, bare=True)})"
                )
        return mode, reasons

    def commit(self, admission: Admission) -> None:
        if admission.cluster_queue is None:
            return
        usage = self.usage.setdefault(admission.cluster_queue, {})
        for key, amount in admission.flavor_charge.items():
            usage[key] = usage.get(key, 0) + amount


def _toleration(item: dict[str, str]) -> Toleration:
    return Toleration(
        item.get("key", ""), item.get("operator", "Equal") or "Equal", item.get("value", ""), item.get("effect", "")
    )


def _flavor_mismatch(flavor: KueueFlavor, shape: PodShape) -> str | None:
    """Why the pod set cannot use the flavor: an untolerated taint, or node affinity (only the
    flavor's own label keys are compared: flavorassigner_test "multiple flavors with different
    label keys, selector only uses flavor's own keys")."""
    tolerations = (*shape.tolerations, *(_toleration(item) for item in flavor.tolerations))
    for item in flavor.node_taints:
        taint = Taint(item.get("key", ""), item.get("value", ""), item.get("effect", ""))
        if taint.effect in ("NoSchedule", "NoExecute") and not any(tolerates(t, taint) for t in tolerations):
            return f"untolerated taint {taint} in flavor {flavor.name}"
    labels = flavor.node_labels
    for key, value in shape.node_selector:
        if key in labels and labels[key] != value:
            return f"flavor {flavor.name} doesn't match node affinity"
    if shape.affinity:
        node = NodeInfo(flavor.name, dict(labels), (), {}, True, False)
        matched = False
        for term in shape.affinity:
            own = [requirement for requirement in term if requirement.key in labels]
            if all(requirement_matches(requirement, node) for requirement in own):
                matched = True
                break
        if not matched:
            return f"flavor {flavor.name} doesn't match node affinity"
    return None


def with_flavors(shape: PodShape, admission: Admission) -> PodShape:
    """The pod as Kueue starts it: the assigned flavors' nodeLabels added to its node selector and
    their tolerations to its tolerations."""
    if not admission.node_labels and not admission.tolerations:
        return shape
    selector = dict(shape.node_selector)
    selector.update(admission.node_labels)
    return replace(
        shape,
        node_selector=tuple(sorted(selector.items())),
        tolerations=(*shape.tolerations, *admission.tolerations),
    )
