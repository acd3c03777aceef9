"""KAI-Scheduler queue admission: the capacity policy the proportion plugin runs before a gang is
allocated (kai-scheduler/KAI-Scheduler pkg/scheduler/plugins/proportion/capacity_policy).

- `isOverLimit` (max_allowed_check.go): for the queue and every ancestor, each requested resource
  (GPU, CPU, memory) must keep `allocated + requested <= limit`, unless the limit is -1. An unset
  limit is 0 (the Go zero value): every request of that resource is over it (`OverLimit`).
- `isAllocatedNonPreemptibleOverQuota` (quota_check.go): a non-preemptible gang must keep
  `allocatedNonPreemptible + requested <= quota` (deserved) up the chain, unless the quota is -1
  (`NonPreemptibleOverQuota`). A preemptible gang may go over its quota up to the limit: it then
  runs on the queue's over-quota share (`overQuotaWeight`) and can be reclaimed.

A queue's use is its `status.allocated` when the snapshot has it (the scheduler's own account,
GPU fractions included), else the requests of the snapshot's running pods labelled with it or a
descendant (proportion.go updateQueuesResourceUsageForAllocatedJob charges every ancestor).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from waslint.feasibility.quota import Admission, add_resources, amount_words, children_of, parent_chain, subtree_use
from waslint.objects.quantity import GPU, Resources
from waslint.objects.queues import KaiQueue, kai_resources

UNITS = {GPU: "GPUs", "cpu": "CPU cores", "memory": "memory"}


@cache
def checked_resources() -> tuple[str, ...]:
    """The Kubernetes resources a KAI queue bounds, in the order capacity_policy checks them."""
    return tuple(resource for resource, _ in kai_resources().values())


@dataclass
class KaiPod:
    queue: str
    requests: Resources  # nvidia.com/gpu includes the pod's gpu-fraction
    preemptible: bool


@dataclass
class KaiQueues:
    queues: dict[str, KaiQueue]
    used: dict[str, Resources] = field(default_factory=dict)
    used_non_preemptible: dict[str, Resources] = field(default_factory=dict)

    @classmethod
    def build(cls, queues: list[KaiQueue], pods: list[KaiPod]) -> KaiQueues:
        book = cls({queue.name: queue for queue in queues})
        own: dict[str, Resources] = {}
        own_np: dict[str, Resources] = {}
        for pod in pods:
            add_resources(own.setdefault(pod.queue, {}), pod.requests)
            if not pod.preemptible:
                add_resources(own_np.setdefault(pod.queue, {}), pod.requests)
        children = children_of(queues, lambda queue: queue.name, lambda queue: queue.parent)
        recorded = {queue.name: queue.allocated for queue in queues}
        recorded_np = {queue.name: queue.allocated_non_preemptible for queue in queues}
        for queue in queues:
            book.used[queue.name] = subtree_use(queue.name, own, recorded, children)
            book.used_non_preemptible[queue.name] = subtree_use(queue.name, own_np, recorded_np, children)
        return book

    def chain(self, name: str) -> list[KaiQueue]:
        """The queue and its ancestors, leaf first."""
        return parent_chain(name, self.queues, lambda queue: queue.parent)

    def admit(self, name: str, requested: Resources, preemptible: bool) -> Admission:
        admission = Admission("kai", name)
        if name not in self.queues:
            admission.refuse(f"queue {name}: no such KAI Queue in the snapshot (KAI: QueueDoesNotExist)", waits=False)
            return admission
        resources = checked_resources()
        over_limit = _first_excess(self.chain(name), requested, lambda queue: queue.limit, self.used)
        if over_limit is not None:
            queue, resource, need, limit, used = over_limit
            unset = " (unset: KAI reads 0)" if limit == 0 else ""
            admission.refuse(
                f"queue {queue.name}: limit {amount_words(resource, limit)}{unset},"
                f" {amount_words(resource, used, bare=True)} in use, the gang needs"
                f" {amount_words(resource, need, bare=True)}"
                + (f" (a limit of queue {name}'s parent chain)" if queue.name != name else ""),
                waits=need <= limit,
                detail=f"KAI OverLimit: {queue.name} quota has reached the allowable limit of"
                f" {UNITS.get(resource, resource)}",
            )
            return admission
        if not preemptible:
            over_quota = _first_excess(
                self.chain(name), requested, lambda queue: queue.quota, self.used_non_preemptible
            )
            if over_quota is not None:
                queue, resource, need, quota, used = over_quota
                admission.refuse(
                    f"queue {queue.name}: quota {amount_words(resource, quota)},"
                    f" {amount_words(resource, used, bare=True)} in use by non-preemptible pods,"
                    f" the non-preemptible gang needs {amount_words(resource, need, bare=True)}",
                    waits=need <= quota,
                    detail="KAI NonPreemptibleOverQuota: a non-preemptible workload never goes over"
                    " its queue's quota; use a preemptible workload to go over quota",
                )
                return admission
        self._over_quota_note(admission, name, requested)
        admission.charge = {resource: requested.get(resource, 0) for resource in resources}
        admission.preemptible = preemptible
        return admission

    def _over_quota_note(self, admission: Admission, name: str, requested: Resources) -> None:
        over_quota = _first_excess([self.queues[name]], requested, lambda queue: queue.quota, self.used)
        if over_quota is not None:
            queue, resource, need, quota, used = over_quota
            weight = queue.over_quota_weight.get(resource, 0.0)
            admission.notes.append(
                f"queue {name}: over its quota of {amount_words(resource, quota)}"
                f" ({amount_words(resource, used, bare=True)} in use +"
                f" {amount_words(resource, need, bare=True)}): admitted on the over-quota share"
                f" (overQuotaWeight {weight:g}), only while other queues leave it unused, and reclaimable"
            )

    def commit(self, admission: Admission) -> None:
        """A placed gang's use counts against its queue and every ancestor for the gangs after it."""
        for queue in self.chain(admission.queue):
            add_resources(self.used.setdefault(queue.name, {}), admission.charge)
            if not admission.preemptible:
                add_resources(self.used_non_preemptible.setdefault(queue.name, {}), admission.charge)


def _first_excess(
    chain: list[KaiQueue],
    requested: Resources,
    bound_of: Callable[[KaiQueue], dict[str, int | None]],
    used: dict[str, Resources],
) -> tuple[KaiQueue, str, int, int, int] | None:
    """The first (queue, resource, need, bound, use) up the chain, in capacity_policy's resource
    order, where `use + need > bound`; a resource the queue does not bound is never over."""
    for queue in chain:
        bounds = bound_of(queue)
        for resource in checked_resources():
            need = requested.get(resource, 0)
            bound = bounds.get(resource)
            in_use = used.get(queue.name, {}).get(resource, 0)
            if need > 0 and bound is not None and in_use + need > bound:
                return queue, resource, need, bound, in_use
    return None
