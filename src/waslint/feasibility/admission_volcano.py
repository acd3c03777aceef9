"""Volcano queue admission as the capacity plugin decides it (volcano-sh/volcano
pkg/scheduler/plugins/capacity/capacity.go):

- a job is enqueued only into an `Open` queue (`status.state`; Closed and Closing reject it), and
  with hierarchical queues only into a leaf queue;
- `realCapability` = (cluster total - the sum of every queue's `guarantee`) + the queue's own
  guarantee, capped per resource by `capability` (a resource `capability` leaves out is bounded by
  the cluster alone);
- jobEnqueueable / queueAllocatable: `allocated + request <= realCapability` on each resource
  the request names, for the queue and each ancestor (`spec.parent`); the request is the
  PodGroup's `minResources` when set, else the gang's pods at their minimum;
- over `deserved` a queue's pods can be reclaimed by queues under theirs (said as a note).

A queue's use is its `status.allocated` when the snapshot has it, else the requests of the
snapshot's running pods labelled with it or a descendant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from waslint.feasibility.quota import Admission, add_resources, amount_words, children_of, parent_chain, subtree_use
from waslint.objects.quantity import PODS, Resources
from waslint.objects.queues import VolcanoQueue


@dataclass
class VolcanoQueues:
    queues: dict[str, VolcanoQueue]
    total: Resources  # allocatable of the Ready, schedulable nodes
    used: dict[str, Resources] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)  # empty: no hierarchy

    @classmethod
    def build(cls, queues: list[VolcanoQueue], pods: list[tuple[str, Resources]], total: Resources) -> VolcanoQueues:
        book = cls({queue.name: queue for queue in queues}, total)
        own: dict[str, Resources] = {}
        for name, requests in pods:
            add_resources(own.setdefault(name, {}), requests)
        recorded = {queue.name: queue.allocated for queue in book.queues.values()}
        book.children = children_of(list(book.queues.values()), lambda queue: queue.name, lambda queue: queue.parent)
        for queue in queues:
            book.used[queue.name] = subtree_use(queue.name, own, recorded, book.children)
        return book

    def chain(self, name: str) -> list[VolcanoQueue]:
        """The queue and its ancestors, leaf first."""
        return parent_chain(name, self.queues, lambda queue: queue.parent)

    def real_capability(self, queue: VolcanoQueue, resource: str) -> int:
        guarantees = sum(other.guarantee.get(resource, 0) for other in self.queues.values())
        real = max(0, self.total.get(resource, 0) - guarantees) + queue.guarantee.get(resource, 0)
        if resource in queue.capability:
            real = min(real, queue.capability[resource])
        return real

    def admit(self, name: str, requested: Resources) -> Admission:
        admission = Admission("volcano", name)
        queue = self.queues.get(name)
        if queue is None:
            admission.refuse(
                f"queue {name}: no such Volcano Queue in the snapshot: the job is never enqueued", waits=False
            )
            return admission
        if not queue.is_open:
            admission.refuse(f"queue {name}: state {queue.state}, not Open: it enqueues no job", waits=True)
            return admission
        if self.children.get(name):  # with hierarchical queues Volcano enqueues only into leaves
            admission.refuse(
                f"queue {name}: not a leaf queue; with hierarchical queues Volcano enqueues jobs only into leaves",
                waits=False,
            )
            return admission
        wanted = {resource: amount for resource, amount in requested.items() if amount > 0 and resource != PODS}
        for current in self.chain(name):
            used = self.used.get(current.name, {})
            for resource in sorted(wanted):
                need = wanted[resource]
                real = self.real_capability(current, resource)
                have = used.get(resource, 0)
                if have + need > real:
                    bound = "capability" if resource in current.capability else "cluster capacity left by guarantees"
                    parent = f" (an ancestor of queue {name})" if current.name != name else ""
                    admission.refuse(
                        f"queue {current.name}{parent}: {bound} {amount_words(resource, real)},"
                        f" {amount_words(resource, have, bare=True)} in use, the gang needs"
                        f" {amount_words(resource, need, bare=True)}",
                        waits=need <= real,
                        detail=f"Volcano: queue resource quota insufficient: insufficient {resource}",
                    )
                    return admission
        used = self.used.get(name, {})
        for resource in sorted(wanted):
            deserved = queue.deserved.get(resource)
            if deserved is not None and used.get(resource, 0) + wanted[resource] > deserved:
                admission.notes.append(
                    f"queue {name}: over its deserved {amount_words(resource, deserved)}: other queues"
                    " under their deserved share can reclaim these pods"
                )
                break
        admission.charge = wanted
        return admission

    def commit(self, admission: Admission) -> None:
        for queue in self.chain(admission.queue):
            add_resources(self.used.setdefault(queue.name, {}), admission.charge)
