"""Generated documentation stays in step with the registry; every rule is fully documented."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from waslint.lint.registry import all_rules


def test_readme_rule_table_and_rules_doc_are_fresh() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_rule_docs_are_complete(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.code.startswith("WAS") and len(rule.code) == 6
    assert rule.name and rule.name == rule.name.lower() and " " not in rule.name
    for text in (rule.summary, rule.what, rule.why, rule.example):
        assert text and text.strip()
    if rule.code not in ("WAS000",):
        assert rule.use_instead.strip()


def test_readme_quickstart_output_is_what_lint_prints() -> None:
    """The quickstart's one command, then its output as the README shows it (an excerpt, its cuts
    marked `[... cut ...]`)."""
    from test_docs_snippets import matches

    from conftest import run_cli

    readme = (ROOT / "README.md").read_text()
    quickstart = readme.split("## Quickstart", 1)[1]
    command = quickstart.split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . && ")
    assert command.endswith(" && waslint lint fixtures/demo")
    shown = quickstart.split("```\n\n```\n", 1)[1].split("\n```", 1)[0].split("\n")
    result = run_cli("lint", "fixtures/demo", cwd=ROOT, env={"NO_COLOR": "1"})
    assert result.returncode == 1
    assert any(line.startswith("  31:5  error   WAS201  claim 'gpus' does not match") for line in shown)
    assert any(line.startswith("[... cut") for line in shown)
    assert matches(shown, result.stdout.split("\n"))


# The project never refers to paths outside the repository (its code, docs, comments, scripts):
# upstream files are cited by their repository path, facts by the upstream documents they come from.
OUTSIDE_PATHS = re.compile(
    r"\.\./shared\b|\bshared/(?:spec|facts|upstream|corpus)\b|parent\s*/\s*[\"']shared[\"']"
    r"|\b(?:was-api|feasibility-anchors|linter-anchors|rule-catalog)\.md\b"
)
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".tsv", ".cfg", ""}


def _project_texts() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "action.yml", ROOT / "pyproject.toml", ROOT / ".ci" / "run"]
    for folder in ("src/waslint", "docs", "scripts", "bench"):
        files += [
            path
            for path in sorted((ROOT / folder).rglob("*"))
            if path.is_file() and path.suffix in TEXT_SUFFIXES and "out" not in path.relative_to(ROOT).parts
        ]
    return [path for path in files if path.is_file()]


def test_nothing_refers_to_paths_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _project_texts()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE_PATHS.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_outside_paths_check_sees_each_spelling() -> None:
    for line in (
        "see ../shared/facts/was-api.md",
        'SOURCE = ROOT.parent / "shared" / "corpus"',
        "the mapping of was-api.md §4",
        "the List of shared/spec/cli.md",
    ):
        assert OUTSIDE_PATHS.search(line), line
    assert not OUTSIDE_PATHS.search("a shared DRA claim; shared_nodes; the `shared/` folder of a repo")
