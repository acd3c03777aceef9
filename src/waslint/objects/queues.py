"""Queue objects as their schedulers read them, and the queue a workload names: KAI `Queue`
(`scheduling.run.ai/v2`), Kueue `ClusterQueue`, `LocalQueue`, `ResourceFlavor` and admitted
`Workload`s (`kueue.x-k8s.io`), Volcano `Queue` (`scheduling.volcano.sh`). Kinds and
constants are data (`knowledge/queues.yaml`), the labels that name a queue `objects/keys.py`'s;
what fits a quota is `feasibility/admission_*.py`.

Every amount is an int in milli-units of its Kubernetes resource (`objects/quantity.py`), so a
KAI CPU quota in millicores and a Kueue `nominalQuota: 4` compare with pod requests directly.
Readers never raise: a value of the wrong type reads as absent.
"""

from __future__ import annotations

from dataclasses import field
from functools import cache
from typing import Any

from waslint.core.records import dataclass
from waslint.knowledge.tables import load_table
from waslint.objects.keys import (
    KAI_PREEMPTIBILITY_LABEL,
    KAI_QUEUE_LABELS,
    KUEUE_QUEUE_LABEL,
    VOLCANO_QUEUE_ANNOTATION,
    VOLCANO_QUEUE_LABEL,
)
from waslint.objects.kobject import as_list, as_map, as_str
from waslint.objects.quantity import Resources, milli, number, resource_map


@cache
def queue_knowledge() -> dict[str, Any]:
    table = load_table("queues.yaml")
    return table if isinstance(table, dict) else {}


def kind_of(scheduler: str, role: str) -> tuple[str, str]:
    entry = as_map(as_map(queue_knowledge().get(scheduler)).get(role))
    return (str(entry.get("group", "")), str(entry.get("kind", "")))


def _name(item: dict[str, Any]) -> str:
    return as_str(as_map(item.get("metadata")).get("name")) or "<unnamed>"


# --------------------------------------------------------------------------- KAI


@dataclass
class KaiQueue:
    """One KAI queue. `quota` (deserved) and `limit` per Kubernetes resource, None = unlimited
    (-1); an unset limit or quota is 0, the Go zero value the scheduler reads (no CRD default)."""

    name: str
    parent: str | None
    priority: int
    quota: dict[str, int | None]
    limit: dict[str, int | None]
    over_quota_weight: dict[str, float]
    allocated: Resources | None = None  # status.allocated, when the snapshot has it
    allocated_non_preemptible: Resources | None = None


def kai_resources() -> dict[str, tuple[str, int]]:
    """spec.resources key -> (Kubernetes resource, milli-units per spec unit)."""
    table = as_map(as_map(queue_knowledge().get("kai")).get("resources"))
    return {
        str(key): (str(as_map(v).get("resource")), int(as_map(v).get("milli_per_unit", 1))) for key, v in table.items()
    }


def _kai_amount(value: Any, scale: int) -> int | None:
    """A KAI quota/limit number in milli-units of its resource; -1 (any negative) = None (unlimited)."""
    amount = number(value)
    if amount is None:
        return 0
    if amount < 0:
        return None
    return int(amount * scale)


def kai_queue(item: dict[str, Any]) -> KaiQueue:
    spec = as_map(item.get("spec"))
    resources = as_map(spec.get("resources"))
    quota: dict[str, int | None] = {}
    limit: dict[str, int | None] = {}
    weight: dict[str, float] = {}
    for key, (resource, scale) in kai_resources().items():
        section = as_map(resources.get(key))
        quota[resource] = _kai_amount(section.get("quota"), scale)
        limit[resource] = _kai_amount(section.get("limit"), scale)
        raw_weight = number(section.get("overQuotaWeight"))
        weight[resource] = float(raw_weight) if raw_weight is not None else 0.0
    priority = spec.get("priority")
    status = as_map(item.get("status"))
    return KaiQueue(
        name=_name(item),
        parent=as_str(spec.get("parentQueue")) or None,
        priority=priority if isinstance(priority, int) and not isinstance(priority, bool) else 100,
        quota=quota,
        limit=limit,
        over_quota_weight=weight,
        allocated=_status_resources(status.get("allocated")),
        allocated_non_preemptible=_status_resources(status.get("allocatedNonPreemptible")),
    )


