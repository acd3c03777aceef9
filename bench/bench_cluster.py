"""Benchmark `waslint snapshot capture` and `waslint audit` against the test API server.

The cluster is served by tests/apiserver.py (in this process, plain HTTP on 127.0.0.1) and read by
waslint in a child process, whose peak RSS (wait4's ru_maxrss) and wall time are reported per
cluster size and page size. The WAS content (Workloads, PodGroups and their member Pods) is the
same at every size; the other Pods and the Nodes grow, so a flat RSS across sizes shows that the
readers keep one page at a time.

    python bench/bench_cluster.py                       # 1,000/20,000 and 5,000/100,000, pages of 500 and 2,000
    python bench/bench_cluster.py --sizes 5000:100000 --pages 500 --json bench/out/cluster.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from apiserver import APIServer, FakeCluster  # noqa: E402
from clusters import CORE, wg  # noqa: E402

GANGS = 250
GANG_SIZE = 8


def _node(index: int) -> dict[str, Any]:
    allocatable = {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": f"node-{index:05d}",
            "labels": {
                "topology.kubernetes.io/zone": f"zone-{index % 4}",
                "kubernetes.io/hostname": f"node-{index:05d}",
            },
        },
        "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        "status": {
            "allocatable": allocatable,
            "capacity": allocatable,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
        },
    }


SPEC = {  # shared by every plain Pod: serialisation copies it, memory does not
    "containers": [
        {
            "name": "app",
            "image": "registry.example/app:1",
            "env": [{"name": "TOKEN", "value": "secret"}],
            "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
        }
    ],
    "schedulerName": "default-scheduler",
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
}


def _pod(index: int, nodes: int, group: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = dict(SPEC, nodeName=f"node-{index % nodes:05d}")
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"pod-{index:06d}",
            "namespace": f"team-{index % 50:02d}",
            "uid": f"pod-uid-{index}",
            "labels": {"app": "bench"},
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": spec,
        "status": {"phase": "Running"},
    }


def build(nodes: int, pods: int) -> FakeCluster:
    cluster = FakeCluster(git_version="v1.37.1", resources=list(CORE))
    cluster.resources += [wg("v1beta1", "workloads", "Workload"), wg("v1beta1", "podgroups", "PodGroup")]
    resource = {r.plural: r for r in cluster.resources if r.group in ("", "scheduling.k8s.io")}
    cluster.objects[("", "v1", "nodes")] = [_node(index) for index in range(nodes)]
    items = []
    member = 0
    for gang in range(GANGS):
        namespace, name = f"team-{gang % 50:02d}", f"gang-{gang:04d}"
        policy = {"gang": {"minCount": GANG_SIZE}}
        cluster.add(
            resource["workloads"],
            {
                "metadata": {"name": name, "namespace": namespace, "uid": f"wl-{gang}"},
                "spec": {"podGroupTemplates": [{"name": "workers", "schedulingPolicy": policy}]},
            },
        )
        cluster.add(
            resource["podgroups"],
            {
                "metadata": {
                    "name": name,
                    "namespace": namespace,
                    "uid": f"pg-{gang}",
                    "ownerReferences": [
                        {
                            "apiVersion": "scheduling.k8s.io/v1beta1",
                            "kind": "Workload",
                            "name": name,
                            "uid": f"wl-{gang}",
                        }
                    ],
                },
                "spec": {"workloadRef": {"workloadName": name, "templateName": "workers"}, "schedulingPolicy": policy},
            },
        )
        for _ in range(GANG_SIZE):
            pod = _pod(member, nodes, name)
            pod["metadata"]["namespace"] = namespace
            items.append(pod)
            member += 1
    items.extend(_pod(index, nodes) for index in range(member, pods))
    cluster.objects[("", "v1", "pods")] = items
    cluster.tokens = {"bench-token"}
    cluster.apiserver_gates = {"GenericWorkload": ("BETA", True)}
    return cluster


# The child reports its own high-water mark: ru_maxrss from wait4 would include the pages of this
# process (which holds the whole served cluster) at fork time, /proc/self/status VmHWM does not.
CHILD = """
import atexit, runpy, sys
def report():
    with open("/proc/self/status") as status:
        peak = next(line for line in status if line.startswith("VmHWM"))
    sys.stderr.write("BENCH-" + peak)
atexit.register(report)
sys.argv = ["waslint", *sys.argv[1:]]
runpy.run_module("waslint", run_name="__main__")
"""


def run_child(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MB and exit status of `python -m waslint ARGS`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    started = time.perf_counter()
    child = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    peak_kb = next(int(line.split()[1]) for line in child.stderr.splitlines() if line.startswith("BENCH-VmHWM"))
    return elapsed, peak_kb / 1024, child.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000:20000,5000:100000", help="NODES:PODS,...")
    parser.add_argument("--pages", default="500,2000", help="page sizes")
    parser.add_argument("--json", help="write the measurements there")
    options = parser.parse_args()
    rows = []
    workdir = Path(tempfile.mkdtemp(prefix="waslint-bench-"))
    for size in options.sizes.split(","):
        nodes, pods = (int(part) for part in size.split(":"))
        cluster = build(nodes, pods)
        objects = nodes + pods
        with APIServer(cluster) as server:
            kubeconfig = server.write_kubeconfig(workdir / "kubeconfig", token="bench-token")
            for page in (int(p) for p in options.pages.split(",")):
                for command, args in (
                    ("capture", ["snapshot", "capture", "-o", str(workdir / "snap.json")]),
                    ("audit", ["audit", "--format", "json", "--kubelets", "0"]),
                ):
                    seconds, rss, status = run_child([*args, "--kubeconfig", str(kubeconfig), "--page-size", str(page)])
                    row = {
                        "command": command,
                        "nodes": nodes,
                        "pods": pods,
                        "page_size": page,
                        "seconds": round(seconds, 2),
                        "objects_per_second": round(objects / seconds),
                        "peak_rss_mb": round(rss, 1),
                        "exit": status,
                    }
                    rows.append(row)
                    print(
                        f"{command:8} {nodes:>6,} nodes {pods:>8,} pods  page {page:>5}  {seconds:6.1f} s"
                        f"  {objects / seconds:>8,.0f} objects/s  peak RSS {rss:6.1f} MB  exit {status}",
                        flush=True,
                    )
            methods = {request.method for request in server.requests}
            print(f"           requests: {len(server.requests)}, methods {sorted(methods)}")
    if options.json:
        Path(options.json).parent.mkdir(parents=True, exist_ok=True)
        Path(options.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
