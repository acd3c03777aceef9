"""Queue admission before placement: which queue a gang names (KAI, Kueue or Volcano), what it asks
of that queue, and the scheduler's own quota model's answer (`admission_kai.py`,
`admission_kueue.py`, `admission_volcano.py`). A gang its queue does not admit is never placed
(its verdict says "over quota", not "no capacity"); an admitted gang's use is charged to its
queue once it is placed, so later gangs of the run see it.

Queue objects come from the snapshot, and from the manifests too (a queue about to be applied
wins over the captured one of the same name). A gang that names a queue of a scheduler whose
queues the snapshot does not hold is placed without admission, and its verdict says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from waslint.feasibility.admission_kai import KaiPod, KaiQueues
from waslint.feasibility.admission_kueue import KueueQueues, with_flavors
from waslint.feasibility.admission_volcano import VolcanoQueues
from waslint.feasibility.capacity import WHOLE, ClusterState
from waslint.feasibility.explain import Verdict
from waslint.feasibility.model import Gang, RunningPod
from waslint.feasibility.placement import place, room_per_domain
from waslint.feasibility.quota import Admission
from waslint.objects.keys import KAI_PODGROUP, VOLCANO_JOB, VOLCANO_PODGROUP
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.quantity import GPU, Resources, resource_map
from waslint.objects.queues import (
    QueueRef,
    kai_preemptible,
    kai_queue,
    kind_of,
    kueue_admission,
    kueue_cluster_queue,
    kueue_flavor,
    kueue_local_queue,
    pod_queue,
    queue_of_labels,
    volcano_default_queue,
    volcano_queue,
)

SCHEDULER_NAMES = {"kai": "KAI", "kueue": "Kueue", "volcano": "Volcano"}


@dataclass
class QueueBook:
    kai: KaiQueues | None = None
    kueue: KueueQueues | None = None
    volcano: VolcanoQueues | None = None


def _items(objects: Iterable[Any], kind: tuple[str, str]) -> list[dict[str, Any]]:
    """The plain items of one kind; a manifest's object replaces the snapshot's of the same name."""
    found: dict[tuple[str | None, str | None], dict[str, Any]] = {}
    for obj in objects:
        if isinstance(obj, KObject) and (obj.group, obj.kind) == kind:
            found[(obj.namespace if obj.namespace else None, obj.name)] = obj.data
    return list(found.values())


def build_book(objects: list[Any], running: list[RunningPod], total: Resources) -> QueueBook:
    """The queues of the snapshot and manifest objects (`objects`: snapshot first), with their use."""
    book = QueueBook()
    kai_items = _items(objects, kind_of("kai", "queue"))
    if kai_items:
        pods = [_kai_pod(pod) for pod in running]
        book.kai = KaiQueues.build([kai_queue(item) for item in kai_items], [p for p in pods if p is not None])
    cluster_queues = _items(objects, kind_of("kueue", "cluster_queue"))
    if cluster_queues:
        local = _items(objects, kind_of("kueue", "local_queue"))
        flavors = _items(objects, kind_of("kueue", "resource_flavor"))
        workloads = _items(objects, kind_of("kueue", "workload"))
        admitted = [held for held in (kueue_admission(item) for item in workloads) if held is not None]
        book.kueue = KueueQueues.build(
            [kueue_cluster_queue(item) for item in cluster_queues],
            [kueue_local_queue(item) for item in local],
            [kueue_flavor(item) for item in flavors],
            admitted,
        )
    volcano_items = _items(objects, kind_of("volcano", "queue"))
    if volcano_items:
        pods_v = []
        for pod in running:
            ref = pod_queue(pod.source)
            if ref is not None and ref.scheduler == "volcano":
                pods_v.append((ref.name, dict(pod.requests)))
        book.volcano = VolcanoQueues.build([volcano_queue(item) for item in volcano_items], pods_v, total)
    return book


def _kai_pod(pod: RunningPod) -> KaiPod | None:
    ref = pod_queue(pod.source)
    if ref is None or ref.scheduler != "kai":
        return None
    labels = as_map(as_map(pod.source.get("metadata")).get("labels"))
    requests = dict(pod.requests)
    if pod.gpu_fraction:
        requests[GPU] = requests.get(GPU, 0) + pod.gpu_fraction
    return KaiPod(ref.name, requests, kai_preemptible(labels, None, pod.priority))


# --------------------------------------------------------------------------- a gang's queue


def gang_queue(gang: Gang) -> QueueRef | None:
    """The queue the gang's object names: a KAI or Volcano PodGroup's (or Volcano Job's)
    spec.queue, else a queue label or annotation on the object or its pod templates."""
    origin = gang.origin
    if isinstance(origin, KObject):
        key = (origin.group, origin.kind)
        if key == KAI_PODGROUP:
            name = as_str(origin.spec.get("queue"))
            if name:
                return QueueRef("kai", name)
        if key in (VOLCANO_PODGROUP, VOLCANO_JOB):
            named = as_str(origin.spec.get("queue"))
            return QueueRef("volcano", named or volcano_default_queue(), implied=not named)
        ref = queue_of_labels(origin.labels, origin.annotations)
        if ref is not None:
            return ref
    for template in gang.templates:  # the pods' own metadata, then the object that runs them
        ref = queue_of_labels(template.labels, template.annotations) or queue_of_labels(
            template.owner.labels, template.owner.annotations
        )
        if ref is not None:
            return ref
    for child in gang.children:
        ref = gang_queue(child)
        if ref is not None:
            return ref
    return None


def _leaves(gang: Gang) -> list[Gang]:
    """The gangs whose pods are placed: a composite's children at its minGroupCount, recursively."""
    if not gang.children:
        return [gang]
    wanted = gang.min_groups or len(gang.children)
    return [leaf for child in gang.children[:wanted] for leaf in _leaves(child)]


def gang_request(gang: Gang, fractions: bool = False) -> Resources:
    """What the gang asks of its queue: its pods at the minimum; KAI gpu-fractions added as GPUs."""
    total: Resources = {}
    for leaf in _leaves(gang):
        for shape, count in leaf.shapes_to_place():
            for resource, amount in shape.requests:
                total[resource] = total.get(resource, 0) + amount * count
            if fractions and shape.gpu_fraction:
                total[GPU] = total.get(GPU, 0) + shape.gpu_fraction * count
    return total


def _volcano_min_resources(gang: Gang) -> Resources | None:
    origin = gang.origin
    if isinstance(origin, KObject) and (origin.group, origin.kind) == VOLCANO_PODGROUP:
        found = origin.spec.get("minResources")
        if isinstance(found, dict):
            return resource_map(found)
    return None


def _kai_gang_preemptible(gang: Gang) -> bool:
    origin = gang.origin
    spec_value = None
    labels: dict[str, Any] = {}
    if isinstance(origin, KObject):
        labels = origin.labels
        if (origin.group, origin.kind) == KAI_PODGROUP:
            spec_value = as_str(origin.spec.get("preemptibility"))
    if not labels:
        labels = next((template.labels for template in gang.templates if template.labels), {})
    return kai_preemptible(labels, spec_value, gang.priority)


# --------------------------------------------------------------------------- admission


def admit(book: QueueBook, gang: Gang) -> Admission | None:
    """The gang's admission by its queue, None when it names none; an admission without a verdict
    (`admitted` and a note) when the snapshot does not hold that scheduler's queues."""
    ref = gang_queue(gang)
    if ref is None:
        return None
    if ref.scheduler == "kai" and book.kai is not None:
        return book.kai.admit(ref.name, gang_request(gang, fractions=True), _kai_gang_preemptible(gang))
    if ref.scheduler == "kueue" and book.kueue is not None:
        podsets = [pair for leaf in _leaves(gang) for pair in leaf.members]
        return book.kueue.admit(gang.namespace, ref.name, podsets)
    if ref.scheduler == "volcano" and book.volcano is not None:
        requested = _volcano_min_resources(gang) or gang_request(gang)
        return book.volcano.admit(ref.name, requested)
    if ref.implied:
        return None
    unchecked = Admission(ref.scheduler, ref.name, checked=False)
    unchecked.notes.append(
        f"queue {ref.name} ({SCHEDULER_NAMES[ref.scheduler]}): the snapshot holds no"
        f" {SCHEDULER_NAMES[ref.scheduler]} queues, so quota admission was not checked"
    )
    return unchecked


def commit(book: QueueBook, admission: Admission) -> None:
    """The placed gang's use, charged to its queue."""
    model: Any = {"kai": book.kai, "kueue": book.kueue, "volcano": book.volcano}.get(admission.scheduler)
    if model is not None and admission.admitted and (admission.charge or admission.flavor_charge):
        model.commit(admission)


def as_admitted(gang: Gang, admission: Admission) -> Gang:
    """The gang as its scheduler starts it: Kueue's flavors restrict its pods to the flavors' nodes."""
    if admission.scheduler != "kueue" or not (admission.node_labels or admission.tolerations) or gang.children:
        return gang
    return replace(gang, members=[(with_flavors(shape, admission), count) for shape, count in gang.members])


# --------------------------------------------------------------------------- verdicts


def over_quota(state: ClusterState, gang: Gang, admission: Admission) -> Verdict:
    """The verdict of a gang its queue does not admit: the queue's words first, then whether the
    cluster would have room for it now (nothing is consumed)."""
    admitted = as_admitted(gang, admission)
    fits, domain, placeable = _room_now(state, admitted)
    verdict = Verdict(gang, False, gang.required, placeable, gang.topology_key, domain, queue=admission)
    waits = "it waits until the queue's use goes down" if admission.waits else "it can never be admitted by this queue"
    verdict.reasons = [*admission.reasons, f"not admitted by its queue: {waits}", *gang.problems]
    if gang.problems:
        return verdict
    where = f" (in {gang.topology_key}={domain})" if gang.topology_key and domain else ""
    if fits:
        verdict.reasons.append(f"over quota, not out of capacity: the cluster has room for the gang now{where}")
    else:
        verdict.reasons.append(
            f"no capacity either: room for {placeable} of the {gang.required} pods{where or ' in the cluster'} now"
        )
    return verdict


def _room_now(state: ClusterState, gang: Gang) -> tuple[bool, str | None, int]:
    """(fits, its domain or the roomiest, pods that fit there) without placing: a one-shape gang
    is read from the shape's kept-up-to-date domain ranking, any other is placed on a copy."""
    shapes = gang.shapes_to_place()
    if gang.composite or gang.problems or len(shapes) != 1:
        attempt = place(state, gang, keep=False)
        domain = attempt.domain if attempt.domain != WHOLE else None
        return attempt.feasible, domain, attempt.placeable
    shape, need = shapes[0]
    ranked = state.view(shape).ranked(gang.topology_key)
    room = room_per_domain(state, shape, gang.topology_key, None)
    fitting = ranked.at_least(need, 1)
    best = fitting[0] if fitting else next(iter(ranked.largest(1)), None)
    placeable = min(need, room.get(best, 0)) if best is not None else 0
    return bool(fitting), (best if best != WHOLE else None), placeable


def note_admission(verdict: Verdict, admission: Admission) -> None:
    verdict.queue = admission
    verdict.reasons.extend(admission.notes)
