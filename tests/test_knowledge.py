"""The knowledge room: one release type and parser, releases as data, no release literal in code,
and fixes registered against the rules they fix."""

from __future__ import annotations

import ast
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


def test_a_rule_is_fixable_exactly_when_a_fixer_is_registered_for_it() -> None:
    registered = {code: fixer.kind for fixer in all_fixers() for code in fixer.codes}
    for code in registered:
        assert get_rule(code) is not None, f"a fixer is registered for {code}, which is no rule"
    for rule in all_rules():
        assert rule.fix is registered.get(rule.code, FixKind.NONE), rule.code
        assert rule.fixable == (fixer_for(rule.code) is not None), rule.code
    assert {code for code, kind in registered.items() if kind is FixKind.SAFE} == {
        "WAS101",
        "WAS102",
        "WAS103",
        "WAS104",
    }
    assert {code for code, kind in registered.items() if kind is FixKind.UNSAFE} == {"WAS105"}


def test_no_finding_claims_a_fix_its_rule_does_not_have() -> None:
    findings = lint_path(FIXTURES / "rules").findings
    assert any(finding.code == "WAS000" for finding in findings)
    for finding in findings:
        if finding.fixable:
            assert fixer_for(finding.code) is not None, f"{finding.code} says fixable but has no fixer"
