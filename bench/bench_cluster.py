"""Benchmark `waslint snapshot capture` and `waslint audit` against the test API server.

The cluster is served by tests/apiserver.py (in this process, plain HTTP on 127.0.0.1) and read by
waslint in a child process, whose peak RSS (its own VmHWM) and wall time are reported per cluster
size and page size. A size is NODES:PODS:JOBS: 250 standalone gangs (a Workload, a PodGroup and 8
member Pods each), then JOBS Jobs run as 1.37 runs them (`spec.scheduling` gang of 4, the Workload
and PodGroup the Job controller makes, 4 member Pods owned by the Job), then plain Pods up to PODS,
on NODES Nodes. The second default size doubles the first, so the two rows show whether time and
memory grow linearly with the cluster.

    python bench/bench_cluster.py                       # 5,000:50,000:10,000 and 10,000:100,000:20,000, pages of 500
    python bench/bench_cluster.py --sizes 10000:100000:20000 --pages 500,2000 --json bench/out/cluster.json
    python bench/bench_cluster.py --sizes 10000:100000:20000 --namespaces 1   # the audit's worst case

The objects are spread over 50 namespaces (`--namespaces`): the audit lints a group of whole
namespaces at a time, so its memory follows the largest namespace, not the cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from apiserver import APIServer, FakeCluster, ResourceType  # noqa: E402
from clusters import CORE, wg  # noqa: E402

GANGS = 250
GANG_SIZE = 8
JOB_SIZE = 4
NAMESPACES = 50  # --namespaces: the objects are spread over team-00, team-01, ...


def _namespace(index: int) -> str:
    return f"team-{index % NAMESPACES:02d}"


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
            "namespace": _namespace(index),
            "uid": f"pod-uid-{index}",
            "labels": {"app": "bench"},
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": spec,
        "status": {"phase": "Running"},
    }


def _owner(kind: str, api_version: str, name: str, uid: str) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, "controller": True}


MANAGED = [  # what every stored object carries; the audit drops it, the server sends it
    {
        "manager": "kube-controller-manager",
        "operation": "Update",
        "apiVersion": "batch/v1",
        "time": "2026-01-01T00:00:00Z",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {"f:active": {}, "f:ready": {}, "f:startTime": {}}},
    }
]


def _job(index: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A 1.37 Job with a gang of JOB_SIZE, and the Workload and PodGroup its controller made."""
    name, namespace = f"job-{index:06d}", _namespace(index)
    job_uid, workload_uid = f"job-uid-{index}", f"job-wl-uid-{index}"
    policy = {"gang": {"minCount": JOB_SIZE}}
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": job_uid,
            "labels": {"app": "bench"},
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "managedFields": MANAGED,
        },
        "spec": {
            "parallelism": JOB_SIZE,
            "completions": JOB_SIZE,
            "completionMode": "Indexed",
            "scheduling": {"schedulingPolicy": policy},
            "template": {"metadata": {"labels": {"app": "bench"}}, "spec": dict(SPEC, restartPolicy="Never")},
        },
        "status": {"active": JOB_SIZE, "ready": JOB_SIZE, "startTime": "2026-01-01T00:00:00Z"},
    }
    workload = {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": workload_uid,
            "ownerReferences": [_owner("Job", "batch/v1", name, job_uid)],
        },
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": name},
            "podGroupTemplates": [{"name": "workers", "schedulingPolicy": policy}],
        },
    }
    podgroup = {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"job-pg-uid-{index}",
            "ownerReferences": [_owner("Workload", "scheduling.k8s.io/v1beta1", name, workload_uid)],
        },
        "spec": {"workloadRef": {"workloadName": name, "templateName": "workers"}, "schedulingPolicy": policy},
    }
    return job, workload, podgroup


def _job_pod(member: int, job: dict[str, Any], nodes: int) -> dict[str, Any]:
    metadata = job["metadata"]
    pod = _pod(member, nodes, metadata["name"])
    pod["metadata"]["namespace"] = metadata["namespace"]
    pod["metadata"]["ownerReferences"] = [_owner("Job", "batch/v1", metadata["name"], metadata["uid"])]
    pod["metadata"]["managedFields"] = MANAGED
    return pod


def _gang(cluster: FakeCluster, resource: dict[str, ResourceType], gang: int) -> tuple[str, str]:
    namespace, name = _namespace(gang), f"gang-{gang:04d}"
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
                "ownerReferences": [_owner("Workload", "scheduling.k8s.io/v1beta1", name, f"wl-{gang}")],
            },
            "spec": {"workloadRef": {"workloadName": name, "templateName": "workers"}, "schedulingPolicy": policy},
        },
    )
    return namespace, name


