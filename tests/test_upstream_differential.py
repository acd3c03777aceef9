"""Differential test against upstream's own validation tests (cases in tests/data/upstream-validation/).

Every case upstream accepts, waslint's validator accepts; every case upstream rejects, it rejects
with the same errors (field path and error type, as upstream's VerifyValidationEquivalence compares
them). At lint level (target 1.37, all rules): an accepted case gets no error from the validation
rules, a rejected one an error finding on the field upstream names (at it or inside it, e.g. WAS602
points at the ninth template of a list that may hold eight), or at its parent when it is absent.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import lint_text
from waslint.core.model import Severity
from waslint.knowledge import imperative, strategies, validation
from waslint.knowledge.validation import ValidationIssue, render_path

DATA = Path(__file__).parent / "data" / "upstream-validation"
RELEASE = "1.37"  # unless a suite names its release


def _release(suite: dict[str, Any]) -> str:
    return str(suite.get("release", RELEASE))


VALIDATION_RULES = {"WAS002", "WAS003", "WAS203", "WAS306", "WAS405", "WAS601", "WAS602", "WAS605"}


class _Loader(yaml.SafeLoader):
    pass


def _seq(loader: yaml.SafeLoader, node: yaml.Node) -> list[Any]:
    assert isinstance(node, yaml.SequenceNode)
    return loader.construct_sequence(node, deep=True)


def _count(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    assert isinstance(node, yaml.ScalarNode)
    return int(loader.construct_scalar(node))


_GENERATORS: dict[str, Callable[[int], dict[str, Any]]] = {
    "!cpgs": lambda i: {
        "name": f"cpg-{i}",
        "schedulingPolicy": {"gang": {"minGroupCount": 1}},
        "podGroupTemplates": [{"name": f"worker-{i}", "schedulingPolicy": {"gang": {"minCount": 1}}}],
    },
    "!subs": lambda i: {
        "name": f"sub-{i}",
        "schedulingPolicy": {"gang": {"minGroupCount": 1}},
        "podGroupTemplates": [{"name": f"sub-{i}-leaf", "schedulingPolicy": {"basic": {}}}],
    },
    "!pgs": lambda i: {"name": f"pg-{i}", "schedulingPolicy": {"gang": {"minCount": 1}}},
    "!claims": lambda i: {"name": f"claim-{i}", "resourceClaimName": "valid-ref"},
}

_Loader.add_constructor("!repeat", lambda loader, node: str(_seq(loader, node)[0]) * int(_seq(loader, node)[1]))
_Loader.add_constructor("!concat", lambda loader, node: "".join(str(part) for part in _seq(loader, node)))
for _tag, _make in _GENERATORS.items():
    _Loader.add_constructor(_tag, lambda loader, node, make=_make: [make(i) for i in range(_count(loader, node))])

_STEP_RE = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    return [int(index) if index else name for name, index in _STEP_RE.findall(path)]


def _put(data: Any, path: str, value: Any, append: bool) -> None:
    *parents, last = _steps(path)
    for step in parents:
        data = data.setdefault(step, {}) if isinstance(step, str) else data[step]
    if append:
        if not isinstance(data.get(last), list):
            data[last] = []
        data[last].extend(copy.deepcopy(value))
    elif isinstance(last, int):
        data[last] = copy.deepcopy(value)
    else:
        data[last] = copy.deepcopy(value)


def _build(suite: dict[str, Any], recipe: dict[str, Any]) -> dict[str, Any]:
    obj = copy.deepcopy(suite["bases"][recipe.get("from", "base")])
    for path, value in (recipe.get("set") or {}).items():
        _put(obj, path, value, append=False)
    for path, value in (recipe.get("append") or {}).items():
        _put(obj, path, value, append=True)
    return {"apiVersion": suite["apiVersion"], "kind": suite["kind"], **obj}


def _suites() -> list[tuple[str, dict[str, Any]]]:
    return [(p.name, yaml.load(p.read_text(), Loader=_Loader)) for p in sorted(DATA.glob("*.yaml"))]


def _cases(mode: str) -> list[Any]:
    found = []
    for file_name, suite in _suites():
        for test_name, cases in (suite.get(mode) or {}).items():
            for case in cases:
                found.append(pytest.param(suite, case, id=f"{file_name}:{test_name}:{case['name']}"))
    return found


def _gates(suite: dict[str, Any], case: dict[str, Any]) -> Callable[[str], bool]:
    enabled = set(suite.get("gates", [])) | set(case.get("gates", [])) | {"GenericWorkload"}
    enabled -= set(case.get("gates_off", []))
    return lambda gate: gate in enabled


def _validated(suite: dict[str, Any], obj: dict[str, Any]) -> tuple[str, str, dict[str, Any], tuple[str, ...]]:
    """(apiVersion, kind, data, where) the validators see: the object, or the part of it a suite's
    `validator` names (a CronJob's jobTemplate validated as a Job, its pod template left out as
    WAS003 does), found at `where`."""
    validator = suite.get("validator")
    if validator is None:
        return obj["apiVersion"], obj["kind"], obj, ()
    where = tuple(str(step) for step in _steps(validator["at"]))
    part = _dig(obj, where) or {}
    spec = {k: v for k, v in (part.get("spec") or {}).items() if k != "template"}
    return validator["apiVersion"], validator["kind"], {"spec": spec}, where


def _moved(issues: list[ValidationIssue], where: tuple[str, ...]) -> list[ValidationIssue]:
    return [ValidationIssue((*where, *i.path), i.error, i.origin, i.detail, i.value, i.gate, i.level) for i in issues]


def _create_issues(
    release: str, obj: dict[str, Any], gates: Callable[[str], bool], suite: dict[str, Any] | None = None
) -> list[ValidationIssue]:
    """What WAS003 applies (markers and hand-written checks), with the case's gates."""
    api_version, kind, data, where = _validated(suite or {}, obj)
    if not validation.has_rules(release, api_version, kind):
        return []
    issues = validation.validate(release, api_version, kind, data, gates)
    issues += imperative.object_issues(api_version, kind, data)
    scheduling = (data.get("spec") or {}).get("scheduling")
    if kind == "Job" and isinstance(scheduling, dict):
        issues += imperative.job_scheduling_issues(scheduling, ("spec", "scheduling"))
    return _moved(issues, where)


