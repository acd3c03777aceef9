"""The public-chart test set, as minimal hand-written reproductions (`tests/data/helm-constructs/`):
each template holds one construct of a real chart that made `WAS001` fire although `helm template`
renders it, with a comment naming the repository, path and commit where it was seen.
`scripts/chart_check.py` runs the same check over a folder of real charts (README, "Helm chart
sources"); the figure for the fetched charts is in the README."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, lint_path
from waslint.io.helmtext import PLACEHOLDER
from waslint.io.loader import parse_bytes

CONSTRUCTS = ROOT / "tests" / "data" / "helm-constructs"
TEMPLATES = sorted(CONSTRUCTS.glob("*/templates/*.yaml"))


def _data(relative: str) -> dict:  # type: ignore[type-arg]
    source = parse_bytes(relative, (CONSTRUCTS / relative).read_bytes())
    assert source.template is not None and source.problems == [], [p.message for p in source.problems]
    [doc] = source.documents
    data: dict = doc.data  # type: ignore[type-arg]
    return data


@pytest.mark.parametrize("path", TEMPLATES, ids=[f"{p.parent.parent.name}/{p.name}" for p in TEMPLATES])
def test_every_construct_reads_as_yaml_and_names_where_it_was_seen(path: Path) -> None:
    text = path.read_text()
    assert text.startswith("# Seen in ") or text.startswith("# The construct issue 20") or "# Issue 20" in text
    source = parse_bytes(str(path), path.read_bytes())
    assert source.problems == [], [p.message for p in source.problems]


def test_the_set_lints_with_only_the_gpu_request_finding() -> None:
    found = [
        (Path(f.path).relative_to(CONSTRUCTS).as_posix(), f.span.line, f.code) for f in lint_path(CONSTRUCTS).findings
    ]
    assert found == [("issue-20/templates/gpu-job.yaml", 15, "WAS502")]


def test_what_each_construct_reads_as() -> None:
    assert PLACEHOLDER in _data("argo-helm/templates/pdb.yaml")["spec"]["minAvailable"]  # the first branch
    spread = _data("argo-helm/templates/spread.yaml")["spec"]["template"]["spec"]
    [constraint] = spread["topologySpreadConstraints"]
    assert "labelSelector" in constraint  # the item the action starts is a mapping
    [argument] = spread["containers"][0]["args"]
    assert argument.startswith("--metrics-addr=:" + PLACEHOLDER)  # still a string
    assert "instanceID" in _data("argo-helm/templates/config.yaml")["data"]["config"]
    assert (
        _data("argo-helm/templates/crds-job.yaml")["spec"]["template"]["spec"]["containers"][0]["command"][0]
        == "kubectl"
    )
    issuer = _data("kueue/templates/certificate.yaml")["spec"]
    assert PLACEHOLDER in issuer["issuerRef"] and issuer["secretName"].endswith("-webhook-server-cert")
    assert "kind: Topology" in _data("kueue/templates/resources.yaml")["data"]["resources.yaml"]
    container = _data("kai-scheduler/templates/crd-upgrader.yaml")["spec"]["template"]["spec"]["containers"][0]
    assert "securityContext" in container
    daemon = _data("koordinator-charts/templates/daemonset.yaml")["spec"]["template"]["spec"]["containers"][0]
    assert daemon["terminationMessagePolicy"] == "File" and "env" in daemon  # the first branch
    assert len(_data("kuberay/templates/raycluster.yaml")["spec"]["headGroupSpec"]["rayStartParams"]) == 1
    assert "priorityClassName" in _data("gpu-operator/templates/worker.yaml")["spec"]["template"]["spec"]
    assert _data("issue-20/templates/side-by-side.yaml")["data"] == {"both": "true"}


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "chart_check.py"), str(CONSTRUCTS), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_chart_check_counts_no_was001_on_the_set() -> None:
    done = _check()
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith(
        "12 template files of 7 charts (12 render), 0 WAS001 on templates that render"
    )


@pytest.mark.skipif(shutil.which("helm") is None, reason="no helm binary on PATH to decide which templates render")
def test_chart_check_with_helm_renders_every_construct() -> None:
    done = _check("--helm", str(shutil.which("helm")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(12 render), 0 WAS001" in done.stdout.splitlines()[-1]


def test_chart_check_fails_on_a_broken_template(tmp_path: Path) -> None:
    chart = tmp_path / "broken"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: broken\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: [{{ .Values.x }}\n")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "chart_check.py"), str(tmp_path)], capture_output=True, text=True
    )
    assert done.returncode == 1 and "1 WAS001 on templates that render" in done.stdout
