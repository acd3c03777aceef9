"""The rule-kinds index (lint/rulekinds.py): a run imports only the rules that can fire on the
kinds its input holds, so each row must be true of its rule. Checked against the rule's own
`kinds` and against every rule fixture: with each document of the listed kinds taken out, the
rule, imported and run whatever the kinds, finds nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_rule_fixtures import RULES_DIR, _base_text, lint_fixture

from waslint.lint import engine
from waslint.lint.codes import RULES
from waslint.lint.registry import get_rule
from waslint.lint.rulekinds import GATES_INPUT, KINDS, kinds_in_text, may_fire

LISTED = sorted(code for code, kinds in KINDS.items() if kinds is not None)
# One run per distinct row (the rules that share it run together).
ROWS = sorted({kinds for kinds in KINDS.values() if kinds is not None}, key=sorted)
FOLDERS = sorted(path for path in RULES_DIR.iterdir() if path.is_dir())


def test_every_row_names_a_rule_of_the_codes_table() -> None:
    assert set(KINDS) <= set(RULES)


@pytest.mark.parametrize("code", LISTED)
def test_a_row_holds_every_kind_the_rule_inspects(code: str) -> None:
    rule = get_rule(code)
    assert rule is not None
    assert rule.kinds is not None, f"{code} inspects every object: its row must be None"
    listed = KINDS[code]
    assert listed is not None
    if GATES_INPUT in listed:
        return  # a gate rule reads the gate inventory first: its row lists the inventory's sources
    assert {kind for _, kind in rule.kinds} <= listed


def _options_of(folder: Path) -> dict[str, Any]:
    path = folder / "options.yaml"
    return yaml.safe_load(path.read_text()) or {} if path.is_file() else {}


def test_the_gate_rows_hold_every_gate_source_kind() -> None:
    from waslint.objects.gate_inventory import _READERS
    from waslint.objects.gate_sources import SOURCE_KINDS

    assert frozenset(_READERS) == SOURCE_KINDS
    for code in ("WAS701", "WAS702", "WAS703"):
        row = KINDS[code]
        assert row is not None
        assert {kind for _, kind in SOURCE_KINDS} | {GATES_INPUT} <= row


def _kinds_of(value: Any) -> set[str]:
    if not isinstance(value, dict):
        return set()
    kinds = {value["kind"]} if isinstance(value.get("kind"), str) else set()
    items = value.get("items")
    if isinstance(items, list):
        for item in items:
            kinds |= _kinds_of(item)
    return kinds


def _without(text: str, kinds: frozenset[str]) -> str:
    """The text without its documents of these kinds (a document that does not parse stays)."""
    kept = []
    for chunk in re.split(r"(?m)^---[^\n]*\n", text):
        try:
            value = yaml.safe_load(chunk)
        except yaml.YAMLError:
            value = None
        if not _kinds_of(value) & kinds:
            kept.append(chunk)
    return "---\n".join(kept)


@pytest.mark.parametrize("kinds", ROWS, ids=lambda kinds: "-".join(sorted(kinds))[:60])
def test_a_rule_finds_nothing_on_a_set_without_its_kinds(
    kinds: frozenset[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "may_fire", lambda code, present: True)  # every rule runs
    codes = [code for code in LISTED if KINDS[code] == kinds]
    ran = 0
    for folder in FOLDERS:
        if folder.name == "WAS005":
            continue  # a kustomization, rendered by kubectl: its rule's row is None
        if GATES_INPUT in kinds and "gates" in _options_of(folder):
            continue  # given --gates, the set holds the row's pseudo-kind
        for name in ("bad.yaml", "good.yaml"):
            text = (folder / name).read_text()
            stripped = _without(text, kinds)
            if not stripped.strip():
                continue
            work = tmp_path / f"{folder.name}-{name}"
            base = _base_text(folder)
            found = lint_fixture(folder, stripped, name, base and _without(base, kinds), work, monkeypatch, codes)
            ran += 1
            assert [f"{folder.name}/{name}:{f.span.line} {f.code}" for f in found if f.code in codes] == []
    assert ran > 0


def test_a_rule_not_in_the_index_is_always_loaded() -> None:
    unlisted = sorted(set(RULES) - set(KINDS))
    assert all(may_fire(code, set()) for code in unlisted)
    assert not may_fire("WAS301", {"Workload"})
    assert may_fire("WAS301", {"CronJob"})


def test_the_text_check_finds_each_kind_a_file_names() -> None:
    assert kinds_in_text(["kind: Workload\n", '{"kind": "CronJob"}']) >= {"Workload", "CronJob", "Job"}
    assert "Pod" not in kinds_in_text(["kind: ConfigMap\n"])