def build(nodes: int, pods: int, jobs: int = 0) -> FakeCluster:
    if pods < GANGS * GANG_SIZE + jobs * JOB_SIZE:
        raise SystemExit(f"{pods} pods cannot hold {GANGS} gangs of {GANG_SIZE} and {jobs} Jobs of {JOB_SIZE}")
    cluster = FakeCluster(git_version="v1.37.1", resources=list(CORE))
    cluster.resources += [wg("v1beta1", "workloads", "Workload"), wg("v1beta1", "podgroups", "PodGroup")]
    resource = {r.plural: r for r in cluster.resources if r.group in ("", "scheduling.k8s.io", "batch")}
    cluster.objects[("", "v1", "nodes")] = [_node(index) for index in range(nodes)]
    items = []
    member = 0
    for gang in range(GANGS):
        namespace, name = _gang(cluster, resource, gang)
        for _ in range(GANG_SIZE):
            pod = _pod(member, nodes, name)
            pod["metadata"]["namespace"] = namespace
            items.append(pod)
            member += 1
    for index in range(jobs):
        job, workload, podgroup = _job(index)
        cluster.add(resource["jobs"], job)
        cluster.add(resource["workloads"], workload)
        cluster.add(resource["podgroups"], podgroup)
        for _ in range(JOB_SIZE):
            items.append(_job_pod(member, job, nodes))
            member += 1
    items.extend(_pod(index, nodes) for index in range(member, pods))
    cluster.objects[("", "v1", "pods")] = items
    cluster.tokens = {"bench-token"}
    cluster.apiserver_gates = {"GenericWorkload": ("BETA", True), "WorkloadWithJob": ("ALPHA", True)}
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


def run_child(args: list[str], output: Path | None = None) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds, peak RSS in MB and exit status of `python -m waslint ARGS` (its
    standard output written to OUTPUT, or dropped). The CPU time is the child's own: on shared
    cores the wall time also holds the server's work and other jobs'."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with open(output or os.devnull, "wb") as stdout:
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        child = subprocess.run(
            [sys.executable, "-c", CHILD, *args], env=env, stdout=stdout, stderr=subprocess.PIPE, check=False
        )
        elapsed = time.perf_counter() - started
        cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    stderr = child.stderr.decode(errors="replace")
    peaks = [int(line.split()[1]) for line in stderr.splitlines() if line.startswith("BENCH-VmHWM")]
    if not peaks:
        raise SystemExit(f"waslint {' '.join(args)} did not report its peak:\n{stderr}")
    return elapsed, cpu, peaks[0] / 1024, child.returncode


def main() -> None:
    global NAMESPACES
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="5000:50000:10000,10000:100000:20000", help="NODES:PODS:JOBS,...")
    parser.add_argument("--pages", default="500", help="page sizes")
    parser.add_argument("--commands", default="capture,audit", help="which of capture and audit to run")
    parser.add_argument("--json", help="write the measurements there")
    parser.add_argument("--reports", help="keep each audit's JSON report in this folder")
    parser.add_argument("--namespaces", type=int, default=50, help="how many namespaces hold the objects")
    options = parser.parse_args()
    NAMESPACES = options.namespaces
    rows = []
    workdir = Path(tempfile.mkdtemp(prefix="waslint-bench-"))
    reports = Path(options.reports) if options.reports else None
    if reports is not None:
        reports.mkdir(parents=True, exist_ok=True)
    commands = {
        "capture": ["snapshot", "capture", "-o", str(workdir / "snap.json")],
        "audit": ["audit", "--format", "json", "--kubelets", "0"],
    }
    for size in options.sizes.split(","):
        nodes, pods, jobs = (int(part) for part in [*size.split(":"), "0"][:3])
        cluster = build(nodes, pods, jobs)
        objects = sum(len(items) for items in cluster.objects.values())
        with APIServer(cluster) as server:
            kubeconfig = server.write_kubeconfig(workdir / "kubeconfig", token="bench-token")
            for page in (int(p) for p in options.pages.split(",")):
                for command in options.commands.split(","):
                    report = None
                    if command == "audit" and reports is not None:
                        report = reports / f"audit-{nodes}-{pods}-{jobs}-page{page}.json"
                    args = [*commands[command], "--kubeconfig", str(kubeconfig), "--page-size", str(page)]
                    seconds, cpu, rss, status = run_child(args, report)
                    rows.append(
                        {
                            "command": command,
                            "nodes": nodes,
                            "pods": pods,
                            "jobs": jobs,
                            "namespaces": NAMESPACES,
                            "objects": objects,
                            "page_size": page,
                            "seconds": round(seconds, 2),
                            "cpu_seconds": round(cpu, 2),
                            "objects_per_second": round(objects / seconds),
                            "peak_rss_mb": round(rss, 1),
                            "exit": status,
                        }
                    )
                    print(
                        f"{command:8} {nodes:>6,} nodes {pods:>8,} pods {jobs:>7,} jobs {NAMESPACES:>3} ns"
                        f" ({objects:,} objects)"
                        f"  page {page:>5}  {seconds:6.1f} s ({cpu:5.1f} s cpu)  {objects / seconds:>8,.0f} objects/s"
                        f"  peak RSS {rss:6.1f} MB  exit {status}",
                        flush=True,
                    )
            methods = {request.method for request in server.requests}
            print(f"           requests: {len(server.requests)}, methods {sorted(methods)}")
    if options.json:
        Path(options.json).parent.mkdir(parents=True, exist_ok=True)
        Path(options.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
