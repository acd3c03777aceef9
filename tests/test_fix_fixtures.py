"""`waslint fix` on the fixture pairs of fixtures/fix/ (see its README).

Each case: the output is byte-identical to the reviewed expected file(s); a second run changes
nothing; lint then finds no fixable WAS1xx finding (except the ones the case lists as left for
the user); the changed objects pass kubernetes-validate 1.37 strict; the diff only touches lines
of nodes whose value changed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_fix_support import (
    changed_input_lines,
    node_lines_of_changes,
    strict_problems,
)

from conftest import FIXTURES, lint_path, rewrite_snapshot
from waslint.fix.run import FixOptions, FixResult, fix_paths
from waslint.lint.options import LintOptions

CASES = sorted(p for p in (FIXTURES / "fix").iterdir() if p.is_dir())
REGEN = bool(os.environ.get("WASLINT_REGEN"))


def _options(case: Path) -> dict[str, Any]:
    path = case / "options.yaml"
    return (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}


def _fix_options(case: Path) -> FixOptions:
    raw = _options(case)
    lint = LintOptions(select=raw.get("select"), ignore=list(raw.get("ignore", [])))
    return FixOptions(lint=lint, unsafe=bool(raw.get("unsafe")))


def _inputs(case: Path) -> dict[str, Path]:
    """Relative name -> input file; for a single-file case the name is `input.<ext>`."""
    tree = case / "input"
    if tree.is_dir():
        return {str(p.relative_to(tree)): p for p in sorted(tree.rglob("*")) if p.is_file()}
    return {p.name: p for p in sorted(case.glob("input.*"))}


def _expected_path(case: Path, name: str) -> Path:
    if (case / "input").is_dir():
        return case / "expected" / name
    return case / name.replace("input.", "expected.", 1)


def _run(case: Path, work: Path) -> tuple[FixResult, dict[str, Path]]:
    """Copy the inputs to `work` and fix them there (in memory); name -> working file."""
    files: dict[str, Path] = {}
    for name, source in _inputs(case).items():
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        files[name] = target
    result, errors = fix_paths([str(work)], _fix_options(case))
    assert not errors and result.internal_errors == []
    return result, files


def _outputs(result: FixResult, files: dict[str, Path]) -> dict[str, bytes]:
    by_path = {os.path.realpath(state.path): state for state in result.files}
    return {name: by_path[os.path.realpath(path)].encoded() for name, path in files.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fix_output_matches_expected(case: Path, tmp_path: Path) -> None:
    result, files = _run(case, tmp_path)
    assert result.internal_errors == []
    outputs = _outputs(result, files)
    for name, data in outputs.items():
        expected = _expected_path(case, name)
        if REGEN:
            rewrite_snapshot(expected, data)
        assert expected.read_bytes() == data, f"{case.name}/{name}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fix_is_idempotent(case: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    for name in _inputs(case):
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_expected_path(case, name), target)
    result, errors = fix_paths([str(work)], _fix_options(case))
    assert not errors and result.internal_errors == []
    assert [state.path for state in result.files if state.changed] == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fix_converges(case: Path, tmp_path: Path) -> None:
    """After the fix, lint finds no fixable WAS1xx finding but the ones left for the user."""
    options = _options(case)
    for name in _inputs(case):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_expected_path(case, name), target)
    findings = lint_path(tmp_path, select=["WAS1"]).findings
    fixable = [f.code for f in findings if f.fixable and (options.get("unsafe") or f.code != "WAS105")]
    ignored = options.get("ignore", [])
    fixable = [code for code in fixable if not any(code.startswith(i) for i in ignored)]
    assert sorted(fixable) == sorted(options.get("leftover", []))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixed_objects_pass_the_137_strict_schema(case: Path, tmp_path: Path) -> None:
    result, files = _run(case, tmp_path)
    exempt = set(_options(case).get("schema_exempt", []))
    for name, data in _outputs(result, files).items():
        before = _inputs(case)[name].read_bytes()
        if data == before:
            continue
        problems = strict_problems(data, before, exempt)
        assert problems == [], f"{case.name}/{name}: {problems}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_diff_touches_only_lines_of_changed_nodes(case: Path, tmp_path: Path) -> None:
    result, files = _run(case, tmp_path)
    for name, data in _outputs(result, files).items():
        before = _inputs(case)[name].read_bytes()
        if data == before:
            continue
        changed = changed_input_lines(before, data)
        allowed = node_lines_of_changes(before, data)
        assert changed <= allowed, f"{case.name}/{name}: lines {sorted(changed - allowed)}"
