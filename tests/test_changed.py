"""--changed-since REF and --lookup DIR: report on some files, read the whole tree for lookups."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from test_precommit import POD, PODGROUP

from conftest import FIXTURES, run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git missing")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _paths(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    assert result.returncode in (0, 1), result.stderr
    return [(f["path"], f["code"]) for f in json.loads(result.stdout)["findings"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "team").mkdir(parents=True)
    _git(root, "init", "-q")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    (root / "podgroup.yaml").write_text(PODGROUP)
    (root / "old-bad.yaml").write_text((FIXTURES / "rules" / "WAS301" / "bad.yaml").read_text())
    (root / "team" / "staged.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "first")
    return root


def test_changed_since_reports_changed_untracked_and_staged_files_with_whole_tree_lookups(repo: Path) -> None:
    (repo / "team" / "pods.yaml").write_text(POD.format(group="trainer-worker"))  # untracked
    (repo / "team" / "staged.yaml").write_text((FIXTURES / "rules" / "WAS502" / "bad.yaml").read_text())
    _git(repo, "add", "team/staged.yaml")
    everything = _paths(run_cli("lint", "--format", "json", ".", cwd=repo))
    assert {path for path, _ in everything} == {"old-bad.yaml", "team/pods.yaml", "team/staged.yaml"}
    changed = _paths(run_cli("lint", "--format", "json", "--changed-since", "HEAD", ".", cwd=repo))
    assert changed == [("team/pods.yaml", "WAS401"), ("team/staged.yaml", "WAS502"), ("team/staged.yaml", "WAS502")]
    # The pod's WAS401 needs the PodGroup of podgroup.yaml, which did not change.
    assert _paths(run_cli("lint", "--format", "json", "team/pods.yaml", cwd=repo)) == []


def test_changed_since_with_nothing_changed_reports_nothing(repo: Path) -> None:
    result = run_cli("lint", "--changed-since", "HEAD", cwd=repo)
    assert result.returncode == 0 and "No findings" in result.stdout


def test_changed_since_a_bad_ref_or_outside_git_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    bad = run_cli("lint", "--changed-since", "no-such-ref", ".", cwd=repo)
    assert bad.returncode == 2 and "no-such-ref" in bad.stderr and "Traceback" not in bad.stderr
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "a.yaml").write_text(PODGROUP)
    result = run_cli("lint", "--changed-since", "HEAD", "a.yaml", cwd=outside)
    assert result.returncode == 2 and "git" in result.stderr


def test_lookup_reads_the_folder_and_reports_only_the_named_files(repo: Path) -> None:
    (repo / "pods.yaml").write_text(POD.format(group="trainer-worker"))
    (repo / ".waslint.yaml").write_text("exclude: [team/]\n")
    (repo / "team" / "broken.yaml").write_text("a: [\n")
    result = run_cli("lint", "--format", "json", "--lookup", ".", "pods.yaml", "team/broken.yaml", cwd=repo)
    assert _paths(result) == [("pods.yaml", "WAS401")]  # old-bad.yaml read, not reported; team/ excluded


def test_the_summary_counts_the_reported_files_not_the_lookups(repo: Path) -> None:
    (repo / "team" / "pods.yaml").write_text(POD.format(group="trainer-worker"))
    (repo / ".waslint.yaml").write_text("fail-on: warning\n")
    changed = run_cli("lint", "--changed-since", "HEAD", ".", cwd=repo)
    assert changed.stdout.rstrip().endswith("in 1 file, 1 document, target Kubernetes 1.37."), changed.stdout
    payload = json.loads(run_cli("lint", "--format", "json", "--changed-since", "HEAD", ".", cwd=repo).stdout)
    assert (payload["summary"]["files"], payload["summary"]["documents"]) == (1, 1)
    looked_up = run_cli("lint", "--lookup", ".", "team/pods.yaml", cwd=repo)
    assert "in 1 file, 1 document" in looked_up.stdout
    nothing = run_cli("lint", "--changed-since", "HEAD", "podgroup.yaml", cwd=repo)
    assert nothing.stdout == "No findings (0 files, 0 documents, target Kubernetes 1.37).\n"


def test_the_config_file_is_never_linted_nor_counted(repo: Path) -> None:
    (repo / ".waslint.yaml").write_text("fail-on: warning\n")
    whole = json.loads(run_cli("lint", "--format", "json", ".", cwd=repo).stdout)
    assert whole["summary"]["files"] == 3  # podgroup.yaml, old-bad.yaml, team/staged.yaml
    named = run_cli("lint", ".waslint.yaml", "podgroup.yaml", cwd=repo)  # as pre-commit names staged files
    assert named.stdout == "No findings (1 file, 1 document, target Kubernetes 1.37).\n"
