"""scripts/gen_validation.py: the upstream declarative-validation data is regenerable and current."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GEN = REPO / "scripts" / "gen_validation.py"
DATA = REPO / "src" / "waslint" / "knowledge" / "validation-data"
UPSTREAM = REPO.parent / "shared" / "upstream" / "kubernetes-api"

needs_upstream = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="../shared/upstream not present")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(GEN), *args], capture_output=True, text=True, cwd=REPO)


@needs_upstream
def test_committed_data_is_current() -> None:
    result = _run("--source", str(UPSTREAM), "--check")
    assert result.returncode == 0, result.stderr


@needs_upstream
def test_check_detects_drift_and_extra_files(tmp_path: Path) -> None:
    out = tmp_path / "validation-data"
    shutil.copytree(DATA, out)
    target = out / "1.37.json"
    target.write_text(target.read_text().replace('"value": 8', '"value": 9', 1))
    (out / "9.99.json").write_text("{}\n")
    result = _run("--source", str(UPSTREAM), "--check", "--out", str(out))
    assert result.returncode == 1
    assert "1.37.json is stale" in result.stderr
    assert "9.99.json is stale" in result.stderr


@needs_upstream
def test_unknown_marker_fails_loudly(tmp_path: Path) -> None:
    source = tmp_path / "api"
    shutil.copytree(UPSTREAM, source)
    types = source / "1.37" / "scheduling" / "v1beta1" / "types.go"
    types.write_text(types.read_text().replace("// +k8s:maxItems=1", "// +k8s:frobnicate=1", 1))
    result = _run("--source", str(source), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "+k8s:frobnicate=1 is not understood" in result.stderr


def test_data_reflects_the_markers() -> None:
    data = json.loads((DATA / "1.37.json").read_text())
    assert data["kinds"]["scheduling.k8s.io/v1beta1/Workload"] == "scheduling/v1beta1.Workload"
    assert "scheduling.k8s.io/v1beta1/CompositePodGroup" not in data["kinds"]
    spec = data["types"]["scheduling/v1beta1.WorkloadSpec"]
    assert spec["unions"] == [{"members": ["podGroupTemplates", "compositePodGroupTemplates"]}]
    composite = spec["fields"]["compositePodGroupTemplates"]["rules"]
    assert {"rule": "forbidden", "gate": ["CompositePodGroup", False]} in composite
    assert {"rule": "maxItems", "value": 8} in composite
    policy = data["types"]["scheduling/v1beta1.PodGroupTemplate"]["fields"]["preemptionPolicy"]
    assert policy["enum"] == ["PreemptLowerPriority", "Never"]
    job = data["types"]["batch/v1.JobSpec"]["fields"]["scheduling"]
    assert job["type"] == "batch/v1.JobSchedulingConfiguration"
    # the 1.35 embedded PodGroup struct is not a kind
    assert list(json.loads((DATA / "1.35.json").read_text())["kinds"]) == ["scheduling.k8s.io/v1alpha1/Workload"]