def _status_resources(value: Any) -> Resources | None:
    if not isinstance(value, dict):
        return None
    found = resource_map(value)
    if "gpu" in found:  # KAI's status may spell the GPU resource by its queue key
        found.setdefault("nvidia.com/gpu", found.pop("gpu"))
    return found


def kai_preemptible(labels: dict[str, Any], spec_preemptibility: str | None, priority: int) -> bool:
    """KAI CalculatePreemptibility: the explicit value (PodGroup spec, else the label), else
    preemptible below priority 100."""
    kai = as_map(queue_knowledge().get("kai"))
    explicit = spec_preemptibility or as_str(labels.get(KAI_PREEMPTIBILITY_LABEL))
    if explicit in ("preemptible", "non-preemptible"):
        return explicit == "preemptible"
    threshold = kai.get("non_preemptible_priority", 100)
    return priority < (threshold if isinstance(threshold, int) else 100)


# --------------------------------------------------------------------------- Kueue


@dataclass(frozen=True)
class KueueQuota:
    nominal: int
    borrowing_limit: int | None = None  # None: unbounded borrowing from the cohort
    lending_limit: int | None = None  # None: all of the nominal quota may be lent


@dataclass
class KueueFlavorQuotas:
    flavor: str
    resources: dict[str, KueueQuota]


@dataclass
class KueueResourceGroup:
    covered: list[str]
    flavors: list[KueueFlavorQuotas]


@dataclass
class KueueClusterQueue:
    name: str
    cohort: str | None
    groups: list[KueueResourceGroup]
    stop_policy: str | None = None

    @property
    def inactive(self) -> bool:
        stops = as_list(as_map(queue_knowledge().get("kueue")).get("inactive_stop_policies"))
        return self.stop_policy in stops


def _quantity(value: Any) -> int | None:
    return milli(value) if value is not None else None


def kueue_cluster_queue(item: dict[str, Any]) -> KueueClusterQueue:
    spec = as_map(item.get("spec"))
    groups = []
    for group in as_list(spec.get("resourceGroups")):
        group = as_map(group)
        flavors = []
        for flavor in as_list(group.get("flavors")):
            flavor = as_map(flavor)
            quotas: dict[str, KueueQuota] = {}
            for entry in as_list(flavor.get("resources")):
                entry = as_map(entry)
                name = as_str(entry.get("name"))
                if name is None:
                    continue
                quotas[name] = KueueQuota(
                    nominal=_quantity(entry.get("nominalQuota")) or 0,
                    borrowing_limit=_quantity(entry.get("borrowingLimit")),
                    lending_limit=_quantity(entry.get("lendingLimit")),
                )
            flavors.append(KueueFlavorQuotas(as_str(flavor.get("name")) or "<unnamed>", quotas))
        covered = [str(name) for name in as_list(group.get("coveredResources"))]
        groups.append(KueueResourceGroup(covered, flavors))
    cohort_fields = as_list(as_map(queue_knowledge().get("kueue")).get("cohort_fields"))
    cohort = next((as_str(spec.get(str(key))) for key in cohort_fields if as_str(spec.get(str(key)))), None)
    return KueueClusterQueue(_name(item), cohort, groups, as_str(spec.get("stopPolicy")))


@dataclass
class KueueFlavor:
    name: str
    node_labels: dict[str, str]
    node_taints: list[dict[str, str]]
    tolerations: list[dict[str, str]]


def kueue_flavor(item: dict[str, Any]) -> KueueFlavor:
    spec = as_map(item.get("spec"))
    labels = {str(k): str(v) for k, v in as_map(spec.get("nodeLabels")).items()}
    taints = [{str(k): str(v) for k, v in as_map(t).items()} for t in as_list(spec.get("nodeTaints"))]
    tolerations = [{str(k): str(v) for k, v in as_map(t).items()} for t in as_list(spec.get("tolerations"))]
    return KueueFlavor(_name(item), labels, taints, tolerations)


def kueue_local_queue(item: dict[str, Any]) -> tuple[str, str, str | None]:
    """(namespace, name, the ClusterQueue it points at)."""
    metadata = as_map(item.get("metadata"))
    namespace = as_str(metadata.get("namespace")) or "default"
    return namespace, _name(item), as_str(as_map(item.get("spec")).get("clusterQueue"))


