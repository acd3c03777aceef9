"""A rule that raises must fail its tests, and the CLI must say so with status 2; property tests are
seeded.

The engine catches a rule's exception so that one bug does not lose the other findings; the run
records it as an internal error (`LintResult.internal_errors`). These tests inject a raise into
rules and show that the fixture tests fail (the helpers of conftest.py check every run), and that
`waslint lint` prints one line per error on stderr, still reports the other findings, and exits 2.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from test_rule_fixtures import RULES_DIR, _base_text, lint_fixture

from conftest import ROOT, RuleCrashed, lint_path, lint_text, lint_texts, run_cli
from waslint.lint.registry import Rule, all_rules, get_rule

RULE_FIXTURES_TESTS = ROOT / "tests" / "test_rule_fixtures.py"


class Injected(RuntimeError):
    """The bug put into a rule by these tests."""


def _raises(*args: object) -> list[object]:
    raise Injected("injected for the test")


def inject_raise(monkeypatch: pytest.MonkeyPatch, rule: Rule) -> None:
    """Make every check the rule defines raise (per object, over the set, or both)."""
    cls = type(rule)
    if cls.check is not Rule.check:
        monkeypatch.setattr(cls, "check", _raises)
    if rule.is_set_rule:
        monkeypatch.setattr(cls, "check_set", _raises)


# Rules whose findings the engine makes itself (unused suppressions, parse errors, kustomize builds
# that fail: lint/gitops.py): no check to break. A crash there is the run's own: status 2.
ENGINE_RULES = {"WAS000", "WAS001", "WAS005"}
CHECKED = [rule.code for rule in all_rules() if rule.code not in ENGINE_RULES]


def test_every_rule_but_the_engine_s_own_has_a_check_to_break() -> None:
    for code in CHECKED:
        rule = get_rule(code)
        assert rule is not None
        assert type(rule).check is not Rule.check or rule.is_set_rule, code


@pytest.mark.parametrize("code", ["WAS301", "WAS305"])  # a per-object rule, a set rule
def test_a_rule_that_raises_fails_its_own_fixture_tests(
    code: str, monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester
) -> None:
    """The proof of the contract: the real fixture tests, run in this process with the rule broken."""
    rule = get_rule(code)
    assert rule is not None
    inject_raise(monkeypatch, rule)
    reports = pytester.inline_run(str(RULE_FIXTURES_TESTS), "-k", code, "-p", "no:cacheprovider", "-q")
    failed = {report.nodeid.split("::")[1] for report in reports.getfailures() if report.when == "call"}
    assert {
        f"test_bad_fixture_has_exactly_the_expected_findings[{code}]",
        f"test_good_fixture_is_silent[{code}]",
        f"test_documented_example_fires_and_use_instead_is_silent[{code}]",
    } <= failed
    failure = "\n".join(str(report.longrepr) for report in reports.getfailures())
    assert "RuleCrashed" in failure and f"internal error in {code}" in failure and "Injected" in failure


@pytest.mark.parametrize("code", CHECKED)
def test_each_rule_s_bad_and_good_fixtures_run_its_check(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rule, broken, fails on both its fixtures: each fixture runs the rule's check at least
    once (a good.yaml the rule never looks at would prove nothing)."""
    rule = get_rule(code)
    assert rule is not None
    inject_raise(monkeypatch, rule)
    folder = RULES_DIR / code
    for name in ("bad.yaml", "good.yaml"):
        text = (folder / name).read_text()
        with pytest.raises(RuleCrashed, match=f"internal error in {code}.*Injected"):
            lint_fixture(folder, text, name, _base_text(folder), tmp_path / name, monkeypatch)


def test_every_helper_fails_on_an_internal_error_unless_asked_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = get_rule("WAS301")
    assert rule is not None
    job = (RULES_DIR / "WAS301" / "bad.yaml").read_text()
    inject_raise(monkeypatch, rule)
    (tmp_path / "job.yaml").write_text(job)
    with pytest.raises(RuleCrashed):
        lint_text(job)
    with pytest.raises(RuleCrashed):
        lint_texts({"job.yaml": job})
    with pytest.raises(RuleCrashed):
        lint_path(tmp_path)
    result = lint_path(tmp_path, allow_internal_errors=True)
    assert result.internal_errors and all("internal error in WAS301" in e for e in result.internal_errors)
    assert lint_text(job, allow_internal_errors=True) == []  # WAS301's findings are lost with it


