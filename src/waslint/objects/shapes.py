"""A pod spec's shape for placement (`PodShape`): its request (`objects/pods.py`) plus the node
filters the pod carries (tolerations, node selector, required node affinity, nodeName) and its KAI
GPU share. Pods with equal shapes are interchangeable, so feasibility counts them once per shape.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, NamedTuple

from waslint.core.records import dataclass
from waslint.objects.keys import HOSTNAME, KAI_GPU_FRACTION, KAI_GPU_MEMORY
from waslint.objects.kobject import as_list, as_map
from waslint.objects.pods import pod_request
from waslint.objects.quantity import GPU, MILLI, PODS, Resources, milli, resource_rank, show_amount


class Toleration(NamedTuple):
    key: str
    operator: str
    value: str
    effect: str


class Requirement(NamedTuple):
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


def shape_from_spec(
    spec: dict[str, Any], annotations: dict[str, Any] | None = None, extra: Resources | None = None
) -> PodShape:
    """The PodShape of a pod spec (a Pod's, or a template's) and its metadata annotations;
    `extra` adds requests read elsewhere (DRA devices of its claim templates)."""
    requests = pod_request(spec)
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
