"""The engine's own types, parsed once from plain snapshot / manifest dicts: nodes, running pods,
priorities and gangs. A pod's request and shape are a reading of its spec (`objects/pods.py`);
which gang a Pod joins is `objects/members.py`'s.

Every quantity is an int in milli-units (`objects/quantity.py`), so the hot loops do integer
arithmetic only. Requests round up, capacity rounds down.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from waslint.core.model import Path
from waslint.objects.keys import HOSTNAME
from waslint.objects.kobject import KObject, as_list, as_map
from waslint.objects.members import controller_ref, membership
from waslint.objects.pods import gpu_fraction, pod_request
from waslint.objects.quantity import MILLI, PODS, Resources, resource_map
from waslint.objects.shapes import PodShape
from waslint.objects.walks import PodTemplate

PATH_SEP = " > "  # joins the levels of a path domain key; never inside a label key
DEFAULT_MAX_PODS = 110  # the kubelet's default --max-pods, when a node records no `pods` allocatable
GPU_MEMORY_LABEL = "nvidia.com/gpu.memory"  # MiB per device (GPU feature discovery)


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
    requests = pod_request(spec)
    requests[PODS] = MILLI
    return RunningPod(
        name=name,
        namespace=namespace,
        node=node,
        requests={k: v for k, v in requests.items() if v > 0},
        gpu_fraction=gpu_fraction(as_map(metadata.get("annotations"))),
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
    """The gang a running Pod belongs to (`objects/members.py`): WAS schedulingGroup, else a KAI,
    Volcano or coscheduling group, else its controller owner."""
    joined = membership(metadata, spec)
    if joined.pod_group is not None:
        return joined.pod_group.value
    third_party = joined.third_party()
    if third_party:
        return third_party[0][1]
    owner = controller_ref(metadata)
    if owner is not None and owner.name is not None:
        return f"{owner.kind or ''}/{owner.name}"
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


@dataclass(eq=False)
class Gang:
    """One all-or-nothing group: `required` pods (its minimum) out of `members`, all in one domain
    of `topology_key` when set. A composite group has `children` (gangs) of which `min_groups`
    must be placed, all inside one domain of its own key. Compared (and hashed) by identity."""

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
    origin: KObject | None = None  # the object the gang is read from, for locations
    is_gang: bool = True  # False: Pods of an object in no gang, each a group of one
    preempts: bool = True  # False: preemptionPolicy Never (the group's, its pods' or its PriorityClass's)
    min_path: Path = ()  # where the minimum sits in the origin object
    templates: list[PodTemplate] = field(default_factory=list, repr=False)  # the pod templates of its pods
    # Pods of a shape the gang needs at least, whichever others complete it (Volcano minTaskMember)
    minimums: list[tuple[PodShape, int]] = field(default_factory=list)
    domain_levels: tuple[str, ...] = ()  # Topology levels above `topology_key` (Kueue, KAI): domains are paths
    bound: int = 0  # member Pods already bound to nodes in the snapshot: they count toward the minimum
    fixed_domain: str | None = None  # the domain the bound members sit in: the gang completes only there
    caveats: list[str] = field(default_factory=list)  # what the verdict rests on that is not modelled

    @property
    def domain_key(self) -> str | None:
        """What placement groups nodes by: the topology key, or, when the scheduler names a domain
        by the values of every level above it (Kueue, KAI), the path of levels down to the key."""
        if self.topology_key is None or not self.domain_levels:
            return self.topology_key
        return PATH_SEP.join((*self.domain_levels, self.topology_key))

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
        left = max(0, self.required - self.bound)
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

    @property
    def has_choice(self) -> bool:
        """More member Pods than the minimum, of several shapes, or per-shape minimums: which members
        are placed is decided by where they can run (the scheduler places every member it can and
        the gang starts once `required` are placed), not by picking the smallest ones first."""
        if self.minimums:
            return True
        shapes = {shape for shape, count in self.members if count > 0}
        return len(shapes) > 1 and sum(max(0, count) for _, count in self.members) > self.required

    def pods_to_place(self) -> list[PodShape]:
        """shapes_to_place one entry per pod, for the small gangs the exhaustive search takes."""
        return [shape for shape, count in self.shapes_to_place() for _ in range(count)]


def signature(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
