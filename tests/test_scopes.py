"""Cluster scopes: every folder matching a `scopes` glob is linted as its own cluster."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import FIXTURES, lint_path, run_cli
from waslint.io.config import Config, load_config
from waslint.lint.registry import all_rules

SCOPES = FIXTURES / "scopes"
KNOWN = [rule.code for rule in all_rules()]


def test_a_gate_set_in_one_scope_does_not_judge_objects_in_another() -> None:
    result = run_cli("lint", "--format", "json", cwd=SCOPES)
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert {(f["path"], f["code"], f["scope"]) for f in findings} == {
        ("clusters/dev/train.yaml", "WAS702", "clusters/dev")
    }
    # The same files as one cluster: dev's kubeadm config judges the Jobs of prod and shared too.
    unscoped = lint_path(SCOPES, config=Config())
    assert sorted({f.path.removeprefix(str(SCOPES) + "/") for f in unscoped.findings}) == [
        "clusters/dev/train.yaml",
        "clusters/prod/train.yaml",
        "shared/train.yaml",
    ]
    assert all(f.scope is None for f in unscoped.findings)


def test_the_text_report_names_the_scope() -> None:
    result = run_cli("lint", cwd=SCOPES)
    assert "clusters/dev/train.yaml  (scope clusters/dev)" in result.stdout


def test_scope_of_matches_the_shallowest_folder_relative_to_the_config() -> None:
    config = load_config(str(SCOPES / ".waslint.yaml"), KNOWN)
    assert config.scopes == ["clusters/*"]
    assert config.scope_of(str(SCOPES / "clusters" / "dev" / "apps" / "x.yaml")) == "clusters/dev"
    assert config.scope_of(str(SCOPES / "clusters" / "x.yaml")) is None
    assert config.scope_of(str(SCOPES / "shared" / "x.yaml")) is None
    assert config.scope_of("/elsewhere/clusters/dev/x.yaml") is None


def test_files_outside_every_scope_form_one_more_set(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(SCOPES, repo)
    shutil.copy(repo / "clusters" / "dev" / "kubeadm.yaml", repo / "shared" / "kubeadm.yaml")
    result = run_cli("lint", "--format", "json", cwd=repo)
    found = {(f["path"], f.get("scope")) for f in json.loads(result.stdout)["findings"]}
    assert found == {("clusters/dev/train.yaml", "clusters/dev"), ("shared/train.yaml", None)}
