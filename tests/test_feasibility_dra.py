"""DRA: device-count requests of claim templates against the devices of the nodes' ResourceSlices."""

from __future__ import annotations

from typing import Any

from feasibility_helpers import node

from waslint.feasibility.analysis import analyse, build_cluster
from waslint.feasibility.dra import claim_book
from waslint.feasibility.gangs import collect
from waslint.io.loader import parse_bytes
from waslint.objects.index import ObjectIndex

MANIFESTS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: gpu.example.com, count: 2}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: PODS
  completions: PODS
  completionMode: Indexed
  scheduling:
    schedulingPolicy: {gang: {}}
  template:
    spec:
      restartPolicy: Never
      resourceClaims:
      - {name: gpus, resourceClaimTemplateName: two-gpus}
      containers:
      - name: c
        image: x
        resources: {claims: [{name: gpus}]}
"""


def resource_slice(node_name: str, devices: int, driver: str = "gpu.example.com") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-{driver}"},
        "spec": {
            "driver": driver,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{n}"} for n in range(devices)],
        },
    }


def verdict_for(pods: int, slices: list[dict[str, Any]]) -> Any:
    index = ObjectIndex.build([parse_bytes("set.yaml", MANIFESTS.replace("PODS", str(pods)).encode())], "default")
    templates = [(obj.namespace, obj.data) for obj in index.of_kind("resource.k8s.io", "ResourceClaimTemplate")]
    classes = [obj.data for obj in index.of_kind("resource.k8s.io", "DeviceClass")]
    collected = collect(index, {}, 0, claim_book(templates, classes, bool(slices)))
    (gang,) = collected.gangs
    cluster = build_cluster([node("n1"), node("n2")], [], [], None, None, slices)
    return analyse(cluster, [gang]).verdicts[0]


def test_device_counts_of_claim_templates_are_held_against_resource_slices() -> None:
    slices = [resource_slice("n1", 4), resource_slice("n2", 2), resource_slice("n2", 8, "nic.example.com")]
    fits = verdict_for(3, slices)  # 6 devices: 2 pods on n1, 1 on n2
    assert fits.feasible
    assert fits.placement == {"n1": 2, "n2": 1}
    short = verdict_for(4, slices)
    assert (short.feasible, short.placeable, short.limiting_resource) == (False, 3, "dra/gpu.example.com")


def test_without_resource_slices_claims_are_not_charged() -> None:
    assert verdict_for(4, []).feasible
