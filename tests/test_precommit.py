"""The real pre-commit program runs this repository's hooks (.pre-commit-hooks.yaml)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run_cli

PRE_COMMIT = shutil.which("pre-commit")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(PRE_COMMIT is None or shutil.which("git") is None, reason="pre-commit or git missing")
def test_pre_commit_hook_blocks_a_bad_manifest_and_passes_a_good_one(tmp_path: Path) -> None:
    repo = tmp_path / "gitops"
    repo.mkdir()
    _git(repo, "init", "-q")
    shutil.copy(FIXTURES / "rules" / "WAS103" / "bad.yaml", repo / "bad.yaml")
    shutil.copy(FIXTURES / "rules" / "WAS103" / "good.yaml", repo / "good.yaml")
    _git(repo, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"))
    env.pop("PYTHONPATH", None)

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        assert PRE_COMMIT is not None
        return subprocess.run(
            [PRE_COMMIT, "try-repo", str(ROOT), "waslint", "--files", *files],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    failing = run("bad.yaml")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "WAS103" in failing.stdout and "bad.yaml" in failing.stdout
    passing = run("good.yaml")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    # pre-commit names every staged file: `exclude` in the config must still drop a chart template
    templates = repo / "charts" / "gpu" / "templates"
    templates.mkdir(parents=True)
    (templates / "workload.yaml").write_text("{{- if .Values.gang }}\nkind: {{ .Values.kind }\n{{- end }}\n")
    (repo / ".waslint.yaml").write_text("exclude: [charts/*/templates]\n")
    _git(repo, "add", ".")
    excluded = run("charts/gpu/templates/workload.yaml", "good.yaml")
    assert excluded.returncode == 0, excluded.stdout + excluded.stderr


PODGROUP = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: ml
spec:
  schedulingPolicy:
    basic: {}
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
spec:
  schedulingGroup:
    podGroupName: {group}
  containers:
  - name: main
    image: trainer:1.0
"""
HELM_TEMPLATE = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: {{ .Release.Name }}
spec:
  {{- if .Values.gang }}
  schedulingPolicy: {gang: {minCount: {{ .Values.size }}}}
  {{- end }}
  {{ toYaml .Values.extra | nindent 2 }}: [
"""


@pytest.mark.skipif(PRE_COMMIT is None or shutil.which("git") is None, reason="pre-commit or git missing")
def test_the_hook_sees_a_podgroup_committed_earlier_and_skips_an_excluded_template(tmp_path: Path) -> None:
    repo = tmp_path / "gitops"
    (repo / "charts" / "trainer" / "templates").mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    (repo / ".waslint.yaml").write_text("exclude: [charts/]\nfail-on: warning\n")
    (repo / "podgroup.yaml").write_text(PODGROUP)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "PodGroup first")
    # The second commit: the Pods alone (with a typo in the group name) and a Helm template.
    (repo / "pods.yaml").write_text(POD.format(group="trainer-worker"))
    (repo / "charts" / "trainer" / "templates" / "podgroup.yaml").write_text(HELM_TEMPLATE)
    _git(repo, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"))
    env.pop("PYTHONPATH", None)

    def run_staged() -> subprocess.CompletedProcess[str]:
        assert PRE_COMMIT is not None
        return subprocess.run(
            [PRE_COMMIT, "try-repo", str(ROOT), "waslint"],  # no --files: the staged files, as in a commit
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    alone = run_cli("lint", "pods.yaml", cwd=repo)
    assert alone.returncode == 0, alone.stdout  # pods.yaml by itself cannot see the typo
    failing = run_staged()
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "WAS401" in failing.stdout and "pods.yaml" in failing.stdout
    assert "WAS001" not in failing.stdout and "charts/" not in failing.stdout.split("waslint lint")[-1]

    (repo / "pods.yaml").write_text(POD.format(group="trainer-workers"))
    _git(repo, "add", ".")
    passing = run_staged()
    assert passing.returncode == 0, passing.stdout + passing.stderr
