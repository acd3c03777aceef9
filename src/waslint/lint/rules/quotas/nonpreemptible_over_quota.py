"""WAS503 nonpreemptible-over-quota."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import field
from decimal import Decimal

from waslint.core.model import Path, Severity
from waslint.core.records import dataclass
from waslint.lint.context import Context
from waslint.lint.priority import is_kai_template, priority_classes
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.quotas.common import find_queue
from waslint.objects.keys import KAI_GPU_FRACTION, KAI_GPU_FRACTION_DEVICES, KAI_PREEMPTIBILITY_LABEL, KAI_QUEUE_LABELS
from waslint.objects.kobject import KObject, as_map, as_str, dig
from waslint.objects.pods import pod_request
from waslint.objects.quantity import GPU, MILLI, number, parse_quantity, show
from waslint.objects.walks import POD_TEMPLATE_KINDS, PodTemplate, containers, pod_count, pod_templates

PREEMPTIBILITY_LABEL = KAI_PREEMPTIBILITY_LABEL


NON_PREEMPTIBLE_FROM = 100


@dataclass
class _Demand:
    queue: str
    priority: str  # how the priority was found, for the message
    path: Path  # where to point
    gpus: Decimal = Decimal(0)
    parts: list[str] = field(default_factory=list)


# KAI's default priority when a workload names none (KAI docs, "Workload Priority").
_KAI_DEFAULT_PRIORITY = {("apps", "Deployment"): "inference"}


def demand_pods(template: PodTemplate) -> int:
    """Pods whose GPUs a workload asks for: the template's Pod count, 1 where it is unknown."""
    count = pod_count(template)
    return 1 if count is None else max(count, 0)


def pod_gpus(template: PodTemplate) -> Decimal:
    """GPUs one pod of the template asks KAI for: the whole devices of its request (the pod's
    effective request, objects/pods.py, as KAI counts it: pkg/scheduler/api/pod_info/pod_info.go
    getPodResourceRequest) plus a `gpu-fraction` share."""
    whole = Decimal(pod_request(template.spec).get(GPU, 0)) / MILLI
    fraction = parse_quantity(template.annotations.get(KAI_GPU_FRACTION))
    if fraction is not None and fraction > 0:
        devices = parse_quantity(template.annotations.get(KAI_GPU_FRACTION_DEVICES))
        whole += fraction * (devices if devices is not None and devices > 0 else 1)
    return whole


def _first_gpu_path(template: PodTemplate) -> Path:
    for list_name, position, container in containers(template.spec):
        resources = as_map(container.get("resources"))
        for source in ("requests", "limits"):
            if GPU in as_map(resources.get(source)):
                return (*template.path, list_name, position, "resources", source, GPU)
    if KAI_GPU_FRACTION in template.annotations:
        return (*template.metadata_path, "annotations", KAI_GPU_FRACTION)
    return template.path


@register
class NonPreemptibleOverQuota(Rule):
    code = "WAS503"
    name = "nonpreemptible-over-quota"
    severity = Severity.WARNING
    summary = "A non-preemptible KAI workload asks for more GPUs than its queue's quota."
    what = (
        "For workloads scheduled by KAI (pod template `schedulerName: kai-scheduler`, or a"
        " `kai.scheduler/queue` / legacy `runai/queue` label on the object or its pod template),"
        " finds the queue from that label (the object's own label first, as KAI's pod grouper"
        " does) and the priority class the way KAI does: the `priorityClassName` label on the"
        " object, then on the pod template, then the pod's `spec.priorityClassName`; with none,"
        " KAI's documented default (`inference` for a Deployment, otherwise the preemptible"
        " `train`). The class value comes from the set, else `--snapshot`, else KAI's own classes"
        " (train 50, build-preemptible 75, build 100, inference 125). A value of 100 or more is"
        " non-preemptible, unless the `kai.scheduler/preemptibility` label says `preemptible`"
        " (and that label set to `non-preemptible` makes any class non-preemptible). It then adds"
        " the GPU demand of the workload's non-preemptible pods at full scale: `nvidia.com/gpu`"
        " request (or limit) per pod, plus a `gpu-fraction` share, times the replica count (Job"
        " parallelism, Deployment replicas, JobSet replicas x parallelism, LeaderWorkerSet"
        " groups x size), and fires when it exceeds the `gpu.quota` of the queue or of any of its"
        " ancestor queues (KAI checks the whole chain; unset counts as 0, `-1` is unlimited)."
        " Queues come from the set, else from `--snapshot`. Silent when the queue or the class"
        " value is not known. The demand of one workload is compared, not the sum of every"
        " non-preemptible workload of the queue (what else runs there is a runtime fact). MIG"
        " profiles and DRA-claimed GPUs are not counted."
    )
    why = (
        "KAI lets a non-preemptible workload use only in-quota resources: it cannot borrow idle"
        " GPUs the way preemptible work does. A gang whose demand is above the queue's quota"
        ' waits forever with `NonPreemptibleOverQuota` ("Non-preemptible workload is over'
        ' quota") even on an idle cluster. For a Deployment (KAI defaults it to `inference`)'
        " some replicas start and the rest stay pending. KAI's `isInferencePreemptible` setting"
        " can make `inference` preemptible; this rule assumes the default."
    )
    example = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: team-a
