"""The live reader (waslint.sources.cluster) against the test API server: connection, discovery, paging."""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from apiserver import make_other_ca
from clusters import cluster_136, cluster_137

from waslint.sources.cluster.connection import ClusterError, ConnectOptions, RequestFailed, connect, parse_timeout
from waslint.sources.cluster.discovery import discover
from waslint.sources.cluster.lists import iter_items


def open_connection(kubeconfig: Path, **options: Any) -> Any:
    return connect(ConnectOptions(kubeconfig=str(kubeconfig), **options))


def was_resources(discovery: Any) -> set[tuple[str, str, str]]:
    return {(r.version, r.plural, r.kind) for r in discovery.resources if r.group == "scheduling.k8s.io"}


@pytest.mark.parametrize("aggregated", [True, False])
def test_discovery_reads_served_versions(serve: Any, aggregated: bool) -> None:
    cluster = cluster_136()
    cluster.aggregated_discovery = aggregated
    server, kubeconfig = serve(cluster)
    discovery = discover(open_connection(kubeconfig), groups=["", "scheduling.k8s.io"])
    assert discovery.aggregated is aggregated
    assert discovery.server_version == "v1.36.4"
    assert was_resources(discovery) == {
        ("v1", "priorityclasses", "PriorityClass"),
        ("v1alpha2", "workloads", "Workload"),
        ("v1alpha2", "podgroups", "PodGroup"),
    }
    assert discovery.versions("scheduling.k8s.io") == ["v1", "v1alpha2"]
    pods = discovery.preferred("", "pods")
    assert pods is not None and pods.namespaced and pods.path("ml") == "/api/v1/namespaces/ml/pods"
    # the fallback path asks only for the group versions it was told to
    assert "/apis/batch/v1" not in set(server.paths())


def test_lists_are_paged_and_restart_on_410(serve: Any) -> None:
    cluster = cluster_137(nodes=7)
    cluster.expire_continues = 1
    server, kubeconfig = serve(cluster)
    connection = open_connection(kubeconfig)
    nodes = discover(connection).preferred("", "nodes")
    assert nodes is not None
    names = [item["metadata"]["name"] for item in iter_items(connection, nodes, page_size=3)]
    assert names == [f"gpu-node-{index}" for index in range(7)]
    node_lists = [request for request in server.requests if request.path == "/api/v1/nodes"]
    # page 1, expired continue, restart page 1, page 2, page 3
    assert len(node_lists) == 5
    assert sum("continue" not in request.query for request in node_lists) == 2
    assert all(request.query["limit"] == ["3"] for request in node_lists)


def test_selector_and_namespace_reach_the_server(serve: Any) -> None:
    server, kubeconfig = serve(cluster_137())
    connection = open_connection(kubeconfig)
    pods = discover(connection).preferred("", "pods")
    assert pods is not None
    assert len(list(iter_items(connection, pods, namespace="ml", selector="app=trainer"))) == 2
    assert list(iter_items(connection, pods, namespace="ml", selector="app=other")) == []
    assert server.requests[-1].path == "/api/v1/namespaces/ml/pods"
    assert server.requests[-1].query["labelSelector"] == ["app=other"]


def test_a_forbidden_resource_is_a_request_failure(serve: Any) -> None:
    cluster = cluster_137()
    cluster.forbidden = {("", "pods")}
    _, kubeconfig = serve(cluster)
    connection = open_connection(kubeconfig)
    pods = discover(connection).preferred("", "pods")
    assert pods is not None
    with pytest.raises(RequestFailed) as raised:
        list(iter_items(connection, pods))
    assert raised.value.status == 403 and "cannot list" in str(raised.value)


def fake_jwt(expires: float) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part({'exp': int(expires), 'sub': 'ci'})}.c2ln"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one_line(error: pytest.ExceptionInfo[ClusterError]) -> str:
    text = str(error.value)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_bad_token_expired_token_and_bad_context(serve: Any) -> None:
    _, wrong = serve(cluster_137(), token="wrong")
    with pytest.raises(ClusterError) as rejected:
        open_connection(wrong)
    assert "rejected the credentials (401 Unauthorized)" in one_line(rejected)
    _, expired = serve(cluster_137(), token=fake_jwt(time.time() - 3600))
    with pytest.raises(ClusterError) as expired_error:
        open_connection(expired)
    assert "the token expired at" in one_line(expired_error)
    with pytest.raises(ClusterError) as no_context:
        open_connection(wrong, context="prod")
    assert "no context named 'prod'" in one_line(no_context)


def test_unreachable_slow_and_html_proxy(serve: Any, tmp_path: Path) -> None:
    server, kubeconfig = serve(cluster_137())
    text = kubeconfig.read_text().replace(server.url, f"https://127.0.0.1:{free_port()}")
    (tmp_path / "down").write_text(text)
    with pytest.raises(ClusterError) as down:
        open_connection(tmp_path / "down", request_timeout=2)
    assert "cannot reach the cluster at https://127.0.0.1:" in one_line(down)
    assert "connection refused" in str(down.value)
    slow = cluster_137()
    slow.slow = {"/version": 2.0}
    _, slow_config = serve(slow)
    with pytest.raises(ClusterError) as timed_out:
        open_connection(slow_config, request_timeout=0.3)
    assert "did not answer within 0.3s (--request-timeout)" in one_line(timed_out)
    portal = cluster_137()
    portal.html_proxy = True
    _, portal_config = serve(portal)
    with pytest.raises(ClusterError) as html:
        open_connection(portal_config)
    assert "answered GET /version with an HTML page" in one_line(html)


def test_tls_is_verified_unless_the_kubeconfig_says_otherwise(serve: Any, tmp_path: Path) -> None:
    other_ca = make_other_ca(tmp_path)
    _, wrong_ca = serve(cluster_137(), ca=other_ca)
    with pytest.raises(ClusterError) as untrusted:
        open_connection(wrong_ca)
    assert "TLS verification of the cluster at https://127.0.0.1" in one_line(untrusted)
    _, insecure = serve(cluster_137(), insecure=True)
    connection = open_connection(insecure)
    assert connection.context == "test" and connection.insecure


def test_request_timeout_spellings() -> None:
    assert parse_timeout("30s") == 30 and parse_timeout("2m") == 120 and parse_timeout("500ms") == 0.5
    assert parse_timeout("0") == 30 and parse_timeout("5") == 5
    with pytest.raises(ValueError, match="invalid --request-timeout"):
        parse_timeout("soon")


def test_lint_start_up_does_not_import_the_kubernetes_client(tmp_path: Path) -> None:
    import os
    import sys

    from conftest import ROOT

    probe = (
        "import atexit, runpy, sys\n"
        "heavy = ('kubernetes', 'urllib3', 'waslint.sources.cluster', 'waslint.audit')\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in heavy"
        " or m.startswith(heavy))))\n"
        "sys.argv = ['waslint', 'lint', sys.argv[1]]\n"
        "runpy.run_module('waslint', run_name='__main__')\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    result = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, env=env)
    assert "LOADED []" in result.stdout, result.stdout + result.stderr
