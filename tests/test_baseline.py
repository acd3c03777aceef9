"""Baselines: findings recorded once stay silent across line shifts and reformatting; new ones show."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from conftest import FIXTURES, run_cli

BAD_FILES = ("WAS301", "WAS502", "WAS103")
ONE_NEW_BAD_OBJECT = """\
---
apiVersion: batch/v1
kind: Job
metadata:
  name: added-later
  namespace: ml
spec:
  parallelism: 2
  completions: 2
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 5
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    text = "---\n".join((FIXTURES / "rules" / code / "bad.yaml").read_text() for code in BAD_FILES)
    (repo / "jobs.yaml").write_text(text)
    return repo


def _findings(repo: Path, *args: str) -> list[dict[str, object]]:
    result = run_cli("lint", "--format", "json", *args, "jobs.yaml", cwd=repo)
    assert result.returncode in (0, 1), result.stderr
    findings: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return findings


def _shift_and_reindent(path: Path) -> None:
    documents = list(yaml.safe_load_all(path.read_text()))
    reformatted = yaml.safe_dump_all(documents, indent=4, sort_keys=True, default_flow_style=False)
    path.write_text("# a comment line pushed in above\n" * 20 + reformatted)


def test_a_baseline_survives_shifted_lines_and_reindenting_and_shows_one_new_object(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    before = _findings(repo)
    assert len(before) >= 5
    written = run_cli("lint", "--write-baseline", "baseline.json", "jobs.yaml", cwd=repo)
    assert written.returncode == 0, written.stderr
    assert f"{len(before)} findings" in written.stderr
    assert _findings(repo, "--baseline", "baseline.json") == []

    _shift_and_reindent(repo / "jobs.yaml")
    shifted = _findings(repo)
    assert sorted(f["code"] for f in shifted) == sorted(f["code"] for f in before)
    assert all(int(f["line"]) > 20 for f in shifted)  # type: ignore[call-overload]
    assert [f["line"] for f in shifted] != [f["line"] for f in before]
    assert _findings(repo, "--baseline", "baseline.json") == []

    with (repo / "jobs.yaml").open("a") as handle:
        handle.write(ONE_NEW_BAD_OBJECT)
    new = _findings(repo, "--baseline", "baseline.json")
    assert [(f["code"], f["object"]["name"]) for f in new] == [("WAS301", "added-later")]  # type: ignore[index]
    status = run_cli("lint", "--baseline", "baseline.json", "jobs.yaml", cwd=repo)
    assert status.returncode == 1 and "Found 1 finding " in status.stdout


def test_identical_findings_need_one_entry_each(tmp_path: Path) -> None:
    repo = tmp_path / "copies"
    repo.mkdir()
    bad = (FIXTURES / "rules" / "WAS502" / "bad.yaml").read_text()
    (repo / "a.yaml").write_text(bad)
    assert run_cli("lint", "--write-baseline", "b.json", "a.yaml", cwd=repo).returncode == 0
    entries = json.loads((repo / "b.json").read_text())["entries"]
    assert [entry["count"] for entry in entries] == [1, 1]
    assert {entry["field"] for entry in entries} == {
        "spec.template.spec.containers[0].resources.requests.nvidia.com/gpu",
        "spec.template.spec.containers[1].resources.requests.amd.com/gpu",
    }
    (repo / "b.yaml").write_text(bad)  # the same object again: same keys, one more of each
    again = run_cli("lint", "--format", "json", "--baseline", "b.json", "a.yaml", "b.yaml", cwd=repo)
    assert again.returncode == 1
    assert len(json.loads(again.stdout)["findings"]) == 2


def test_a_broken_baseline_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text("[1, 2]")
    (tmp_path / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    result = run_cli("lint", "--baseline", "b.json", "ok.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert "not a waslint baseline" in result.stderr and "Traceback" not in result.stderr


def test_the_summary_says_how_many_findings_the_baseline_hid(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    before = _findings(repo)
    run_cli("lint", "--write-baseline", "baseline.json", "jobs.yaml", cwd=repo)
    quiet = run_cli("lint", "--baseline", "baseline.json", "jobs.yaml", cwd=repo)
    assert quiet.returncode == 0
    assert quiet.stdout == (
        f"No findings (1 file, 4 documents, target Kubernetes 1.37). {len(before)} findings in the baseline not shown.\n"
    )
    with (repo / "jobs.yaml").open("a") as handle:
        handle.write(ONE_NEW_BAD_OBJECT)
    one_new = run_cli("lint", "--baseline", "baseline.json", "jobs.yaml", cwd=repo)
    assert one_new.stdout.rstrip().endswith(f"{len(before)} findings in the baseline not shown.")
    summary = json.loads(
        run_cli("lint", "--format", "json", "--baseline", "baseline.json", "jobs.yaml", cwd=repo).stdout
    )
    assert summary["summary"]["baselined"] == len(before) and summary["summary"]["findings"] == 1