@dataclass
class KueueAdmission:
    """What one admitted Workload holds of its ClusterQueue's quota, per (flavor, resource)."""

    cluster_queue: str
    usage: dict[tuple[str, str], int] = field(default_factory=dict)


def kueue_admission(item: dict[str, Any]) -> KueueAdmission | None:
    """The quota an admitted (quota-reserved) Workload holds: status.admission's podSetAssignments,
    `resourceUsage` per resource charged to the flavor `flavors` names. None for a Workload with
    no admission or one that has Finished (its quota is released)."""
    status = as_map(item.get("status"))
    admission = as_map(status.get("admission"))
    queue = as_str(admission.get("clusterQueue"))
    if queue is None:
        return None
    for condition in as_list(status.get("conditions")):
        condition = as_map(condition)
        if condition.get("type") == "Finished" and condition.get("status") == "True":
            return None
    held = KueueAdmission(queue)
    for assignment in as_list(admission.get("podSetAssignments")):
        assignment = as_map(assignment)
        flavors = as_map(assignment.get("flavors"))
        for resource, amount in resource_map(assignment.get("resourceUsage")).items():
            flavor = as_str(flavors.get(resource))
            if flavor is not None:
                key = (flavor, resource)
                held.usage[key] = held.usage.get(key, 0) + amount
    return held


# --------------------------------------------------------------------------- Volcano


@dataclass
class VolcanoQueue:
    name: str
    parent: str | None
    capability: Resources
    deserved: Resources
    guarantee: Resources
    state: str | None
    allocated: Resources | None = None  # status.allocated, when the snapshot has it

    @property
    def is_open(self) -> bool:
        """A queue whose status records no state (a hand-written one) counts as Open."""
        open_state = as_map(queue_knowledge().get("volcano")).get("open_state", "Open")
        return self.state is None or self.state == open_state


def volcano_queue(item: dict[str, Any]) -> VolcanoQueue:
    spec = as_map(item.get("spec"))
    status = as_map(item.get("status"))
    allocated = status.get("allocated")
    return VolcanoQueue(
        name=_name(item),
        parent=as_str(spec.get("parent")) or None,
        capability=resource_map(spec.get("capability")),
        deserved=resource_map(spec.get("deserved")),
        guarantee=resource_map(as_map(spec.get("guarantee")).get("resource")),
        state=as_str(status.get("state")),
        allocated=resource_map(allocated) if isinstance(allocated, dict) else None,
    )


# --------------------------------------------------------------------------- a workload's queue


@dataclass(frozen=True)
class QueueRef:
    """The queue a workload (or a running pod) names: which scheduler's, and its name."""

    scheduler: str  # kai | kueue | volcano
    name: str
    implied: bool = False  # not named: Volcano's default queue


def queue_of_labels(labels: dict[str, Any], annotations: dict[str, Any]) -> QueueRef | None:
    """The queue named by an object's labels or annotations (a workload's, a template's, a pod's)."""
    if not labels and not annotations:
        return None
    for key in KAI_QUEUE_LABELS:
        value = as_str(labels.get(key))
        if value:
            return QueueRef("kai", value)
    value = as_str(labels.get(KUEUE_QUEUE_LABEL)) or as_str(annotations.get(KUEUE_QUEUE_LABEL))
    if value:
        return QueueRef("kueue", value)
    value = as_str(annotations.get(VOLCANO_QUEUE_ANNOTATION)) or as_str(labels.get(VOLCANO_QUEUE_LABEL))
    if value:
        return QueueRef("volcano", value)
    return None


def volcano_default_queue() -> str:
    return str(as_map(queue_knowledge().get("volcano")).get("default_queue", "default"))


def pod_queue(item: dict[str, Any]) -> QueueRef | None:
    """The queue a snapshot Pod is charged to, by its labels (what `snapshot capture` keeps)."""
    metadata = as_map(item.get("metadata"))
    return queue_of_labels(as_map(metadata.get("labels")), as_map(metadata.get("annotations")))


@cache
def queue_labels_to_keep() -> tuple[str, ...]:
    """The Pod labels `snapshot capture` keeps: those that charge a pod to a queue, and KAI's
    preemptibility (a non-preemptible pod counts against its queue's quota)."""
    return (*KAI_QUEUE_LABELS, KAI_PREEMPTIBILITY_LABEL, KUEUE_QUEUE_LABEL, VOLCANO_QUEUE_LABEL)