def _update_issues(
    release: str, new: dict[str, Any], old: dict[str, Any], gates: Callable[[str], bool], suite: dict[str, Any]
) -> list[ValidationIssue]:
    api_version, kind, new_data, where = _validated(suite, new)
    old_data = _validated(suite, old)[2]
    issues = validation.validate_update(release, api_version, kind, new_data, old_data, gates)
    issues += imperative.update_issues(api_version, kind, new_data, old_data)
    return _moved(issues, where)


def _group(obj: dict[str, Any]) -> str:
    return str(obj["apiVersion"]).rpartition("/")[0]


def _prepared_create(
    suite: dict[str, Any], release: str, obj: dict[str, Any], gates: Callable[[str], bool]
) -> tuple[dict[str, Any], set[str]]:
    """The object after the registry strategy's PrepareForCreate (suites with `strategy: true`)."""
    if not suite.get("strategy"):
        return obj, set()
    prepared, dropped = strategies.prepare_for_create(release, _group(obj), obj["kind"], obj, gates)
    return prepared, {render_path(d.path) for d in dropped}


def _shown(issues: list[ValidationIssue]) -> set[str]:
    return {f"{render_path(issue.path)} {issue.error}" for issue in issues}


def _dig(data: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return None
    return data


@pytest.mark.parametrize(("suite", "case"), _cases("create"))
def test_create_cases_match_upstream(suite: dict[str, Any], case: dict[str, Any]) -> None:
    release, gates = _release(suite), _gates(suite, case)
    obj, dropped = _prepared_create(suite, release, _build(suite, case), gates)
    assert _shown(_create_issues(release, obj, gates, suite)) == set(case["expect"])
    assert dropped == set(case.get("dropped", []))


@pytest.mark.parametrize(("suite", "case"), _cases("update"))
def test_update_cases_match_upstream(suite: dict[str, Any], case: dict[str, Any]) -> None:
    new, old = _build(suite, case), _build(suite, case.get("old") or {})
    release, gates = _release(suite), _gates(suite, case)
    dropped: set[str] = set()
    if suite.get("strategy"):
        new, found = strategies.prepare_for_update(release, _group(new), new["kind"], new, old, gates)
        dropped = {render_path(d.path) for d in found}
    assert dropped == set(case.get("dropped", []))
    issues = _update_issues(release, new, old, gates, suite)
    stopped = [issue.path for issue in issues]
    # upstream does not revalidate unchanged data on update, and an update error on a field stops the
    # checks that come after it there and below it (short-circuit; presence checks come before it)
    for issue in _create_issues(release, new, gates, suite):
        at_stop = any(issue.path[: len(p)] == p for p in stopped)
        presence = issue.origin in ("required", "forbidden") and issue.path in stopped
        changed = _dig(new, issue.path) != _dig(old, issue.path) or issue.origin == "union"
        if changed and (not at_stop or presence):
            issues.append(issue)
    assert _shown(issues) == set(case["expect"])


def _lint_level(suite: dict[str, Any], case: dict[str, Any]) -> bool:
    """Lint runs with every gate assumed on (no inventory): cases whose verdict hangs on a gate being
    off are checked at validator level only (WAS702 reports a known-off gate)."""
    gated = {
        "PodGroupPreemptionPolicy",
        "TopologyAwareWorkloadScheduling",
        "CompositePodGroup",
        "WorkloadAwarePreemption",
    }
    enabled = set(suite.get("gates", [])) | set(case.get("gates", []))
    return not [e for e in case["expect"] if e.endswith(" Forbidden")] or gated <= enabled


@pytest.mark.parametrize(("suite", "case"), [c for c in _cases("create") if _lint_level(*c.values)])
def test_lint_rejects_at_the_same_field(suite: dict[str, Any], case: dict[str, Any]) -> None:
    obj = _build(suite, case)
    findings = [f for f in lint_text(yaml.safe_dump(obj), target=_release(suite)) if f.severity == Severity.ERROR]
    if not case["expect"]:
        assert [f for f in findings if f.code in VALIDATION_RULES] == []
        return
    for expected in case["expect"]:
        path = tuple(_steps(expected.rsplit(" ", 1)[0]))
        absent = _dig(obj, path) is None
        assert any(f.field_path[: len(path)] == path or (absent and f.field_path == path[:-1]) for f in findings), (
            expected,
            [(f.code, f.field_path) for f in findings],
        )


def test_case_counts() -> None:
    """The data set keeps its size (the counts are quoted in the README)."""
    counts: Counter[str] = Counter()
    for _, suite in _suites():
        for mode in ("create", "update", "not_judgeable"):
            for cases in (suite.get(mode) or {}).values():
                for case in cases:
                    verdict = (
                        "not judgeable" if mode == "not_judgeable" else "rejected" if case["expect"] else "accepted"
                    )
                    counts[f"{suite['kind']} {mode} {verdict}"] += 1
    assert sum(counts.values()) >= 100, counts
