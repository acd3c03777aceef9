"""The real pre-commit program runs this repository's hooks (.pre-commit-hooks.yaml) from the
README's `.pre-commit-config.yaml` snippet, offline.

The hook environment is built once per run: this checkout becomes a one-commit repository (its
uncommitted changes included), and one PRE_COMMIT_HOME serves every test, so pre-commit clones it
and builds its `language: python` environment once. That build runs `pip install .` of the
repository with no index at all (PIP_NO_INDEX, an unreachable PIP_INDEX_URL, no pip config file):
the dependencies come from a wheelhouse made of this environment's installed distributions and the
build backend from virtualenv's bundled wheels (tests/wheelhouse.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from wheelhouse import build_wheelhouse, seed_wheels

from conftest import FIXTURES, ROOT, run_cli

PRE_COMMIT = shutil.which("pre-commit")
pytestmark = pytest.mark.skipif(PRE_COMMIT is None or shutil.which("git") is None, reason="pre-commit or git missing")
UNREACHABLE = "http://127.0.0.1:9/"  # the discard port: any attempt to use an index fails at once


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def _checkout_files() -> list[str]:
    """The checkout's files as git sees them (tracked and untracked, not ignored)."""
    if (ROOT / ".git").exists():
        listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
        return sorted({name for name in listed.split("\0") if name and (ROOT / name).is_file()})
    skip = {".git", "__pycache__", ".venv", "build", "dist", "out"}
    return sorted(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if path.is_file() and not skip & set(path.relative_to(ROOT).parts) and ".egg-info" not in str(path)
    )


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout as a git repository of one commit: (its path, the commit)."""
    folder = tmp_path_factory.mktemp("hook-repo") / "waslint"
    for name in _checkout_files():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "snapshot")
    return folder, _git(folder, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def offline_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of every pre-commit run: one store, and pip with no index."""
    wheels = build_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "VIRTUALENV_"))}
    env.pop("PYTHONPATH", None)
    env.update(
        {
            "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home")),
            "PIP_CONFIG_FILE": os.devnull,  # no machine or user pip.conf (index URLs, find-links)
            "PIP_NO_INDEX": "1",
            "PIP_INDEX_URL": UNREACHABLE,
            "PIP_FIND_LINKS": f"{wheels} {seed_wheels()}",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "VIRTUALENV_NO_PERIODIC_UPDATE": "1",
        }
    )
    return env


def readme_pre_commit_config(repo: Path, rev: str) -> str:
    """The README's `.pre-commit-config.yaml` snippet, pointed at the local copy of this repository."""
    from test_ci import yaml_blocks

    configs = [block for block in yaml_blocks("rev:") if "repos" in block]
    assert configs, "no .pre-commit-config.yaml snippet in the README or docs"
    config: dict[str, Any] = configs[0]
    for entry in config["repos"]:
        entry["repo"], entry["rev"] = str(repo), rev
    return yaml.safe_dump(config, sort_keys=False)


@pytest.fixture
def gitops(tmp_path: Path, hook_repo: tuple[Path, str]) -> Path:
    repo = tmp_path / "gitops"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    (repo / ".pre-commit-config.yaml").write_text(readme_pre_commit_config(*hook_repo))
    return repo


def pre_commit(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    assert PRE_COMMIT is not None
    return subprocess.run([PRE_COMMIT, "run", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_pre_commit_hook_blocks_a_bad_manifest_and_passes_a_good_one(gitops: Path, offline_env: dict[str, str]) -> None:
    repo = gitops
    shutil.copy(FIXTURES / "rules" / "WAS103" / "bad.yaml", repo / "bad.yaml")
    shutil.copy(FIXTURES / "rules" / "WAS103" / "good.yaml", repo / "good.yaml")
    _git(repo, "add", ".")

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        return pre_commit(repo, offline_env, "waslint", "--files", *files)

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
    excluded = run("charts/gpu/templates/workload.yaml", "good.yaml", ".waslint.yaml")
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


def test_the_hook_sees_a_podgroup_committed_earlier_and_skips_an_excluded_template(
    gitops: Path, offline_env: dict[str, str]
) -> None:
    repo = gitops
    (repo / "charts" / "trainer" / "templates").mkdir(parents=True)
    (repo / ".waslint.yaml").write_text("exclude: [charts/]\nfail-on: warning\n")
    (repo / "podgroup.yaml").write_text(PODGROUP)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "PodGroup first")
    # The second commit: the Pods alone (with a typo in the group name) and a Helm template.
    (repo / "pods.yaml").write_text(POD.format(group="trainer-worker"))
    (repo / "charts" / "trainer" / "templates" / "podgroup.yaml").write_text(HELM_TEMPLATE)
    _git(repo, "add", ".")

    alone = run_cli("lint", "pods.yaml", cwd=repo)
    assert alone.returncode == 0, alone.stdout  # pods.yaml by itself cannot see the typo
    failing = pre_commit(repo, offline_env, "waslint")  # no --files: the staged files, as in a commit
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "WAS401" in failing.stdout and "pods.yaml" in failing.stdout
    assert "WAS001" not in failing.stdout and "charts/" not in failing.stdout.split("waslint lint")[-1]
    assert re.search(r"in 1 file, 1 document", failing.stdout), failing.stdout  # what it reported on

    (repo / "pods.yaml").write_text(POD.format(group="trainer-workers"))
    _git(repo, "add", ".")
    passing = pre_commit(repo, offline_env, "waslint")
    assert passing.returncode == 0, passing.stdout + passing.stderr


def test_the_fix_hook_rewrites_a_staged_manifest_to_137(gitops: Path, offline_env: dict[str, str]) -> None:
    repo = gitops
    shutil.copy(FIXTURES / "rules" / "WAS101" / "bad.yaml", repo / "old.yaml")
    _git(repo, "add", ".")
    fixed = pre_commit(repo, offline_env, "waslint-fix")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # pre-commit: files were modified by this hook
    assert "scheduling.k8s.io/v1alpha2" not in (repo / "old.yaml").read_text()
    _git(repo, "add", ".")
    assert pre_commit(repo, offline_env, "waslint-fix").returncode == 0


def test_the_hook_environment_was_built_once_with_no_index(offline_env: dict[str, str]) -> None:
    """After the tests above: one environment in the store, installed from the wheelhouse."""
    store = Path(offline_env["PRE_COMMIT_HOME"])
    environments = sorted(store.glob("repo*/py_env-*"))
    assert len(environments) == 1, environments
    site = next(environments[0].glob("lib/python*/site-packages"))
    installed = {path.name.split("-")[0].lower() for path in site.glob("*.dist-info")}
    assert {"waslint", "pyyaml", "rich"} <= installed and "kubernetes" not in installed
    # A fresh environment with the base install in it: at most 12 distributions besides pip's own.
    assert len(installed - {"pip", "setuptools", "wheel"}) <= 12, sorted(installed)
