"""Compact types the engine works on, parsed once from plain snapshot / manifest dicts.

Every quantity is an int in milli-units (`2` GPUs -> 2000, `500m` CPU -> 500, `1Gi` -> 1024**3 * 1000),
so the hot loops do integer arithmetic only. Requests round up, capacity rounds down.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from waslint.objects.quantity import MAX_AMOUNT, parse_quantity, range_problem

MILLI = 1000
OUT_OF_RANGE = int(MAX_AMOUNT) * MILLI + 1  # a quantity past 2^63-1 (objects/quantity.py), in milli-units
PODS = "pods"
GPU = "nvidia.com/gpu"
HOSTNAME = "kubernetes.io/hostname"
DEFAULT_MAX_PODS = 110  # the kubelet's default --max-pods, when a node records no `pods` allocatable
KAI_GPU_FRACTION = "gpu-fraction"
KAI_GPU_MEMORY = "gpu-memory"
GPU_MEMORY_LABEL = "nvidia.com/gpu.memory"  # MiB per device (GPU feature discovery)

Resources = dict[str, int]


def as_map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


_ROUNDED_UP: dict[Any, int | None] = {}
_ROUNDED_DOWN: dict[Any, int | None] = {}


def milli(value: Any, round_up: bool = True) -> int | None:
    """A quantity in milli-units (None when it does not parse). Memoised: snapshots repeat a few
    hundred distinct strings across tens of thousands of pods."""
    cache = _ROUNDED_UP if round_up else _ROUNDED_DOWN
    try:
        return cache[value]
    except KeyError:
        pass
    except TypeError:  # unhashable (a map where a quantity belongs): not a quantity
        return None
    parsed = parse_quantity(value)
    result = None
    if parsed is not None and parsed.is_finite():
        scaled = parsed * MILLI
        result = max(0, math.ceil(scaled) if round_up else math.floor(scaled))
    elif range_problem(value) is not None:
        result = OUT_OF_RANGE  # more than Kubernetes counts (lint: WAS004): no node holds it
    if not isinstance(value, bool):  # True == 1 as a key: keep bools out of the cache
        cache[value] = result
    return result


def resource_map(value: Any, round_up: bool = True) -> Resources:
    found: Resources = {}
    for name, raw in as_map(value).items():
        amount = milli(raw, round_up)
        if isinstance(name, str) and amount is not None:
            found[name] = amount
    return found


def resource_rank(resource: str) -> tuple[int, str]:
    """The order resources are named in when several limit equally: extended resources (GPUs)
    first, then cpu, memory, other native resources, and `pods` last."""
    if resource == PODS:
        return (4, resource)
    if "/" in resource:
        return (0, resource)
    return ({"cpu": 1, "memory": 2}.get(resource, 3), resource)


def show_amount(resource: str, amount: int) -> str:
    """A milli-unit amount for people: `3`, `1.5`, `12Gi`, `500m` (cpu)."""
    if resource == "memory" or resource.endswith("storage"):
        size = amount / MILLI
        for unit, scale in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if size >= scale:
                return f"{size / scale:.4g}{unit}"
        return f"{size:.4g}"
    if resource == "cpu" and amount % MILLI and amount < MILLI:
        return f"{amount}m"
    return f"{amount / MILLI:.4g}" if amount % MILLI else str(amount // MILLI)


# --------------------------------------------------------------------------- nodes


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        value = f"={self.value}" if self.value else ""
        return f"{self.key}{value}:{self.effect}"


@dataclass
class NodeInfo:
    name: str
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    allocatable: Resources
    ready: bool
    unschedulable: bool
    gpu_memory_mib: int | None = None

    @cached_property
    def filter_class(self) -> tuple[Any, ...]:
        """What node filters look at, except the hostname: nodes with equal classes pass or fail
        every filter that does not name a host alike, so filters run once per class."""
        labels = tuple(sorted((k, v) for k, v in self.labels.items() if k != HOSTNAME))
        return (labels, self.taints, self.ready, self.unschedulable)


def node_from_dict(item: dict[str, Any]) -> NodeInfo | None:
    metadata = as_map(item.get("metadata"))
    name = metadata.get("name")
    if not isinstance(name, str):
        return None
    labels = {str(k): str(v) for k, v in as_map(metadata.get("labels")).items()}
    spec = as_map(item.get("spec"))
    status = as_map(item.get("status"))
    taints = tuple(
        Taint(str(taint.get("key", "")), str(taint.get("value") or ""), str(taint.get("effect", "")))
        for taint in as_list(spec.get("taints"))
        if isinstance(taint, dict)
    )
    allocatable = resource_map(status.get("allocatable") or status.get("capacity"), round_up=False)
    allocatable.setdefault(PODS, DEFAULT_MAX_PODS * MILLI)
    memory = labels.get(GPU_MEMORY_LABEL, "")
    return NodeInfo(
        name=name,
        labels=labels,
        taints=taints,
        allocatable=allocatable,
        ready=_ready(status),
        unschedulable=spec.get("unschedulable") is True,
        gpu_memory_mib=int(memory) if memory.isdigit() else None,
    )


def _ready(status: dict[str, Any]) -> bool:
    """The Ready condition is True; a node that records no conditions at all (a hand-written
    snapshot) counts as Ready."""
    conditions = [c for c in as_list(status.get("conditions")) if isinstance(c, dict)]
    ready = [c for c in conditions if c.get("type") == "Ready"]
    if not ready:
        return not conditions
    return str(ready[0].get("status")) == "True"


# --------------------------------------------------------------------------- pod shapes


@dataclass(frozen=True)
class Toleration:
    key: str
    operator: str
    value: str
    effect: str


@dataclass(frozen=True)
class Requirement:
    """One node-selector requirement: key, operator (In, NotIn, Exists, DoesNotExist, Gt, Lt), values."""

    key: str
    operator: str
    values: tuple[str, ...]


Term = tuple[Requirement, ...]  # requirements ANDed; terms of a selector are ORed


@dataclass(frozen=True)
class PodShape:
    """What placement needs to know of one Pod: its request and the node filters it carries.
    Pods with equal shapes are interchangeable, so counts are computed once per shape."""

    requests: tuple[tuple[str, int], ...]  # milli-units, `pods` included, zero requests left out
    tolerations: tuple[Toleration, ...] = ()
    node_selector: tuple[tuple[str, str], ...] = ()
    affinity: tuple[Term, ...] = ()  # required node affinity; () = none
    node_name: str | None = None
    gpu_fraction: int = 0  # KAI shared GPU: milli of one device (0.5 -> 500); 0 = none
    gpu_memory_mib: int = 0  # KAI gpu-memory (resolved per node against the device size)

    @property
    def request_map(self) -> Resources:
        return dict(self.requests)

    def amount(self, resource: str) -> int:
        for name, value in self.requests:
            if name == resource:
                return value
        return 0

    @property
    def names_host(self) -> bool:
        """The filters name a host (nodeName, or the hostname label): they are judged per node."""
        if self.node_name is not None:
            return True
        if any(key == HOSTNAME for key, _ in self.node_selector):
            return True
        return any(req.key == HOSTNAME for term in self.affinity for req in term)

    @property
    def filter_key(self) -> tuple[Any, ...]:
        return (self.tolerations, self.node_selector, self.affinity, self.node_name)

    @cached_property
    def size(self) -> tuple[int, ...]:
        """Larger first: GPUs, then CPU, then memory, then everything else summed."""
        amounts = self.request_map
        rest = sum(v for k, v in amounts.items() if k not in (GPU, "cpu", "memory", PODS))
        return (amounts.get(GPU, 0) + self.gpu_fraction, amounts.get("cpu", 0), amounts.get("memory", 0), rest)

    def describe(self) -> str:
        shown = [f"{show_amount(k, v)} {k}" for k, v in self.requests if k != PODS]
        if self.gpu_fraction:
            shown.append(f"{self.gpu_fraction / MILLI:g} of one {GPU} (KAI gpu-fraction)")
        if self.gpu_memory_mib:
            shown.append(f"{self.gpu_memory_mib}MiB of one {GPU} (KAI gpu-memory)")
        return ", ".join(shown) or "no resources"


def pod_requests(spec: dict[str, Any]) -> Resources:
    """The scheduler's request of a Pod: max(containers + sidecar init containers, each init
    container with the sidecars started before it) + overhead, per resource. Limits stand in for
    missing requests (the API server defaults them so). Pod-level `spec.resources` wins when set."""
    pod_level = as_map(as_map(spec.get("resources")).get("requests"))
    if pod_level:
        total = resource_map(pod_level)
    else:
        total = {}
        containers = spec.get("containers")
        if isinstance(containers, list):
            for container in containers:
                _add(total, _container_requests(container))
        init_containers = spec.get("initContainers")
        if init_containers:
            _add_init(total, as_list(init_containers))
    overhead = spec.get("overhead")
    if overhead:
        _add(total, resource_map(overhead))
    return total


def _add_init(total: Resources, init_containers: list[Any]) -> None:
    sidecars: Resources = {}
    init_peak: Resources = {}
    for container in init_containers:
        requests = _container_requests(container)
        if as_map(container).get("restartPolicy") == "Always":
            _add(total, requests)
            _add(sidecars, requests)
            step = dict(sidecars)
        else:
            step = dict(requests)
            _add(step, sidecars)
        for name, value in step.items():
            init_peak[name] = max(init_peak.get(name, 0), value)
    for name, value in init_peak.items():
        total[name] = max(total.get(name, 0), value)


def _container_requests(container: Any) -> Resources:
    resources = container.get("resources") if isinstance(container, dict) else None
    if not isinstance(resources, dict):
        return {}
    requests = resource_map(resources.get("requests"))
    limits = resources.get("limits")
    if limits:
        for name, value in resource_map(limits).items():
            requests.setdefault(name, value)
    return requests


def _add(total: Resources, more: Resources) -> None:
    for name, value in more.items():
        total[name] = total.get(name, 0) + value


def shape_from_spec(
    spec: dict[str, Any], annotations: dict[str, Any] | None = None, extra: Resources | None = None
) -> PodShape:
    """The PodShape of a pod spec (a Pod's, or a template's) and its metadata annotations;
    `extra` adds requests read elsewhere (DRA devices of its claim templates)."""
    requests = pod_requests(spec)
    requests[PODS] = MILLI  # every Pod takes one of the node's pod slots, also one requesting nothing
    for name, amount in (extra or {}).items():
        requests[name] = requests.get(name, 0) + amount
    annotations = annotations or {}
    fraction = milli(annotations.get(KAI_GPU_FRACTION)) or 0
    gpu_memory = milli(annotations.get(KAI_GPU_MEMORY)) or 0
    node_name = spec.get("nodeName")
    return PodShape(
        requests=tuple(sorted(((k, v) for k, v in requests.items() if v > 0), key=lambda item: resource_rank(item[0]))),
        tolerations=_tolerations(spec),
        node_selector=tuple(sorted((str(k), str(v)) for k, v in as_map(spec.get("nodeSelector")).items())),
        affinity=_required_affinity(spec),
        node_name=node_name if isinstance(node_name, str) and node_name else None,
        gpu_fraction=min(fraction, MILLI) if fraction < MILLI else 0,
        gpu_memory_mib=gpu_memory // MILLI if not fraction else 0,
    )


def _tolerations(spec: dict[str, Any]) -> tuple[Toleration, ...]:
    found = []
    for item in as_list(spec.get("tolerations")):
        if isinstance(item, dict):
            found.append(
                Toleration(
                    str(item.get("key") or ""),
                    str(item.get("operator") or "Equal"),
                    str(item.get("value") or ""),
                    str(item.get("effect") or ""),
                )
            )
    return tuple(found)


def _required_affinity(spec: dict[str, Any]) -> tuple[Term, ...]:
    required = as_map(
        as_map(as_map(spec.get("affinity")).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")
    )
    terms = []
    for term in as_list(required.get("nodeSelectorTerms")):
        requirements = []
        for expression in as_list(as_map(term).get("matchExpressions")):
            expression = as_map(expression)
            requirements.append(
                Requirement(
                    str(expression.get("key", "")),
                    str(expression.get("operator", "")),
                    tuple(str(v) for v in as_list(expression.get("values"))),
                )
            )
        for selected in as_list(as_map(term).get("matchFields")):
            selected = as_map(selected)
            if selected.get("key") == "metadata.name":  # the only field the scheduler supports
                values = tuple(str(v) for v in as_list(selected.get("values")))
                requirements.append(Requirement("metadata.name", str(selected.get("operator", "")), values))
        terms.append(tuple(requirements))
    if "nodeSelectorTerms" in required and not terms:
        return ((),)  # a required selector with no terms matches no node (upstream NodeSelector.Match)
    return tuple(terms)


# --------------------------------------------------------------------------- running pods


@dataclass
class RunningPod:
    """A Pod bound to a node that holds capacity there (phase not Succeeded/Failed)."""

    name: str
    namespace: str
    node: str
    requests: Resources
    gpu_fraction: int
    priority: int
    source: dict[str, Any] = field(repr=False, default_factory=dict)
    group_all: bool = False  # the group's disruptionMode is `all`: evicting one evicts all

    @cached_property
    def group(self) -> tuple[str, str]:
        """(namespace, group name): the unit eviction takes away together (read on demand)."""
        metadata, spec = as_map(self.source.get("metadata")), as_map(self.source.get("spec"))
        return (self.namespace, group_name(metadata, spec) or self.name)


TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


def running_pod_from_dict(item: dict[str, Any], priorities: dict[str, int], default_priority: int) -> RunningPod | None:
    metadata = as_map(item.get("metadata"))
    spec = as_map(item.get("spec"))
    node = spec.get("nodeName")
    phase = as_map(item.get("status")).get("phase")
    if not isinstance(node, str) or not node or phase in TERMINAL_PHASES:
        return None
    name = str(metadata.get("name") or metadata.get("generateName") or "<unnamed>")
    namespace = str(metadata.get("namespace") or "default")
    annotations = as_map(metadata.get("annotations"))
    requests = pod_requests(spec)
    requests[PODS] = MILLI
    fraction = milli(annotations.get(KAI_GPU_FRACTION)) or 0
    return RunningPod(
        name=name,
        namespace=namespace,
        node=node,
        requests={k: v for k, v in requests.items() if v > 0},
        gpu_fraction=fraction if 0 < fraction < MILLI else 0,
        priority=pod_priority(spec, priorities, default_priority),
        source=item,
    )


def pod_priority(spec: dict[str, Any], priorities: dict[str, int], default_priority: int) -> int:
    value = spec.get("priority")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    class_name = spec.get("priorityClassName")
    if isinstance(class_name, str):
        return priorities.get(class_name, default_priority)
    return default_priority


def group_name(metadata: dict[str, Any], spec: dict[str, Any]) -> str | None:
    """The gang a Pod belongs to: WAS schedulingGroup, KAI/Volcano annotation, coscheduling label,
    else its controller owner."""
    found = as_map(spec.get("schedulingGroup")).get("podGroupName")
    if isinstance(found, str):
        return found
    annotations = as_map(metadata.get("annotations"))
    for key in ("pod-group-name", "scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name"):
        if isinstance(annotations.get(key), str):
            return str(annotations[key])
    label = as_map(metadata.get("labels")).get("scheduling.x-k8s.io/pod-group")
    if isinstance(label, str):
        return label
    for ref in as_list(metadata.get("ownerReferences")):
        if isinstance(ref, dict) and ref.get("controller") is True and isinstance(ref.get("name"), str):
            return f"{ref.get('kind', '')}/{ref['name']}"
    return None


def priority_table(items: list[dict[str, Any]]) -> tuple[dict[str, int], int]:
    """PriorityClass name -> value, and the globalDefault value (0 when none)."""
    table: dict[str, int] = {}
    default = 0
    for item in items:
        name = as_map(item.get("metadata")).get("name")
        value = item.get("value")
        if isinstance(name, str) and isinstance(value, int) and not isinstance(value, bool):
            table[name] = value
            if item.get("globalDefault") is True:
                default = value
    return table, default


def never_preempting(items: list[dict[str, Any]]) -> set[str]:
    """Names of the PriorityClasses whose preemptionPolicy is Never."""
    return {str(as_map(item.get("metadata")).get("name")) for item in items if item.get("preemptionPolicy") == "Never"}


# --------------------------------------------------------------------------- gangs


@dataclass
class Gang:
    """One all-or-nothing group: `required` pods (its minimum) out of `members`, all in one domain
    of `topology_key` when set. A composite group has `children` (gangs) of which `min_groups`
    must be placed, all inside one domain of its own key."""

    kind: str
    namespace: str
    name: str
    required: int
    members: list[tuple[PodShape, int]] = field(default_factory=list)  # (shape, pods of that shape)
    topology_key: str | None = None
    priority: int = 0
    order: int = 0
    children: list[Gang] = field(default_factory=list)
    min_groups: int = 0
    problems: list[str] = field(default_factory=list)  # infeasible before placement (too few members ...)
    notes: list[str] = field(default_factory=list)
    origin: Any = None  # the caller's handle (object, path) for locations
    is_gang: bool = True  # False: Pods of an object in no gang, each a group of one
    preempts: bool = True  # False: preemptionPolicy Never (the group's, its pods' or its PriorityClass's)
    min_path: tuple[str | int, ...] = ()  # where the minimum sits in the origin object

    @property
    def composite(self) -> bool:
        return bool(self.children) or self.kind == "CompositePodGroup"

    @property
    def identity(self) -> dict[str, str]:
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name}

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"

    def shapes_to_place(self) -> list[tuple[PodShape, int]]:
        """The `required` pods placement must find room for, as (shape, pods) largest shape first:
        the smallest pods of the members (any `required` of them satisfy the gang). Counted, never
        listed one by one: a gang may declare a billion pods."""
        chosen: list[tuple[PodShape, int]] = []
        left = max(0, self.required)
        merged: dict[PodShape, int] = {}
        for shape, count in self.members:
            merged[shape] = merged.get(shape, 0) + max(0, count)
        for shape, count in sorted(merged.items(), key=lambda item: item[0].size):
            if left <= 0:
                break
            taken = min(count, left)
            if taken:
                chosen.append((shape, taken))
                left -= taken
        chosen.reverse()
        return chosen

    def pods_to_place(self) -> list[PodShape]:
        """shapes_to_place one entry per pod, for the small gangs the exhaustive search takes."""
        return [shape for shape, count in self.shapes_to_place() for _ in range(count)]


def signature(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
