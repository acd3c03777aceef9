"""Small builders for feasibility tests: snapshot item dicts and gangs of known shape."""

from __future__ import annotations

from typing import Any

from waslint.feasibility.analysis import Cluster, Run, WhatIf, analyse, build_cluster
from waslint.feasibility.model import Gang
from waslint.objects.shapes import PodShape, shape_from_spec


def node(
    name: str,
    gpu: int = 0,
    cpu: str = "32",
    memory: str = "128Gi",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    ready: bool = True,
    unschedulable: bool = False,
    pods: int | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    allocatable: dict[str, Any] = {"cpu": cpu, "memory": memory, **(extra or {})}
    if gpu:
        allocatable["nvidia.com/gpu"] = str(gpu)
    if pods is not None:
        allocatable["pods"] = str(pods)
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {
            "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def running(
    name: str,
    node_name: str,
    gpu: int = 0,
    cpu: str = "0",
    priority: int | None = None,
    phase: str = "Running",
    annotations: dict[str, str] | None = None,
    group: str | None = None,
) -> dict[str, Any]:
    requests: dict[str, str] = {}
    if gpu:
        requests["nvidia.com/gpu"] = str(gpu)
    if cpu != "0":
        requests["cpu"] = cpu
    spec: dict[str, Any] = {"nodeName": node_name, "containers": [{"name": "c", "resources": {"requests": requests}}]}
    if priority is not None:
        spec["priority"] = priority
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
        "spec": spec,
        "status": {"phase": phase},
    }


def pod_spec(gpu: int = 0, cpu: str | None = None, **spec: Any) -> dict[str, Any]:
    requests: dict[str, str] = {}
    if gpu:
        requests["nvidia.com/gpu"] = str(gpu)
    if cpu is not None:
        requests["cpu"] = cpu
    return {"containers": [{"name": "main", "resources": {"requests": requests}}], **spec}


def shape(gpu: int = 0, cpu: str | None = None, annotations: dict[str, str] | None = None, **spec: Any) -> PodShape:
    return shape_from_spec(pod_spec(gpu, cpu, **spec), annotations)


def gang(
    name: str,
    pod: PodShape,
    pods: int,
    required: int | None = None,
    key: str | None = None,
    priority: int = 0,
    order: int = 0,
    kind: str = "PodGroup",
) -> Gang:
    return Gang(kind, "default", name, required if required is not None else pods, [(pod, pods)], key, priority, order)


def rack_nodes(racks: dict[str, list[int]], zone_of: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Nodes per rack, each with the given GPU count; labels rack (and zone)."""
    items = []
    for rack, gpus in racks.items():
        for number, count in enumerate(gpus):
            labels = {"topology.kubernetes.io/rack": rack}
            if zone_of:
                labels["topology.kubernetes.io/zone"] = zone_of[rack]
            items.append(node(f"{rack}-n{number}", gpu=count, labels=labels))
    return items


def cluster(
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]] | None = None,
    classes: list[dict[str, Any]] | None = None,
    what_if: WhatIf | None = None,
) -> Cluster:
    return build_cluster(nodes, pods or [], classes or [], what_if)


def run(
    nodes: list[dict[str, Any]],
    gangs: list[Gang],
    pods: list[dict[str, Any]] | None = None,
    preempt: bool = False,
    what_if: WhatIf | None = None,
) -> Run:
    return analyse(cluster(nodes, pods, None, what_if), gangs, preempt)


RACK = "topology.kubernetes.io/rack"
ZONE = "topology.kubernetes.io/zone"
