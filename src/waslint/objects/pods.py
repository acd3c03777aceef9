"""A pod spec's effective request as the scheduler reads it (`pod_request`: the one function that
computes it) and its KAI GPU share. Lint rules (WAS503, WAS603) and feasibility read these; the
pod's shape for placement is `objects/shapes.py`.

Quantities are ints in milli-units (`objects.quantity.milli`). Readers never raise: a value of
the wrong type reads as absent (WAS002 reports it).
"""

from __future__ import annotations

from typing import Any

from waslint.objects.keys import KAI_GPU_FRACTION
from waslint.objects.kobject import as_list, as_map
from waslint.objects.quantity import MILLI, Resources, milli, resource_map

# --------------------------------------------------------------------------- the request


def pod_request(spec: dict[str, Any]) -> Resources:
    """The scheduler's request of a Pod, per resource: max(containers + sidecar init containers,
    each init container with the sidecars started before it) + overhead. Limits stand in for
    missing requests (the API server defaults them so). Pod-level `spec.resources` wins when set.

    The same sum as kube-scheduler's (kubernetes/kubernetes
    staging/src/k8s.io/component-helpers/resource/helpers.go PodRequests) and KAI-Scheduler's
    (kai-scheduler/KAI-Scheduler pkg/scheduler/api/pod_info/pod_info.go getPodResourceRequest).
    `pods` (the pod slot) is not included; zero amounts are kept."""
    pod_level = as_map(as_map(spec.get("resources")).get("requests"))
    if pod_level:
        total = resource_map(pod_level)
    else:
        total = {}
        for container in as_list(spec.get("containers")):
            _add(total, _container_requests(container))
        init_containers = as_list(spec.get("initContainers"))
        if init_containers:
            _add_init(total, init_containers)
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


def gpu_fraction(annotations: dict[str, Any]) -> int:
    """KAI's shared-GPU request (`gpu-fraction`) in milli of one device, 0 when unset or not
    below one device (a whole device is requested as `nvidia.com/gpu`)."""
    fraction = milli(annotations.get(KAI_GPU_FRACTION)) or 0
    return fraction if 0 < fraction < MILLI else 0
