"""The knowledge room: one release type and parser, releases as data, no release literal in code,
and fixes registered against the rules they fix."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, lint_path
from waslint.core.model import FixKind
from waslint.knowledge.releases import (
    Release,
    default_target,
    fix_target,
    is_supported,
    milestone,
    parse_release,
    supported,
)
from waslint.lint.fixers.registry import all_fixers, fixer_for
from waslint.lint.registry import all_rules, get_rule

SRC = Path(__file__).resolve().parent.parent / "src" / "waslint"


@pytest.mark.parametrize("text", ["1.37", "v1.37", "1.37.0", "1.37.2", " 1.37 "])
def test_every_spelling_of_a_release_is_one_release(text: str) -> None:
    assert parse_release(text) == Release(1, 37)


@pytest.mark.parametrize("text", ["", "1", "1.x", "one.37", "1.37.0.1", "v", None, 137])
def test_what_is_not_a_release(text: object) -> None:
    assert parse_release(text) is None


def test_releases_come_from_the_data() -> None:
    assert [str(release) for release in supported()] == ["1.35", "1.36", "1.37"]
    assert default_target() == fix_target() == Release(1, 37)
    assert is_supported(Release(1, 36)) and not is_supported(Release(1, 38))
    assert Release(1, 9) < Release(1, 10)  # ordered as versions, not as text
    assert milestone("beta-api") > milestone("scheduling-group")


def _release_literals(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        f"{path.relative_to(SRC)}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and id(node) not in docstrings
        and isinstance(node.value, str)
        and _is_kubernetes_release(node.value)
    ]


def _is_kubernetes_release(text: str) -> bool:
    release = parse_release(text)
    return release is not None and release.major == 1  # not the tool's or SARIF's version


def test_no_release_number_is_written_in_the_code() -> None:
    """Releases are data (knowledge/releases.yaml); supporting 1.38 must not mean editing code."""
    found = [literal for path in sorted(SRC.rglob("*.py")) for literal in _release_literals(path)]
    assert found == []


def test_every_fix_registration_names_a_rule() -> None:
    for fixer in all_fixers():
        for code in fixer.codes:
            assert get_rule(code) is not None, f"{fixer.name} is registered for {code}, which is no rule"


def test_the_fix_kinds_are_the_catalog_s() -> None:
    """rule-catalog.md: WAS101-WAS104 are safe fixes, WAS105 an unsafe one, every other rule none."""
    kinds = {rule.code: rule.fix for rule in all_rules()}
    assert {code for code, kind in kinds.items() if kind is FixKind.SAFE} == {"WAS101", "WAS102", "WAS103", "WAS104"}
    assert {code for code, kind in kinds.items() if kind is FixKind.UNSAFE} == {"WAS105"}


def _fixed_by_a_case(code: str, case: Path, work: Path) -> bool:
    """Whether `waslint fix` (with the case's options) changes the case's input and leaves no
    finding of `code` where the input had some."""
    from test_fix_fixtures import _fix_options, _inputs

    from waslint.fix.run import fix_paths

    for name, source in _inputs(case).items():
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    before = [f for f in lint_path(work).findings if f.code == code and f.fixable]
    if not before:
        return False
    result, errors = fix_paths([str(work)], _fix_options(case))
    assert not errors and result.internal_errors == []
    if not result.changed:
        return False
    for state in result.changed:
        Path(state.path).write_bytes(state.encoded())
    return [f.code for f in lint_path(work, select=[code]).findings] == []


@pytest.mark.parametrize("code", [rule.code for rule in all_rules() if rule.fixable])
def test_every_fixable_rule_has_a_fix_fixture_that_fix_changes_and_leaves_clean(code: str, tmp_path: Path) -> None:
    """A rule registered as fixable is fixed for real: some case of fixtures/fix/ holds its
    findings, `waslint fix` changes the files, and the result has none of them left."""
    cases = sorted(p for p in (FIXTURES / "fix").iterdir() if p.is_dir())
    fixed_by = [case.name for case in cases if _fixed_by_a_case(code, case, tmp_path / case.name)]
    assert fixed_by, f"{code} is registered as fixable but no fixtures/fix/ case shows `waslint fix` fixing it"


def test_no_finding_claims_a_fix_its_rule_does_not_have() -> None:
    findings = lint_path(FIXTURES / "rules").findings
    assert any(finding.code == "WAS000" for finding in findings)
    for finding in findings:
        if finding.fixable:
            assert fixer_for(finding.code) is not None, f"{finding.code} says fixable but has no fixer"
