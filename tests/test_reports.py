"""Reports people can read at 500 findings: statistics, concise, thresholds, wrapping, CI formats."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES, ROOT, lint_path, run_cli
from waslint.lint.registry import all_rules, get_rule
from waslint.report import split_message
from waslint.report.text import clip_line

RULE_FIXTURES = FIXTURES / "rules"


# --------------------------------------------------------------------------- rule descriptors


def test_report_package_imports_only_core_and_findings() -> None:
    allowed = ("waslint.core", "waslint.findings", "waslint.report")
    for module in sorted((ROOT / "src" / "waslint" / "report").glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] if node.module != "waslint" else [f"waslint.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                if name.startswith("waslint.") and name != "waslint.__version__":
                    assert name.startswith(allowed), f"{module.name} imports {name}"


def test_every_finding_carries_a_severity_its_rule_documents() -> None:
    targets = [RULE_FIXTURES, FIXTURES / "demo"]
    if (CORPUS / "was").is_dir():
        targets.append(CORPUS / "was")
    result = lint_path(*targets)
    seen = {(f.code, f.severity) for f in result.findings}
    for code, severity in seen:
        rule = get_rule(code)
        assert rule is not None
        assert severity in rule.severities, f"{code} emits {severity.label}, documents {rule.severity_label}"
    # the rules that emit two severities are documented with both
    assert get_rule("WAS305").severity_label == "error/warning"  # type: ignore[union-attr]
    assert get_rule("WAS405").severity_label == "error/warning"  # type: ignore[union-attr]


def test_rules_listing_shows_both_severities() -> None:
    rows = {line.split()[0]: line for line in run_cli("rules").stdout.splitlines()[1:]}
    assert " error/warning " in rows["WAS305"]
    assert " error/warning " in rows["WAS405"]
    assert " error " in rows["WAS103"] and "/" not in rows["WAS103"].split()[2]
    listing = json.loads(run_cli("rules", "--format", "json").stdout)
    by_code = {rule["code"]: rule for rule in listing}
    assert by_code["WAS405"]["severity"] == "warning"
    assert by_code["WAS405"]["severities"] == ["error", "warning"]
    assert "findings carry error/warning" in run_cli("explain", "WAS305").stdout


def test_explain_takes_a_rule_name() -> None:
    by_name = run_cli("explain", "legacy-disruption-mode")
    assert by_name.returncode == 0
    assert by_name.stdout == run_cli("explain", "WAS103").stdout
    misspelt = run_cli("explain", "legacy-disruption-mod")
    assert misspelt.returncode == 2
    assert "did you mean legacy-disruption-mode?" in misspelt.stderr


def test_sarif_rules_come_from_the_descriptors() -> None:
    log = json.loads(run_cli("lint", "--format", "sarif", str(RULE_FIXTURES / "WAS305")).stdout)
    driver = log["runs"][0]["tool"]["driver"]
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in all_rules()]
    was305 = next(rule for rule in driver["rules"] if rule["id"] == "WAS305")
    assert was305["properties"]["severities"] == ["error", "warning"]
    levels = {result["level"] for result in log["runs"][0]["results"] if result["ruleId"] == "WAS305"}
    assert levels == {"error", "warning"}


# --------------------------------------------------------------------------- reading 500 findings

DEMO = FIXTURES / "demo"
CONCISE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>WAS\d{3}) (?P<message>.+)$")


def _json_findings(*args: str) -> list[dict[str, Any]]:
    return json.loads(run_cli("lint", "--format", "json", *args).stdout)["findings"]  # type: ignore[no-any-return]


def test_statistics_count_each_code_with_name_severity_and_fixable() -> None:
    findings = _json_findings(str(RULE_FIXTURES))
    result = run_cli("lint", "--statistics", str(RULE_FIXTURES))
    assert result.returncode == 1  # the exit status is the same as without --statistics
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["COUNT", "CODE", "NAME", "SEVERITY", "FIXABLE"]
    rows = {parts[1]: parts for parts in (line.split() for line in lines[1:-1])}
    for code in {f["code"] for f in findings}:
        mine = [f for f in findings if f["code"] == code]
        count, _, name, severity, fixable = rows[code]
        assert int(count) == len(mine)
        assert name == mine[0]["name"]
        assert set(severity.split("/")) == {f["severity"] for f in mine}
        assert int(fixable) == sum(f["fixable"] for f in mine)
    counts = [int(rows[code][0]) for code in rows]
    assert counts == sorted(counts, reverse=True)
    assert lines[-1].startswith(f"{len(findings)} findings in {len(rows)} codes")
    as_json = json.loads(run_cli("lint", "--statistics", "--format", "json", str(RULE_FIXTURES)).stdout)
    assert {entry["code"]: entry["count"] for entry in as_json} == {code: int(row[0]) for code, row in rows.items()}
    assert run_cli("lint", "--statistics", "--format", "sarif", str(DEMO)).returncode == 2


def test_concise_is_one_greppable_line_per_finding() -> None:
    findings = _json_findings(str(RULE_FIXTURES))
    result = run_cli("lint", "--format", "concise", "-q", str(RULE_FIXTURES))
    lines = result.stdout.splitlines()
    assert len(lines) == len(findings)
    for line, finding in zip(lines, findings, strict=True):
        match = CONCISE.match(line)
        assert match, line
        assert (match["path"], int(match["line"]), int(match["col"]), match["code"]) == (
            finding["path"],
            finding["line"],
            finding["column"],
            finding["code"],
        )
        assert match["message"] == " ".join(finding["message"].split())
    with_summary = run_cli("lint", "--format", "concise", str(DEMO)).stdout.splitlines()
    assert with_summary[-1].startswith("Found 12 findings")


def test_quiet_prints_findings_only_and_nothing_when_clean() -> None:
    clean = run_cli("lint", "-q", str(RULE_FIXTURES / "WAS103" / "good.yaml"))
    assert (clean.returncode, clean.stdout) == (0, "")
    noisy = run_cli("lint", "--quiet", str(DEMO), env={"COLUMNS": "200"})
    assert noisy.returncode == 1
    assert "Found" not in noisy.stdout and "WAS201" in noisy.stdout


def test_show_level_hides_findings_but_not_from_the_exit_status() -> None:
    info_only = str(RULE_FIXTURES / "WAS106" / "bad.yaml")
    assert {f["severity"] for f in _json_findings(info_only)} == {"info"}
    hidden = run_cli("lint", "--show-level", "warning", "--fail-on", "info", "--format", "concise", info_only)
    assert hidden.returncode == 1
    assert not [line for line in hidden.stdout.splitlines() if CONCISE.match(line)]
    assert "below --show-level warning not shown" in hidden.stdout
    shown = _json_findings("--show-level", "error", str(DEMO))
    assert shown and {f["severity"] for f in shown} == {"error"}
    assert len(shown) < len(_json_findings(str(DEMO)))
    assert run_cli("lint", "--show-level", "loud", str(DEMO)).returncode == 2


def test_show_fixes_lists_what_fix_would_do() -> None:
    fixable = [f for f in _json_findings(str(DEMO)) if f["fixable"]]
    result = run_cli("lint", "--show-fixes", "-q", "--format", "concise", str(DEMO))
    listed = result.stdout.splitlines()
    start = listed.index(f"{len(fixable)} fixable findings (`waslint fix` would):")
    entries = listed[start + 1 :]
    assert len(entries) == len(fixable)
    for entry, finding in zip(entries, fixable, strict=True):
        assert entry.startswith(f"  {finding['path']}:{finding['line']}:{finding['column']}: {finding['code']} ")
        rule = get_rule(finding["code"])
        assert rule is not None and rule.fix_title in entry
    unsafe = run_cli("lint", "--show-fixes", str(FIXTURES / "fix" / "unsafe-pods" / "input.yaml")).stdout
    assert "[unsafe: --unsafe-fixes]" in unsafe


# --------------------------------------------------------------------------- messages and wrapping


def test_messages_split_into_a_first_sentence_and_the_detail() -> None:
    assert split_message("A is wrong. Set B to 1") == ("A is wrong.", "Set B to 1")
    assert split_message("one sentence: with a clause") == ("one sentence: with a clause", "")
    assert split_message("limit (OverLimit ... Limit is 0). Set it") == ("limit (OverLimit ... Limit is 0).", "Set it")
    assert split_message("e.g. Foo is fine") == ("e.g. Foo is fine", "")


@pytest.mark.parametrize("columns", [60, 100, 180])
def test_text_report_wraps_to_the_terminal_width(columns: int) -> None:
    result = run_cli("lint", str(DEMO), env={"COLUMNS": str(columns), "NO_COLOR": "1"})
    body = result.stdout.splitlines()[:-1]  # the summary is one line, for scripts that read it
    assert body
    assert max(len(line) for line in body) <= columns
    findings = _json_findings(str(DEMO))
    heads = [line for line in body if re.match(r"^  \d+:\d+  ", line)]
    assert len(heads) == len(findings)
    for head, finding in zip(heads, findings, strict=True):
        first, _ = split_message(finding["message"])
        assert head.split(finding["code"], 1)[1].strip() in first + " [fixable]"


def test_caret_stays_inside_the_printed_part_of_a_long_line(tmp_path: Path) -> None:
    pad = "x" * 150
    manifest = tmp_path / "long.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  containers:\n"
        f"  - {{name: c, image: busybox, command: ['sh', '-c', '{pad} && kubectl wait --for=condition=PodGroupScheduled pg/x && {pad}']}}\n"
    )
    result = run_cli("lint", str(manifest), env={"COLUMNS": "80", "NO_COLOR": "1"})
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("     6 | "))
    source, caret = lines[at], lines[at + 1]
    assert len(source) <= 80 and source.startswith("     6 | ...") and source.endswith("...")
    first, last = caret.index("^"), caret.rindex("^")
    assert source[first : last + 1] == "PodGroupScheduled"


@given(
    line=st.text(alphabet="ab c", min_size=0, max_size=300),
    start=st.integers(min_value=0, max_value=320),
    length=st.integers(min_value=1, max_value=400),
    room=st.integers(min_value=1, max_value=200),
)
@settings(max_examples=300, deadline=None)
def test_clip_line_never_puts_the_caret_past_what_it_prints(line: str, start: int, length: int, room: int) -> None:
    start = min(start, len(line))
    shown, caret_start, caret_end = clip_line(line, start, start + length, room)
    assert len(shown) <= max(room, 20)
    visible_end = len(shown) - (3 if shown.endswith("...") and len(line) > max(room, 20) else 0)
    assert 0 <= caret_start < caret_end <= max(visible_end, 1)
    if line and start < len(line):
        offset = start - caret_start
        assert shown[caret_start] == line[start] or (shown.startswith("...") and offset == 0)