# The CLI with one rule broken: a child that patches the rule, then runs `waslint` as users do.
_BROKEN_CLI = """
import sys
from waslint.lint.registry import Rule, get_rule
from waslint.cli import main

def raises(*args):
    raise RuntimeError("injected for the test")

rule = get_rule(sys.argv[1])
if type(rule).check is not Rule.check:
    type(rule).check = raises
if rule.is_set_rule:
    type(rule).check_set = raises
sys.argv = ["waslint", *sys.argv[2:]]
main()
"""


def _one_job(folder: Path, name: str = "job.yaml") -> Path:
    """The first document of WAS301's bad.yaml: one Job, so a broken WAS301 raises once."""
    path = folder / name
    path.write_text((RULES_DIR / "WAS301" / "bad.yaml").read_text().split("---")[0])
    return path


@pytest.mark.parametrize("fmt", ["concise", "json"])
def test_a_crash_in_a_rule_exits_2_with_one_line_and_keeps_the_other_findings(fmt: str, tmp_path: Path) -> None:
    """cli.md: an internal error is status 2 with one line on stderr (no traceback), and the
    other rules' findings are still reported."""
    args = ["lint", "--format", fmt, str(_one_job(tmp_path)), str(RULES_DIR / "WAS101" / "bad.yaml")]
    result = run_cli(*args, program=[sys.executable, "-c", _BROKEN_CLI, "WAS301"])
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("waslint: internal error in WAS301 on Job ml/train in ")
    assert lines[0].endswith("RuntimeError: injected for the test (please report this bug)")
    if fmt == "json":
        codes = [finding["code"] for finding in json.loads(result.stdout)["findings"]]
    else:
        codes = [line.split()[1] for line in result.stdout.splitlines() if line.count(":") >= 3]
    assert codes.count("WAS101") == 2 and "WAS301" not in codes


def test_a_crash_in_a_rule_during_fix_exits_2_and_says_so_in_one_line(tmp_path: Path) -> None:
    """`fix --diff` with WAS103 broken on a 1.36 Workload: status 2, one internal-error line, and
    WAS101's rewrite (which maps the 1.36 disruptionMode itself) still shown."""
    old = tmp_path / "old.yaml"
    old.write_text(
        "apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: training, namespace: ml}\n"
        "spec:\n  podGroupTemplates:\n  - name: workers\n    schedulingPolicy: {gang: {minCount: 4}}\n"
        "    disruptionMode: PodGroup\n"
    )
    result = run_cli("fix", "--diff", str(old), program=[sys.executable, "-c", _BROKEN_CLI, "WAS103"])
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if "internal error" in line]
    assert errors == [
        f"waslint: internal error in WAS103 on Workload ml/training in {old}: RuntimeError: injected for the test"
        " (please report this bug)"
    ], result.stderr
    assert "Traceback" not in result.stderr
    assert "+apiVersion: scheduling.k8s.io/v1beta1" in result.stdout


def test_internal_errors_of_forked_workers_reach_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With --jobs 2 the per-object rules run in workers: every crash still comes back, once."""
    from waslint.io import batch

    monkeypatch.setattr(batch, "MIN_PARALLEL_FILES", 1)
    monkeypatch.setattr(batch, "MIN_PARALLEL_BYTES", 1)
    for number in range(6):
        _one_job(tmp_path, f"job{number}.yaml")
    (tmp_path / "old.yaml").write_text((RULES_DIR / "WAS101" / "bad.yaml").read_text())
    rule = get_rule("WAS301")
    assert rule is not None
    inject_raise(monkeypatch, rule)
    serial = lint_path(tmp_path, jobs=1, allow_internal_errors=True)
    parallel = lint_path(tmp_path, jobs=2, allow_internal_errors=True)
    assert len(serial.internal_errors) == 6
    assert sorted(parallel.internal_errors) == sorted(serial.internal_errors)
    assert [f.code for f in parallel.findings] == [f.code for f in serial.findings] == ["WAS101", "WAS101"]


# -- the property tests are deterministic under the default profile --------------------------------------


@pytest.mark.skipif(
    os.environ.get("WASLINT_HYPOTHESIS_PROFILE", "ci") != "ci", reason="another hypothesis profile is loaded"
)
def test_property_tests_draw_the_same_examples_on_every_run() -> None:
    """The `ci` profile of conftest.py is loaded by default: derandomized, no example database,
    no deadline. Two runs of one property draw the same examples."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    current = settings()
    assert current.derandomize and current.database is None and current.deadline is None

    def drawn() -> list[str]:
        seen: list[str] = []

        @given(st.text(max_size=8))
        def record(value: str) -> None:
            seen.append(value)

        record()
        return seen

    first = drawn()
    assert len(first) > 10 and first == drawn()
