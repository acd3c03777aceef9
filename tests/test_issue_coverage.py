"""No schema or validation problem is left to a rule that does not run at that target.

WAS002 (JSON schema) and WAS003 (upstream validation) leave some of their issues to a more
specific rule (`_explained_elsewhere` in lint/rules/input/schema_violation.py; `ROUTES` and the
missing-key case in lint/rules/input/upstream.py). At every supported target, every issue of every rule fixture
(each file linted on its own, every rule on) must be reported by some rule: a finding on the same
document whose field is the issue's field, one of its parents, or below it.

And each API constraint lives in one place: upstream validation detects what the API server
rejects, the rules of `ROUTES` only word it. With upstream validation silenced they report nothing
(but what is theirs alone: KAI's annotation, PriorityClass references, KEP-only combinations), and
no field gets findings of two codes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import FIXTURES, lint_path
from waslint.core.model import Path as FieldPath
from waslint.findings import Finding
from waslint.knowledge.releases import supported
from waslint.lint.rules.input import schema_violation as input_rules
from waslint.lint.rules.input import upstream

FIXTURE_FILES = sorted([*FIXTURES.glob("rules/*/bad.yaml"), *FIXTURES.glob("rules/*/good.yaml")])
ISSUE_CODES = ("WAS002", "WAS003")

# A v1alpha2 PodGroup whose template reference misses podGroupTemplateName, and one that holds it
# a level too deep: at 1.36 nothing reported them (WAS002 left them to WAS104, which runs from 1.37).
LEGACY_REFS = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata:
  name: w
spec:
  podGroupTemplateRef:
    workload:
      workloadName: training
  schedulingPolicy:
    gang:
      minCount: 4
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata:
  name: w2
spec:
  podGroupTemplateRef:
    workload:
      workloadName: training
      template:
        podGroupTemplateName: workers
  schedulingPolicy:
    gang:
      minCount: 4
"""


def _related(finding: FieldPath, issue: FieldPath) -> bool:
    shorter = min(len(finding), len(issue))
    return tuple(finding[:shorter]) == tuple(issue[:shorter])


def _issues_and_findings(
    path: Path, target: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Finding], list[Finding]]:
    """(every WAS002/WAS003 issue, nothing left out; the findings of the ordinary run)."""
    with monkeypatch.context() as patched:
        patched.setattr(input_rules, "_explained_elsewhere", lambda *_: False)
        patched.setattr(upstream, "left_to_another_rule", lambda *_: False)
        everything = lint_path(path, target=target, select=list(ISSUE_CODES)).findings
    return everything, lint_path(path, target=target, inline_ignores=False).findings


def _unreported(path: Path, target: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    issues, findings = _issues_and_findings(path, target, monkeypatch)
    missed = []
    for issue in issues:
        if not any(
            f.document == issue.document and f.code != "WAS000" and _related(f.field_path, issue.field_path)
            for f in findings
        ):
            missed.append(f"{path.parent.name}/{path.name}:{issue.span.line} at {target}: {issue.code} {issue.message}")
    return missed


@pytest.mark.parametrize("target", [str(release) for release in supported()])
def test_every_issue_of_the_rule_fixtures_is_reported_by_a_rule_that_runs(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    missed = [line for path in FIXTURE_FILES for line in _unreported(path, target, monkeypatch)]
    assert missed == []


@pytest.mark.parametrize("target", [str(release) for release in supported()])
def test_legacy_template_refs_are_reported_at_every_target(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "podgroups.yaml"
    path.write_text(LEGACY_REFS)
    assert _unreported(path, target, monkeypatch) == []
    found = lint_path(path, target=target).findings
    assert {f.document for f in found if f.code != "WAS000"} == {0, 1}, [(f.code, f.message) for f in found]


def test_at_1_36_the_schema_reports_the_missing_and_the_misplaced_template_name(tmp_path: Path) -> None:
    path = tmp_path / "podgroups.yaml"
    path.write_text(LEGACY_REFS)
    found = [(f.span.line, f.code) for f in lint_path(path, target="1.36").findings]
    assert found == [(7, "WAS002"), (19, "WAS002"), (21, "WAS002")]


WORDING_RULES = sorted({route.code for route in upstream.ROUTES})
# the parts of these rules that are no API validation: KAI's batch-min-member annotation (WAS306),
# PriorityClass references (WAS405), `all` over basic outside a Job, `single` under `all` (WAS605)
NOT_API = ("batch-min-member", "PriorityClass", "is single", "no disruptionMode", "with a basic policy")


@pytest.mark.parametrize("target", [str(release) for release in supported()])
def test_the_wording_rules_detect_nothing_upstream_validation_does_not(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(upstream, "upstream_issues", lambda *_: [])
    found = [
        f"{path.parent.name}/{path.name}:{f.span.line} {f.code} {f.message[:90]}"
        for path in FIXTURE_FILES
        for f in lint_path(path, target=target, select=WORDING_RULES, inline_ignores=False).findings
        if f.code in WORDING_RULES and not any(word in f.message for word in NOT_API)
    ]
    assert found == []


@pytest.mark.parametrize("target", [str(release) for release in supported()])
def test_no_field_is_reported_under_two_codes(target: str) -> None:
    doubled = []
    for path in FIXTURE_FILES:
        seen: dict[tuple[int | None, tuple[object, ...]], str] = {}
        for f in lint_path(path, target=target, inline_ignores=False).findings:
            if f.code not in (*WORDING_RULES, "WAS002", "WAS003") or f.severity.label != "error":
                continue
            key = (f.document, tuple(f.field_path))
            if seen.setdefault(key, f.code) != f.code:
                doubled.append(f"{path.parent.name}/{path.name}:{f.span.line} {seen[key]} and {f.code}")
    assert doubled == []
