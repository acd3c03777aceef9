"""WAS5xx: limits and quotas.

KAI queue semantics (`scheduling.run.ai/v2` Queue, `spec.resources.{cpu,gpu,memory}`): `quota` is
the guaranteed share, `limit` the hard cap, `-1` means unlimited for either. An unset field is the
Go zero value 0: an unset `limit` therefore caps the resource at 0 (`OverLimit`). Units: CPU in
millicores, memory in MB, GPUs in (possibly fractional) devices. A workload whose priority class
value is 100 or more is non-preemptible and may only use in-quota resources.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from waslint.core.model import Path, Severity
from waslint.lint.checks import STRUCTURAL
from waslint.lint.context import Context
from waslint.lint.priority import is_kai_template, priority_classes
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.kobject import KObject, as_map, as_str, dig
from waslint.objects.quantity import number, parse_quantity, show
from waslint.objects.templated import from_action, may_be_written
from waslint.objects.walks import POD_TEMPLATE_KINDS, PodTemplate, containers, pod_count, pod_templates

KAI_QUEUE = ("scheduling.run.ai", "Queue")
QUEUE_RESOURCES = ("gpu", "cpu", "memory")
UNITS = {"gpu": "GPUs", "cpu": "millicores", "memory": "MB"}
QUEUE_LABELS = ("kai.scheduler/queue", "runai/queue")
PREEMPTIBILITY_LABEL = "kai.scheduler/preemptibility"
NON_PREEMPTIBLE_FROM = 100
GPU = "nvidia.com/gpu"


def find_queue(ctx: Context, name: str) -> KObject | None:
    """A KAI Queue by name (cluster-scoped): the set first, then the snapshot."""
    for obj in ctx.index.of_kind(*KAI_QUEUE):
        if as_str(obj.metadata.get("name")) == name:
            return obj
    for obj in ctx.snapshot.queues if ctx.snapshot is not None else []:
        if isinstance(obj, KObject) and as_str(obj.metadata.get("name")) == name:
            return obj
    return None


# --------------------------------------------------------------------------- WAS501


@register
class QueueLimitUnset(Rule):
    code = "WAS501"
    name = "queue-limit-unset"
    severity = Severity.ERROR
    summary = "A KAI Queue resource has a quota but no limit (KAI reads it as 0), or a limit above its parent's."
    what = (
        "For every `scheduling.run.ai/v2` Queue and each of `spec.resources.gpu`, `cpu` and"
        " `memory`: fires when `quota` is set (any value, `-1` included) but `limit` is not, and"
        " when `limit: 0` is paired with a non-zero `quota` (`-1`, unlimited, counts as non-zero)."
        ' `limit: 0` with `quota: 0` is read as a deliberate "none of this resource" and left'
        " alone, and so is a resource section without a quota. For a child queue"
        " (`spec.parentQueue`), it also fires when the child's limit is higher than its parent's"
        " (parent from the set, else from `--snapshot`); a child limit of `-1` under a finite"
        " parent is fine (it just inherits the parent's cap)."
    )
    why = (
        "KAI has no default for `limit`: an unset limit is the Go zero value, and"
        " `isOverLimit` only skips the check for `-1`. Every pod of the queue that requests that"
        " resource is refused with `OverLimit ... Limit is 0`, whatever the quota says, and the"
        " Queue is accepted by the webhook without a warning. A child limit above the parent's is"
        " never reachable (the limit is checked up the parent chain) and misleads whoever sizes"
        " workloads from the child queue."
    )
    example = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: ml-team
spec:
  parentQueue: research
  resources:
    gpu:
      quota: 4            # no limit: KAI caps the queue at 0 GPUs
      overQuotaWeight: 1
"""
    use_instead = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: ml-team
spec:
  parentQueue: research
  resources:
    gpu:
      quota: 4
      limit: -1           # unlimited (still capped by the parent's limit)
      overQuotaWeight: 1