spec:
  resources:
    gpu: {quota: 2, limit: -1}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: build-model
  labels:
    kai.scheduler/queue: team-a
    priorityClassName: build          # 100: non-preemptible
spec:
  parallelism: 4
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
        resources:
          limits:
            nvidia.com/gpu: 1         # 4 pods x 1 GPU > quota 2
"""
    use_instead = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: team-a
spec:
  resources:
    gpu: {quota: 2, limit: -1}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: build-model
  labels:
    kai.scheduler/queue: team-a
    priorityClassName: train          # 50: preemptible, may borrow over quota
spec:
  parallelism: 4
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
        resources:
          limits:
            nvidia.com/gpu: 1
"""
    kinds = POD_TEMPLATE_KINDS - {("", "PodTemplate")}

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not obj.doc.mentions("kai") and not obj.doc.mentions("runai/queue"):
            return
        demands: dict[str, _Demand] = {}
        for template in pod_templates(obj):
            if not is_kai_template(obj, template):
                continue
            gpus = pod_gpus(template)
            if gpus <= 0:
                continue
            queue = _label(obj, template, KAI_QUEUE_LABELS)
            if queue is None:
                continue
            found = self._non_preemptible(obj, template, ctx)
            if found is None:
                continue
            priority, path = found
            count = demand_pods(template)
            demand = demands.setdefault(queue[0], _Demand(queue[0], priority, path))
            demand.gpus += gpus * count
            demand.parts.append(f"{count} pod{'s' if count != 1 else ''} x {_gpus(gpus)}")
        for demand in demands.values():
            yield from self._against_quota(obj, ctx, demand)

    def _against_quota(self, obj: KObject, ctx: Context, demand: _Demand) -> Iterator[Hit]:
        # KAI checks the non-preemptible quota of the queue and of every ancestor queue.
        name: str | None = demand.queue
        seen: set[str] = set()
        while name is not None and name not in seen:
            seen.add(name)
            queue = find_queue(ctx, name)
            if queue is None:
                return
            quota_value = dig(queue.spec, "resources", "gpu", "quota")
            quota = Decimal(0) if quota_value is None else number(quota_value)
            if quota is not None and quota >= 0 and demand.gpus > quota:
                quota_text = show(quota) if quota_value is not None else "0 (unset)"
                where = f'queue "{name}"'
                if name != demand.queue:
                    where = f'queue "{demand.queue}" sits under {where}, which'
                yield self.hit(
                    obj,
                    demand.path,
                    f"non-preemptible KAI workload ({demand.priority}) needs"
                    f" {_gpus(demand.gpus)} ({' + '.join(demand.parts)}) but {where} has a GPU"
                    f" quota of {quota_text}: non-preemptible work may only use in-quota GPUs, so"
                    " it waits with NonPreemptibleOverQuota even on an idle cluster. Use a"
                    " preemptible class (value < 100, e.g. train) or raise that gpu quota to"
                    f" {show(demand.gpus)}",
                )
                return
            name = as_str(queue.spec.get("parentQueue")) or None

    def _non_preemptible(self, obj: KObject, template: PodTemplate, ctx: Context) -> tuple[str, Path] | None:
        """(description, path) when the template's pods are non-preemptible in KAI, else None."""
        preemptibility = _label(obj, template, (PREEMPTIBILITY_LABEL,))
        if preemptibility is not None and preemptibility[0] == "preemptible":
            return None
        name: str | None = None
        path: Path = _first_gpu_path(template)
        label = _label(obj, template, ("priorityClassName",))
        if label is not None:
            name, path = label[0], label[1]
        elif isinstance(template.spec.get("priorityClassName"), str):
            name, path = template.spec["priorityClassName"], (*template.path, "priorityClassName")
        if preemptibility is not None and preemptibility[0] == "non-preemptible":
            shown = f", priorityClassName {name}" if name else ""
            return f"label {PREEMPTIBILITY_LABEL}: non-preemptible{shown}", preemptibility[1]
        default = name is None
        if name is None:
            name = _KAI_DEFAULT_PRIORITY.get((obj.group, obj.kind))
            if name is None:
                return None  # KAI's general default, train, is preemptible
        value = priority_classes(ctx).value(name, kai_defaults=True)
        if value is None or value < NON_PREEMPTIBLE_FROM:
            return None
        how = f"KAI's default for a {obj.kind}" if default else "priorityClassName"
        return f"{how} {name} = {value}, >= {NON_PREEMPTIBLE_FROM} is non-preemptible", path


def _gpus(value: Decimal) -> str:
    return f"{show(value)} GPU{'' if value == 1 else 's'}"


def _label(obj: KObject, template: PodTemplate, keys: tuple[str, ...]) -> tuple[str, Path] | None:
    """A label value from the object (first) or the pod template, with its path."""
    template_meta = template.metadata_path
    for labels, base in ((obj.labels, ("metadata",)), (template.labels, template_meta)):
        for key in keys:
            value = as_str(labels.get(key))
            if value:
                return value, (*base, "labels", key)
    return None
