"""PriorityClasses a run knows (the set, the snapshot, the system and KAI defaults), and whether a
pod template is KAI-scheduled: shared by the reference (WAS405) and quota (WAS503) rules."""

from __future__ import annotations

from waslint.core.records import dataclass
from waslint.lint.context import Context
from waslint.objects.keys import KAI_QUEUE_LABELS, KAI_SCHEDULER, PRIORITY_CLASS
from waslint.objects.kobject import KObject, as_str
from waslint.objects.walks import PodTemplate

# PriorityClasses every cluster has (created by the API server itself), with their values.
SYSTEM_PRIORITY_CLASSES = {
    "system-cluster-critical": 2_000_000_000,
    "system-node-critical": 2_000_001_000,
}
# PriorityClasses the KAI-Scheduler installation creates (KAI docs, "Workload Priority").
# A value of 100 or more is non-preemptible in KAI.
KAI_PRIORITY_CLASSES = {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125}


@dataclass
class PriorityClasses:
    """The PriorityClasses a run knows: from the set, or the snapshot, or both."""

    values: dict[str, int | None]  # name -> value (None when the object has no integer value)
    from_set: bool
    from_snapshot: bool

    @property
    def known(self) -> bool:
        return self.from_set or self.from_snapshot

    def value(self, name: str, kai_defaults: bool = False) -> int | None:
        if name in self.values:
            return self.values[name]
        if name in SYSTEM_PRIORITY_CLASSES:
            return SYSTEM_PRIORITY_CLASSES[name]
        if kai_defaults and not self.from_snapshot:
            return KAI_PRIORITY_CLASSES.get(name)
        return None

    def exists(self, name: str, kai_defaults: bool = False) -> bool:
        if name in self.values or name in SYSTEM_PRIORITY_CLASSES:
            return True
        # The snapshot is the cluster's truth; without it, a KAI workload may use the classes
        # the KAI installation creates even when the set does not define them.
        return kai_defaults and not self.from_snapshot and name in KAI_PRIORITY_CLASSES


def priority_classes(ctx: Context) -> PriorityClasses:
    """PriorityClasses of the set and the snapshot, computed once per run."""
    return ctx.derive("priority-classes", _collect_priority_classes)


def _collect_priority_classes(ctx: Context) -> PriorityClasses:
    values: dict[str, int | None] = {}
    snapshot_classes = ctx.snapshot.priority_classes if ctx.snapshot is not None else []
    set_classes = ctx.index.of_kind(*PRIORITY_CLASS)
    for obj in [*snapshot_classes, *set_classes]:  # the set wins over the snapshot
        name = as_str(obj.metadata.get("name"))
        if name is not None:
            value = obj.data.get("value")
            values[name] = value if isinstance(value, int) and not isinstance(value, bool) else None
    return PriorityClasses(values, bool(set_classes), bool(snapshot_classes))


def is_kai_template(owner: KObject, template: PodTemplate) -> bool:
    if template.spec.get("schedulerName") == KAI_SCHEDULER:
        return True
    return any(key in labels for labels in (template.labels, owner.labels) for key in KAI_QUEUE_LABELS)
