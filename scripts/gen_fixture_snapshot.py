"""Write fixtures/snapshots/cluster.yaml (and its copy fixtures/rules/WAS606/snapshot.yaml): the
embedded demo cluster of `waslint feasibility`.

Two zones, four racks of H100 nodes (8 GPUs each, tainted nvidia.com/gpu=true:NoSchedule), a CPU
pool per zone, one GPU node NotReady and one cordoned, running training pods that leave the free
GPUs spread over the racks, DaemonSet pods on every node, KAI's PriorityClasses and a KAI queue
tree (ml > research > sweeps, ml > prod) whose use is the training pods labelled with their
queue. The shape is `kubectl get nodes,pods,priorityclasses,queues -A -o yaml`.

    python scripts/gen_fixture_snapshot.py            # rewrite the fixture
    python scripts/gen_fixture_snapshot.py --check    # exit 1 when the fixture is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OUT = FIXTURES / "snapshots" / "cluster.yaml"
COPIES = (OUT, FIXTURES / "rules" / "WAS606" / "snapshot.yaml")  # the rule fixture runs in a copy of its folder
ZONE, RACK, HOST = "topology.kubernetes.io/zone", "topology.kubernetes.io/rack", "kubernetes.io/hostname"
RACKS = {"rack-a1": "zone-a", "rack-a2": "zone-a", "rack-b1": "zone-b", "rack-b2": "zone-b"}
# GPUs in use per GPU node of each rack (8 per node): the free GPUs end up fragmented
GPU_USED = {"rack-a1": [8, 8, 4, 0], "rack-a2": [8, 2, 0, 0], "rack-b1": [8, 8, 8, 2], "rack-b2": [6, 0, 0, 0]}
NOT_READY = {"gpu-b2-4"}
LOW_PRIORITY_RACKS = {"rack-b1"}  # its GPUs run preemptible sweeps: `--preempt` has something to evict
LOW_PRIORITY_JOB = ("hparam-sweep", "preemptible")
CORDONED = {"gpu-a2-4"}
# The KAI queue each training job's pods are charged to: the sweeps hold 26 GPUs of their queue's
# limit of 32, so the sweep gang of fixtures/queues/ (8 more GPUs) is over quota, not out of capacity.
QUEUE_OF_JOB = {"pretrain": "research", "hparam-sweep": "sweeps"}


def node(
    name: str, labels: dict[str, str], allocatable: dict[str, str], taints: list[dict[str, str]]
) -> dict[str, Any]:
    ready = "False" if name in NOT_READY else "True"
    spec: dict[str, Any] = {"taints": [dict(taint) for taint in taints]} if taints else {}
    if name in CORDONED:
        spec["unschedulable"] = True
        spec.setdefault("taints", []).append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {HOST: name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", **labels},
        },
        "spec": spec,
        "status": {
            "allocatable": allocatable,
            "capacity": allocatable,
            "conditions": [
                {"type": "Ready", "status": ready, "reason": "KubeletReady" if ready == "True" else "NodeStatusUnknown"}
            ],
        },
    }


def pod(name: str, namespace: str, node_name: str, requests: dict[str, str], **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "nodeName": node_name,
        "containers": [{"name": "main", "image": "registry.example.com/app:1.0", "resources": {"requests": requests}}],
    }
    spec.update(extra.pop("spec", {}))
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, **extra.pop("metadata", {})},
        "spec": spec,
        "status": {"phase": extra.pop("phase", "Running")},
    }


def build() -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    gpu_taint = [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]
    gpu_allocatable = {
        "cpu": "96",
        "memory": "1000Gi",
        "nvidia.com/gpu": "8",
        "pods": "110",
        "ephemeral-storage": "3Ti",
    }
    for rack, zone in RACKS.items():
        for number, used in enumerate(GPU_USED[rack], start=1):
            name = f"gpu-{rack.removeprefix('rack-')}-{number}"
            labels = {
                ZONE: zone,
                RACK: rack,
                "pool": "gpu",
                "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                "nvidia.com/gpu.memory": "81559",
            }
            items.append(node(name, labels, gpu_allocatable, gpu_taint))
            if used:
                job, priority = LOW_PRIORITY_JOB if rack in LOW_PRIORITY_RACKS else ("pretrain", "train")
                items.append(
                    pod(
                        f"{job}-{name}",
                        "research",
                        name,
                        {"cpu": str(used * 4), "memory": f"{used * 40}Gi", "nvidia.com/gpu": str(used)},
                        spec={
                            "priorityClassName": priority,
                            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
                        },
                        metadata={
                            "labels": {"app": job, "kai.scheduler/queue": QUEUE_OF_JOB[job]},
                            "annotations": {"pod-group-name": job},
                        },
                    )
                )
    for zone in ("zone-a", "zone-b"):
        for number in range(1, 5):
            name = f"cpu-{zone.removeprefix('zone-')}-{number}"
            labels = {ZONE: zone, RACK: f"rack-{zone[-1]}cpu", "pool": "cpu"}
            items.append(node(name, labels, {"cpu": "64", "memory": "256Gi", "pods": "110"}, []))
            items.append(
                pod(
                    f"api-{name}",
                    "prod",
                    name,
                    {"cpu": "24", "memory": "64Gi"},
                    spec={"priorityClassName": "inference"},
                )
            )
    for item in list(items):
        if item["kind"] == "Node":
            name = item["metadata"]["name"]
            items.append(
                pod(
                    f"node-exporter-{name}",
                    "monitoring",
                    name,
                    {"cpu": "100m", "memory": "128Mi"},
                    spec={"priorityClassName": "system-node-critical", "tolerations": [{"operator": "Exists"}]},
                    metadata={
                        "ownerReferences": [
                            {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "node-exporter", "controller": True}
                        ]
                    },
                )
            )
    items.append(pod("finished-eval", "research", "gpu-b2-2", {"nvidia.com/gpu": "8"}, phase="Succeeded"))
    items += priority_classes()
    items += queues()
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def priority_classes() -> list[dict[str, Any]]:
    values = {"preemptible": 10, "train": 50, "build": 100, "inference": 125, "system-node-critical": 2000001000}
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "preemptionPolicy": "PreemptLowerPriority",
        }
        for name, value in values.items()
    ]


def queues() -> list[dict[str, Any]]:
    def queue(name: str, parent: str | None, gpu_quota: int, gpu_limit: int) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "resources": {
                "gpu": {"quota": gpu_quota, "limit": gpu_limit, "overQuotaWeight": 1},
                "cpu": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
                "memory": {"quota": -1, "limit": -1, "overQuotaWeight": 1},
            }
        }
        if parent:
            spec["parentQueue"] = parent
        return {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}, "spec": spec}

    return [
        queue("ml", None, 128, -1),
        queue("research", "ml", 96, 128),
        queue("sweeps", "research", 16, 32),
        queue("prod", "ml", 32, 64),
    ]


def render() -> str:
    header = "# Generated by scripts/gen_fixture_snapshot.py: the demo cluster of `waslint feasibility`.\n"
    return header + yaml.safe_dump(build(), sort_keys=False, width=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when the fixture is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        return 0 if all(path.exists() and path.read_text() == text for path in COPIES) else 1
    for path in COPIES:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
