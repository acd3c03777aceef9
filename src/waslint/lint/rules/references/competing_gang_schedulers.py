"""WAS404 competing-gang-schedulers."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Path, Severity
from waslint.core.records import dataclass
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import object_group
from waslint.objects.keys import (
    COSCHEDULING_LABEL,
    KAI_GROUP_ANNOTATION,
    KAI_MIN_MEMBER,
    KAI_QUEUE_LABELS,
    KAI_SCHEDULER,
    KAI_SUBGROUP_LABEL,
    KUEUE_POD_GROUP_LABEL,
    KUEUE_QUEUE_LABEL,
    VOLCANO_GROUP_ANNOTATIONS,
)
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.walks import POD_TEMPLATE_KINDS, PodTemplate, pod_templates


@dataclass(frozen=True)
class _Marker:
    system: str
    text: str


def _markers(owner: KObject, template: PodTemplate) -> list[_Marker]:
    """The non-native gang systems that claim this pod template."""
    found: list[_Marker] = []
    scheduler = as_str(template.spec.get("schedulerName"))
    if scheduler == KAI_SCHEDULER:
        found.append(_Marker("KAI", f"schedulerName: {scheduler}"))
    elif scheduler == "volcano":
        found.append(_Marker("Volcano", f"schedulerName: {scheduler}"))
    if owner.group == "batch.volcano.sh":
        found.append(_Marker("Volcano", f"the owner is a Volcano {owner.kind}"))
    seen: set[tuple[str, str]] = set()
    for where, values in (
        ("label", template.labels),
        ("label", owner.labels),
        ("annotation", template.annotations),
        ("annotation", owner.annotations),
    ):
        for key in values:
            system = _FOREIGN_GANG_KEYS.get((where, key)) if isinstance(key, str) else None
            if system is not None and (where, key) not in seen:
                seen.add((where, key))
                found.append(_Marker(system, f"{where} {key}"))
    return found


_FOREIGN_GANG_KEYS = {
    ("label", KAI_QUEUE_LABELS[0]): "KAI",
    ("label", KAI_QUEUE_LABELS[1]): "KAI",
    ("label", KAI_SUBGROUP_LABEL): "KAI",
    ("annotation", KAI_GROUP_ANNOTATION): "KAI",
    ("annotation", KAI_MIN_MEMBER): "KAI",
    ("annotation", VOLCANO_GROUP_ANNOTATIONS[0]): "Volcano",
    ("annotation", VOLCANO_GROUP_ANNOTATIONS[1]): "Volcano",
    ("annotation", "scheduling.volcano.sh/queue-name"): "Volcano",
    ("annotation", "volcano.sh/queue-name"): "Volcano",
    ("label", COSCHEDULING_LABEL): "coscheduling",
    ("label", "pod-group.scheduling.sigs.k8s.io"): "coscheduling",
    ("label", KUEUE_QUEUE_LABEL): "Kueue",
    ("label", KUEUE_POD_GROUP_LABEL): "Kueue",
}


@register
class CompetingGangSchedulers(Rule):
    code = "WAS404"
    name = "competing-gang-schedulers"
    severity = Severity.WARNING
    summary = "Native gang scheduling on pods that KAI, Volcano, coscheduling or Kueue also gangs."
    what = (
        "Finds pods with a native group (pod-template `schedulingGroup`, or a Job/CronJob"
        " `spec.scheduling` with a `gang` policy) that another gang system also claims:"
        " `schedulerName: kai-scheduler` or `volcano`, a Volcano Job owner, KAI labels and"
        " annotations (`kai.scheduler/queue`, `runai/queue`, `kai.scheduler/subgroup-name`,"
        " `pod-group-name`, `kai.scheduler/batch-min-member`), Volcano annotations"
        " (`scheduling.k8s.io/group-name`, `scheduling.volcano.sh/queue-name`...), the"
        " coscheduling label `scheduling.x-k8s.io/pod-group`, or the Kueue"
        " `kueue.x-k8s.io/queue-name` and `kueue.x-k8s.io/pod-group-name` labels. Labels and"
        " annotations are read from the pod template and from the owning object. A `basic`"
        " (non-gang) Job `spec.scheduling` is not a gang and is not reported."
    )
    why = (
        "Each system makes its own all-or-nothing decision and none of them knows about the other:"
        " a third-party scheduler ignores the native PodGroup and binds pods one by one or by its"
        " own PodGroup, while the native PodGroup waits for members it never sees; Kueue admits"
        " and may evict the workload on its own (waitForPodsReady) while the native gang holds"
        " half-placed pods. The result is deadlocks or partial starts that neither side reports."
        " One layer must own admission and one scheduler must bind. If you deliberately run an"
        " integration where the other system reads the native objects (KAI's Workload API design,"
        " for one), say so with `waslint.io/ignore: WAS404` on that object."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
  labels:
    kueue.x-k8s.io/queue-name: team-a
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    kinds = POD_TEMPLATE_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not obj.doc.mentions("schedulingGroup") and not obj.doc.mentions("gang"):
            return
        job_gang = _job_gang_path(obj)
        for template in pod_templates(obj):
            joined = template.membership
            if joined.scheduling_group:
                native_path: Path = (*template.path, "schedulingGroup")
                group = joined.pod_group.value if joined.pod_group is not None else None
                native = "native schedulingGroup" + (f' (PodGroup "{group}")' if group else "")
            elif job_gang is not None:
                native_path = job_gang
                native = "native Job spec.scheduling gang"
            else:
                continue
            markers = _markers(obj, template)
            if not markers:
                continue
            systems = sorted({marker.system for marker in markers})
            evidence = "; ".join(marker.text for marker in markers)
            yield self.hit(
                obj,
                native_path,
                f"{native} on pods that {' and '.join(systems)} also gang-schedules ({evidence}):"
                " two gang layers each wait for their own all-or-nothing decision, which"
                " deadlocks or starts partial gangs. Keep one: drop the native group, or drop the"
                f" {'/'.join(systems)} settings",
            )


def _job_gang_path(obj: KObject) -> Path | None:
    group = object_group(obj)
    if group is None or as_map(group.policy.raw).get("gang") is None:
        return None
    return (*group.policy.path, "gang")
