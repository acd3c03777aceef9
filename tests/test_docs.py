"""Generated documentation stays in step with the registry; every rule is fully documented."""

from __future__ import annotations

import subprocess
import sys

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
    from conftest import run_cli

    readme = (ROOT / "README.md").read_text()
    result = run_cli("lint", "fixtures/demo", cwd=ROOT, env={"NO_COLOR": "1"})
    assert result.returncode == 1
    summary = result.stdout.strip().splitlines()[-1]
    assert summary in readme
    shown = readme.split("```\nfixtures/demo/training/workers.yaml\n", 1)[1].split("\n...\n", 1)[0]
    assert "  31:5  error   WAS201" in shown
    assert "fixtures/demo/training/workers.yaml\n" + shown + "\n" in result.stdout