"""
    kinds = frozenset({KAI_QUEUE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.version != "v2":
            return
        queue = as_str(obj.metadata.get("name")) or "<unnamed>"
        resources = as_map(obj.spec.get("resources"))
        for resource in QUEUE_RESOURCES:
            section = resources.get(resource)
            if not isinstance(section, dict):
                continue
            quota = number(section.get("quota"))
            limit_set = section.get("limit") is not None
            limit = number(section.get("limit"))
            unit = UNITS[resource]
            if quota is not None and not limit_set:
                advice = f"Set {resource}.limit: -1 (unlimited)"
                if quota > 0:
                    advice += f" or a limit of at least {_amount(quota, unit)}"
                yield self.hit(
                    obj,
                    ("spec", "resources", resource),
                    f'Queue "{queue}": {resource} has quota {_amount(quota, unit)} but no limit;'
                    f" KAI reads an unset limit as 0 and rejects every {resource} request of this"
                    f" queue (OverLimit ... Limit is 0). {advice}",
                )
            elif limit == 0 and quota is not None and quota != 0:
                yield self.hit(
                    obj,
                    ("spec", "resources", resource, "limit"),
                    f'Queue "{queue}": {resource} has limit 0 but quota {_amount(quota, unit)};'
                    f" KAI refuses every {resource} request of this queue (OverLimit ... Limit is"
                    f" 0), so the quota can never be used. Set {resource}.limit: -1 (unlimited)"
                    " or a limit of at least the quota",
                )
        yield from self._parent(obj, ctx, queue, resources)

    def _parent(self, obj: KObject, ctx: Context, queue: str, resources: dict[str, Any]) -> Iterator[Hit]:
        parent_name = as_str(obj.spec.get("parentQueue"))
        if not parent_name:
            return
        parent = find_queue(ctx, parent_name)
        if parent is None or parent is obj:
            return
        parent_resources = as_map(parent.spec.get("resources"))
        for resource in QUEUE_RESOURCES:
            limit = number(as_map(resources.get(resource)).get("limit"))
            parent_limit = number(as_map(parent_resources.get(resource)).get("limit"))
            if limit is None or parent_limit is None or limit < 0 or parent_limit < 0:
                continue
            if limit > parent_limit:
                unit = UNITS[resource]
                yield self.hit(
                    obj,
                    ("spec", "resources", resource, "limit"),
                    f'Queue "{queue}": {resource} limit {_amount(limit, unit)} exceeds the limit'
                    f' of its parent queue "{parent_name}" ({_amount(parent_limit, unit)}); KAI'
                    " checks limits up the parent chain, so the child can never use more than"
                    f" {_amount(parent_limit, unit)}. Lower the child's limit, use -1 to inherit"
                    " the parent's, or raise the parent's",
                )


def _amount(value: Decimal, unit: str) -> str:
    if value < 0:
        return "-1 (unlimited)"
    return f"{show(value)} {unit}"


# --------------------------------------------------------------------------- WAS502


def is_extended_resource(name: str) -> bool:
    """Domain-prefixed and not native (`kubernetes.io/...` and `requests.*` are not extended)."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


