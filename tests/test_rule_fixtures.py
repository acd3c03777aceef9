"""Every rule's fixture pair: fixtures/rules/<CODE>/bad.yaml fires the rule, good.yaml does not.

An optional options.yaml beside them sets LintOptions (target, namespace) and the cluster inputs
(snapshot, gates: file names in the same folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import FIXTURES, lint_path
from waslint.lint.registry import all_rules, get_rule

RULE_DIRS = sorted(p for p in (FIXTURES / "rules").iterdir() if p.is_dir())
# Rules whose behaviour needs more than a file pair (a git history, a suppression) are tested elsewhere.
WITHOUT_PAIR = {"WAS604"}


def _options(folder: Path) -> dict[str, Any]:
    path = folder / "options.yaml"
    if not path.exists():
        return {}
    raw = yaml.safe_load(path.read_text()) or {}
    options: dict[str, Any] = {"extra": {}}
    if "target" in raw:
        options["target"] = str(raw["target"])
    if "namespace" in raw:
        options["namespace"] = raw["namespace"]
    for key in ("snapshot", "gates"):
        if key in raw:
            options["extra"][f"{key}_path"] = str(folder / raw[key])
    return options


@pytest.mark.parametrize("folder", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_bad_fixture_fires(folder: Path) -> None:
    rule = get_rule(folder.name)
    assert rule is not None, f"fixture folder for unknown rule {folder.name}"
    findings = lint_path(folder / "bad.yaml", **_options(folder)).findings
    mine = [f for f in findings if f.code == rule.code]
    assert mine, f"{rule.code} did not fire on its bad fixture"
    assert any(f.severity == rule.severity for f in mine), [f.severity for f in mine]
    for finding in mine:
        assert finding.span.line > 1 or finding.field_path == ("apiVersion",) or rule.code == "WAS001"


@pytest.mark.parametrize("folder", RULE_DIRS, ids=[p.name for p in RULE_DIRS])
def test_good_fixture_is_silent(folder: Path) -> None:
    findings = lint_path(folder / "good.yaml", **_options(folder)).findings
    assert [f for f in findings if f.code == folder.name] == []


def test_every_rule_has_a_fixture_pair() -> None:
    have = {p.name for p in RULE_DIRS}
    missing = [r.code for r in all_rules() if r.code not in have and r.code not in WITHOUT_PAIR]
    assert missing == []
