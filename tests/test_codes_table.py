"""The codes table (lint/codes.py) is the one list of rules: every row's module registers exactly
that rule, and the registry imports a rule's module only when the rule is asked for."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from conftest import ROOT
from waslint.lint.codes import RULES, module_of
from waslint.lint.registry import all_rules, get_rule


def test_every_row_is_the_rule_its_module_registers() -> None:
    rules = all_rules()
    assert [rule.code for rule in rules] == sorted(RULES)
    for rule in rules:
        name, _ = RULES[rule.code]
        assert (rule.name, type(rule).__module__) == (name, module_of(rule.code))


def test_names_and_modules_are_unique() -> None:
    names = [name for name, _ in RULES.values()]
    modules = [module for _, module in RULES.values()]
    assert len(set(names)) == len(names)
    assert len(set(modules)) == len(modules)


@pytest.mark.parametrize("code", sorted(RULES))
def test_a_rule_module_is_named_after_its_rule(code: str) -> None:
    name, module = RULES[code]
    assert module.split(".")[-1] == name.replace("-", "_")


def test_a_rule_is_found_by_code_or_name() -> None:
    rule = get_rule("template-limits")
    assert rule is not None and rule.code == "WAS602"
    assert get_rule("was602") is rule
    assert get_rule("no-such-rule") is None


def test_parts_of_a_rule_have_distinct_names_and_their_own_paragraph() -> None:
    for rule in all_rules():
        names = [part.name for part in rule.parts]
        assert len(set(names)) == len(names), rule.code
        for part in rule.parts:
            assert part.what and part.name in rule.full_what and part.name in rule.info.what


def test_selecting_rules_imports_only_their_modules() -> None:
    script = (
        "import sys\n"
        "from waslint.lint.registry import select_rules\n"
        "codes = [rule.code for rule in select_rules(['WAS3'], [])]\n"
        "loaded = sorted({m.split('.')[3] for m in sys.modules if m.startswith('waslint.lint.rules.')})\n"
        "print(codes, loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    codes = [code for code in sorted(RULES) if code.startswith("WAS3")]
    assert done.stdout.strip() == f"{codes} ['sizing']"


def test_a_rule_registered_against_its_row_is_refused() -> None:
    from waslint.core.model import Severity
    from waslint.lint.registry import Rule, register

    class Impostor(Rule):
        code = "WAS301"
        name = "not-its-name"
        severity = Severity.ERROR
        summary = what = why = ""

    importlib.import_module(module_of("WAS301"))
    with pytest.raises(RuntimeError, match="registered twice"):
        register(Impostor)
    Impostor.code = "WAS999"
    with pytest.raises(RuntimeError, match="not in the codes table"):
        register(Impostor)
