"""`waslint snapshot capture` against the test API server: the snapshot loads, feeds lint, holds no secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from clusters import SECRET_STRINGS, cluster_137, with_queues

from conftest import in_process, run_cli
from waslint.sources.snapshot import load_snapshot

GANG = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
  namespace: ml
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  schedulingConstraints:
    topology:
    - key: {key}
"""


def capture(kubeconfig: Path, output: Path, *flags: str, real: bool = False) -> Any:
    run = run_cli if real else in_process
    result = run("snapshot", "capture", "-o", str(output), "--kubeconfig", str(kubeconfig), *flags)
    assert result.returncode == 0, result.stderr
    return result


def test_capture_loads_as_a_snapshot_without_secrets(serve: Any, tmp_path: Path) -> None:
    server, kubeconfig = serve(cluster_137(nodes=4))
    output = tmp_path / "snap.json"
    result = capture(kubeconfig, output, "--page-size", "2", real=True)
    assert (
        "captured 4 nodes, 4 pods, 1 priority classes, 4 resource slices, 1 KAI queues, 1 Kueue topologies"
        in result.stderr
    )
    text = output.read_text()
    for secret in SECRET_STRINGS:
        assert secret not in text
    for field in ('"env"', '"command"', '"args"', '"volumes"', '"volumeMounts"', '"annotations"', "managedFields"):
        assert field not in text
    snapshot = load_snapshot(str(output))
    assert snapshot.problems == []
    assert snapshot.summary() == {
        "nodes": 4,
        "pods": 4,  # 2 trainers, the scheduler and the controller-manager
        "priority_classes": 1,
        "queues": 1,
        "resource_slices": 4,
        "topologies": 1,
        "kueue_objects": 0,
        "volcano_queues": 0,
    }
    pod = next(pod.data for pod in snapshot.pods if pod.name == "trainer-0")
    assert pod["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] == "1"
    assert pod["spec"]["schedulingGroup"] == {"podGroupName": "trainer-workers"}
    assert pod["spec"]["nodeName"] == "gpu-node-0" and pod["status"]["phase"] == "Running"
    node = snapshot.nodes[0].data
    assert node["status"]["allocatable"]["nvidia.com/gpu"] == "8" and node["spec"]["taints"]
    assert server.methods() == {"GET"}
    requested = set(server.paths())
    assert not any("secrets" in path or "configmaps" in path for path in requested)
    assert sum(path == "/api/v1/nodes" for path in server.paths()) == 2  # 4 nodes, pages of 2


def test_captured_snapshot_feeds_the_snapshot_rules(serve: Any, tmp_path: Path) -> None:
    _, kubeconfig = serve(cluster_137())
    output = tmp_path / "snap.yaml"
    capture(kubeconfig, output)
    assert yaml.safe_load(output.read_text())["kind"] == "List"
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(GANG.format(key="topology.kubernetes.io/zone"))
    bad.write_text(GANG.format(key="rack.example.com/name"))
    result = run_cli("lint", "--snapshot", str(output), "--format", "json", "--select", "WAS603", str(good), str(bad))
    findings = json.loads(result.stdout)["findings"]
    assert [(Path(f["path"]).name, f["code"]) for f in findings] == [("bad.yaml", "WAS603")]


def test_namespace_selector_and_redaction(serve: Any, tmp_path: Path) -> None:
    server, kubeconfig = serve(cluster_137())
    output = tmp_path / "shared.json"
    capture(kubeconfig, output, "--namespace", "ml", "--selector", "app=trainer", "--redact-names")
    pods = [item for item in json.loads(output.read_text())["items"] if item["kind"] == "Pod"]
    assert len(pods) == 2
    names = {pod["metadata"]["name"] for pod in pods}
    assert all(name.startswith("pod-") for name in names) and "trainer-0" not in output.read_text()
    assert {pod["metadata"]["namespace"] for pod in pods} == {pods[0]["metadata"]["namespace"]} != {"ml"}
    # one salted hash per capture: both members still point at the same PodGroup
    assert len({pod["spec"]["schedulingGroup"]["podGroupName"] for pod in pods}) == 1
    pod_lists = [request for request in server.requests if request.path.endswith("/pods")]
    assert [request.path for request in pod_lists] == ["/api/v1/namespaces/ml/pods"]
    assert pod_lists[0].query["labelSelector"] == ["app=trainer"]


def test_optional_resource_forbidden_is_a_warning_required_one_fails(serve: Any, tmp_path: Path) -> None:
    cluster = cluster_137()
    cluster.forbidden = {("scheduling.run.ai", "queues")}
    _, kubeconfig = serve(cluster)
    result = capture(kubeconfig, tmp_path / "snap.json")
    assert "warning: KAI queues not captured: GET /apis/scheduling.run.ai/v2/queues: 403 Forbidden" in result.stderr
    denied = cluster_137()
    denied.forbidden = {("", "pods")}
    _, kubeconfig = serve(denied)
    output = tmp_path / "denied.json"
    failed = in_process("snapshot", "capture", "-o", str(output), "--kubeconfig", str(kubeconfig))
    assert failed.returncode == 2
    assert failed.stderr.startswith("waslint: error: GET /api/v1/pods: 403 Forbidden")
    assert "Traceback" not in failed.stderr
    assert not output.exists() and list(tmp_path.glob("denied.json*")) == []


@pytest.mark.parametrize("case", ["unreachable", "html", "bad-timeout"])
def test_capture_failures_are_one_line_exit_2(serve: Any, tmp_path: Path, case: str) -> None:
    cluster = cluster_137()
    cluster.html_proxy = case == "html"
    server, kubeconfig = serve(cluster)
    flags = ["--request-timeout", "soon"] if case == "bad-timeout" else []
    if case == "unreachable":
        kubeconfig.write_text(kubeconfig.read_text().replace(server.url, "https://127.0.0.1:1"))
    result = in_process("snapshot", "capture", "-o", str(tmp_path / "s.json"), "--kubeconfig", str(kubeconfig), *flags)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("waslint: error: ")


JOB_GANG = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: ml
spec:
  parallelism: {pods}
  completions: {pods}
  scheduling:
    schedulingPolicy:
      gang:
        minCount: {pods}
  template:
    spec:
      restartPolicy: Never
      tolerations:
      - operator: Exists
      containers:
      - name: train
        image: trainer:1.0
        resources:
          requests: {{nvidia.com/gpu: "{gpus}"}}
          limits: {{nvidia.com/gpu: "{gpus}"}}
"""


def test_capture_feeds_feasibility_round_trip(serve: Any, tmp_path: Path) -> None:
    """capture -> feasibility: the captured cluster (3 nodes of 8 GPUs, 2 of them busy) places a gang
    of 2 x 4 GPUs and refuses one of 4 x 8 GPUs, saying how many pods fit."""
    _, kubeconfig = serve(cluster_137())
    output = tmp_path / "snap.json"
    capture(kubeconfig, output)
    small, large = tmp_path / "small.yaml", tmp_path / "large.yaml"
    small.write_text(JOB_GANG.format(name="small", pods=2, gpus=4))
    large.write_text(JOB_GANG.format(name="large", pods=4, gpus=8))
    result = run_cli("feasibility", "--snapshot", str(output), "--format", "json", str(small), str(large))
    assert result.returncode == 1, result.stderr
    groups = {group["name"]: group for group in json.loads(result.stdout)["groups"]}
    assert groups["small"]["feasible"] is True and groups["small"]["required"] == 2
    assert sum(groups["small"]["placement"].values()) >= 2
    assert groups["large"]["feasible"] is False and groups["large"]["required"] == 4
    assert groups["large"]["placeable"] < 4


KUEUE_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: tuned
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: team
spec:
  parallelism: 1
  template:
    spec:
      restartPolicy: Never
      tolerations:
      - key: nvidia.com/gpu
        operator: Exists
      containers:
      - name: train
        image: trainer:1.0
        resources:
          requests: {nvidia.com/gpu: "4"}
"""


def test_capture_takes_the_queues_and_feeds_admission(serve: Any, tmp_path: Path) -> None:
    """Kueue ClusterQueues, LocalQueues, ResourceFlavors and Workloads and Volcano Queues are
    captured (read only, paged), reduced to what admission reads; the captured admitted Workload
    holds 6 of the ClusterQueue's 8 GPUs, so a 4-GPU Job is over quota although nodes are free."""
    server, kubeconfig = serve(with_queues(cluster_137()))
    output = tmp_path / "snap.json"
    result = capture(kubeconfig, output, "--page-size", "1")
    assert (
        "1 KAI queues, 1 Kueue topologies, 1 Kueue ClusterQueues, 1 Kueue LocalQueues, 1 Kueue ResourceFlavors,"
        " 1 Kueue Workloads, 1 Volcano queues" in result.stderr
    )
    text = output.read_text()
    for secret in (*SECRET_STRINGS, "private message", "podSets"):
        assert secret not in text
    snapshot = load_snapshot(str(output))
    assert snapshot.summary()["kueue_objects"] == 4 and snapshot.summary()["volcano_queues"] == 1
    queued = next(pod.data for pod in snapshot.pods if pod.name == "queued-0")
    assert queued["metadata"]["labels"] == {"kai.scheduler/queue": "research"}  # no other label kept
    assert server.methods() == {"GET"}
    assert sum(path == "/apis/kueue.x-k8s.io/v1beta2/workloads" for path in server.paths()) >= 1
    job = tmp_path / "job.yaml"
    job.write_text(KUEUE_JOB)
    checked = in_process("feasibility", "--snapshot", str(output), "--format", "json", str(job))
    group = json.loads(checked.stdout)["groups"][0]
    assert checked.returncode == 1 and group["blocked_by_quota"] is True
    assert "insufficient unused quota for nvidia.com/gpu in flavor default, 2 more needed" in group["reasons"][0]