@register
class ExtendedResourceLimits(Rule):
    code = "WAS502"
    name = "extended-resource-limits"
    severity = Severity.ERROR
    summary = "A container requests an extended resource (GPU...) without an equal limit."
    what = (
        "For every container, init container and ephemeral container of every pod template"
        " (Pod, Deployment, StatefulSet, DaemonSet, Job, CronJob, JobSet, LeaderWorkerSet,"
        " Volcano Job...), fires when `resources.requests` names an extended resource (a"
        " domain-prefixed name outside `kubernetes.io`, such as `nvidia.com/gpu`, `amd.com/gpu`,"
        " `example.com/foo`) and `resources.limits` does not name it, or names it with a"
        ' different quantity (`1` and `"1"` are equal). A limit alone is fine: the request'
        " defaults to it."
    )
    why = (
        "Extended resources cannot be overcommitted: the API server rejects a Pod whose request"
        ' has no limit ("Limit must be set for non overcommitable resources") or differs from'
        ' it ("must be equal to ... limit"). For a Deployment or Job the manifest applies'
        " fine and the controller fails to create pods, visible only in its events."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
        resources:
          requests:
            nvidia.com/gpu: 1     # no limit
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
        resources:
          limits:
            nvidia.com/gpu: 1     # the request defaults to the limit
"""
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "requests"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        for template in pod_templates(obj):
            for list_name, position, container in containers(template.spec):
                resources = container.get("resources")
                if not isinstance(resources, dict):
                    continue
                requests = resources.get("requests")
                if not isinstance(requests, dict):
                    continue
                label = as_str(container.get("name")) or f"{list_name}[{position}]"
                base: Path = (*template.path, list_name, position, "resources")
                if from_action(resources.get("limits")) or may_be_written(obj, base):
                    continue  # a template action writes the limits: known once rendered
                limits = as_map(resources.get("limits"))
                for resource, request in requests.items():
                    if not isinstance(resource, str) or not is_extended_resource(resource):
                        continue
                    if request is None:
                        continue
                    yield from self._compare(obj, base, label, resource, request, limits)

    def _compare(
        self,
        obj: KObject,
        base: Path,
        label: str,
        resource: str,
        request: Any,
        limits: dict[str, Any],
    ) -> Iterator[Hit]:
        if limits.get(resource) is None:
            missing = self.hit(
                obj,
                (*base, "requests", resource),
                f'container "{label}" requests {resource}: {request} without a limit; the API'
                " server rejects the Pod (extended resources cannot be overcommitted). Set"
                f" resources.limits.{resource}: {request} (or only the limit: the request"
                " defaults to it)",
            )
            missing.extra[STRUCTURAL] = True  # whatever the request renders to
            yield missing
            return
        limit = limits[resource]
        wanted, given = parse_quantity(request), parse_quantity(limit)
        parsed = wanted is not None and given is not None
        same = wanted == given if parsed else str(request) == str(limit)
        if not same:
            yield self.hit(
                obj,
                (*base, "requests", resource),
                f'container "{label}" requests {resource}: {request} but its limit is {limit};'
                " the API server rejects the Pod (an extended resource's request must equal its"
                " limit). Make them equal",
            )


# --------------------------------------------------------------------------- WAS503


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


def _container_gpus(container: dict[str, Any]) -> Decimal:
    resources = as_map(container.get("resources"))
    for source in ("requests", "limits"):  # the request defaults to the limit
        value = parse_quantity(as_map(resources.get(source)).get(GPU))
        if value is not None:
            return value
    return Decimal(0)


def pod_gpus(template: PodTemplate) -> Decimal:
    """GPUs one pod of the template asks KAI for: whole devices plus a `gpu-fraction` share."""
    regular = Decimal(0)
    init = Decimal(0)
    for list_name, _, container in containers(template.spec):
        if list_name == "containers":
            regular += _container_gpus(container)
        elif list_name == "initContainers":
            init = max(init, _container_gpus(container))
    whole = max(regular, init)
    fraction = parse_quantity(template.annotations.get("gpu-fraction"))
    if fraction is not None and fraction > 0:
        devices = parse_quantity(template.annotations.get("gpu-fraction-num-devices"))
        whole += fraction * (devices if devices is not None and devices > 0 else 1)
    return whole


def _first_gpu_path(template: PodTemplate) -> Path:
    for list_name, position, container in containers(template.spec):
        resources = as_map(container.get("resources"))
        for source in ("requests", "limits"):
            if GPU in as_map(resources.get(source)):
                return (*template.path, list_name, position, "resources", source, GPU)
    if "gpu-fraction" in template.annotations:
        return (*template.path[:-1], "metadata", "annotations", "gpu-fraction")
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
            queue = _label(obj, template, QUEUE_LABELS)
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
    template_meta: Path = (*template.path[:-1], "metadata")
    for labels, base in ((obj.labels, ("metadata",)), (template.labels, template_meta)):
        for key in keys:
            value = as_str(labels.get(key))
            if value:
                return value, (*base, "labels", key)
    return None
