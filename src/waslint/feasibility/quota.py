"""The outcome of admitting one gang by its queue (`Admission`), shared by the per-scheduler quota
models (`admission_kai.py`, `admission_kueue.py`, `admission_volcano.py`), and how amounts are
worded in it ("8 nvidia.com/gpu", "12Gi memory")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from waslint.objects.quantity import Resources, show_amount
from waslint.objects.shapes import Toleration


@dataclass
class Admission:
    """`admitted` when the queue takes the gang now; otherwise `reasons[0]` says why in one line
    (the verdict's first reason) and `waits` whether it can be admitted once the queue's use goes
    down (False: the gang is larger than the queue can ever hold)."""

    scheduler: str  # kai | kueue | volcano
    queue: str
    admitted: bool = True
    waits: bool = True
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said beside an admitted gang's verdict
    charge: Resources = field(default_factory=dict)  # what the gang adds to the queue's use once placed
    preemptible: bool = True
    cluster_queue: str | None = None  # Kueue: the ClusterQueue behind the LocalQueue
    flavors: dict[str, str] = field(default_factory=dict)  # Kueue: resource -> the flavor assigned
    flavor_charge: dict[tuple[str, str], int] = field(default_factory=dict)  # Kueue: (flavor, resource) -> amount
    node_labels: dict[str, str] = field(default_factory=dict)  # Kueue: the assigned flavors' nodeLabels
    tolerations: tuple[Toleration, ...] = ()  # Kueue: the assigned flavors' tolerations
    checked: bool = True  # False: the snapshot holds none of the scheduler's queues

    @property
    def verdict(self) -> str:
        """admitted | waits (over quota until the queue's use goes down) | never | unchecked."""
        if not self.checked:
            return "unchecked"
        if self.admitted:
            return "admitted"
        return "waits" if self.waits else "never"

    def refuse(self, reason: str, waits: bool, detail: str | None = None) -> None:
        self.admitted = False
        self.waits = waits
        self.reasons.append(reason)
        if detail:
            self.reasons.append(detail)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.queue,
            "verdict": self.verdict,
            "scheduler": self.scheduler,
            "cluster_queue": self.cluster_queue,
            "admitted": self.admitted,
            "waits": self.waits if not self.admitted else None,
            "reasons": self.reasons,
            "notes": self.notes,
            "flavors": self.flavors,
        }

    def summary(self) -> str:
        if self.admitted:
            flavors = ", ".join(f"{r}: {f}" for r, f in sorted(self.flavors.items()))
            return f"admitted by queue {self.queue}" + (f" (flavors {flavors})" if flavors else "")
        return self.reasons[0] if self.reasons else f"not admitted by queue {self.queue}"


def amount_words(resource: str, amount: int, bare: bool = False) -> str:
    """`8 nvidia.com/gpu` (or `8` when `bare`): a milli-unit amount with its resource."""
    shown = show_amount(resource, amount)
    return shown if bare else f"{shown} {resource}"


Queue = TypeVar("Queue")


def parent_chain(name: str, queues: dict[str, Queue], parent_of: Callable[[Queue], str | None]) -> list[Queue]:
    """The queue and its ancestors, leaf first; a parent cycle or a missing parent ends the walk."""
    found: list[Queue] = []
    seen: set[str] = set()
    current: str | None = name
    while current is not None and current in queues and current not in seen:
        seen.add(current)
        found.append(queues[current])
        current = parent_of(queues[current])
    return found


def add_resources(total: Resources, more: Resources) -> None:
    for name, value in more.items():
        total[name] = total.get(name, 0) + value


def subtree_use(
    name: str,
    own: dict[str, Resources],
    recorded: dict[str, Resources | None],
    children: dict[str, list[str]],
    seen: set[str] | None = None,
) -> Resources:
    """A queue's use: its recorded status when the snapshot has it, else its own pods' requests
    plus its children's use (a parent cycle is cut)."""
    seen = set() if seen is None else seen
    seen.add(name)
    status = recorded.get(name)
    if status is not None:
        return dict(status)
    total = dict(own.get(name, {}))
    for child in children.get(name, []):
        if child not in seen:
            add_resources(total, subtree_use(child, own, recorded, children, seen))
    return total


def children_of(
    queues: list[Queue], name_of: Callable[[Queue], str], parent_of: Callable[[Queue], str | None]
) -> dict[str, list[str]]:
    """Each queue's direct children by name, in the queues' order."""
    children: dict[str, list[str]] = {}
    for queue in queues:
        parent = parent_of(queue)
        if parent:
            children.setdefault(parent, []).append(name_of(queue))
    return children
