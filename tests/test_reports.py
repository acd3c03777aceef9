"""Reports people can read at 500 findings: statistics, concise, thresholds, wrapping, CI formats."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES, ROOT, examples, lint_path, run_cli
from waslint.lint.registry import all_rules, get_rule
from waslint.report import split_message
from waslint.report.text import clip_line

RULE_FIXTURES = FIXTURES / "rules"


# --------------------------------------------------------------------------- rule descriptors


def test_report_package_imports_only_core_escape_and_findings() -> None:
    allowed = ("waslint.core", "waslint.escape", "waslint.findings", "waslint.report")
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


def _json_findings(*args: str, cwd: Path | None = None) -> list[dict[str, Any]]:
    result = run_cli("lint", "--format", "json", *args, cwd=cwd)
    return json.loads(result.stdout)["findings"]  # type: ignore[no-any-return]


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
@settings(max_examples=examples(300))
def test_clip_line_never_puts_the_caret_past_what_it_prints(line: str, start: int, length: int, room: int) -> None:
    start = min(start, len(line))
    shown, caret_start, caret_end = clip_line(line, start, start + length, room)
    assert len(shown) <= max(room, 20)
    visible_end = len(shown) - (3 if shown.endswith("...") and len(line) > max(room, 20) else 0)
    assert 0 <= caret_start < caret_end <= max(visible_end, 1)
    if line and start < len(line):
        offset = start - caret_start
        assert shown[caret_start] == line[start] or (shown.startswith("...") and offset == 0)


# --------------------------------------------------------------------------- GitHub Actions

V1ALPHA2 = (RULE_FIXTURES / "WAS101" / "bad.yaml").read_text()
LEVEL_ORDER = {"error": 0, "warning": 1, "notice": 2}
ANNOTATION = re.compile(r"^::(?P<level>error|warning|notice) file=(?P<file>[^,]+),line=(?P<line>\d+),")


def _annotations(text: str) -> list[re.Match[str]]:
    found = [ANNOTATION.match(line) for line in text.splitlines()]
    assert all(found), text
    return [match for match in found if match]


def test_github_format_is_the_default_inside_actions_errors_first_with_a_step_summary(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    result = run_cli("lint", "fixtures/demo", cwd=ROOT, env=env)
    assert result.returncode == 1
    annotations = _annotations(result.stdout)
    assert len(annotations) == len(_json_findings(str(DEMO)))
    levels = [LEVEL_ORDER[a["level"]] for a in annotations]
    assert levels == sorted(levels) and levels[0] == 0 and levels[-1] == 2
    assert annotations[0]["file"] == "fixtures/demo/platform/queues.yaml"  # relative to the repository
    text = summary.read_text()
    assert text.startswith("earlier step\n### waslint: 12 findings\n")  # appended, never overwritten
    assert "| WAS101 | api-version-not-served | error | 2 | 2 |" in text
    rows = [line for line in text.splitlines() if line.startswith("| error |") or line.startswith("| info |")]
    assert rows[0].startswith("| error |") and rows[-1].startswith("| info |")
    # an explicit --format wins; no summary for other formats
    explicit = run_cli("lint", "--format", "concise", "-q", "fixtures/demo", cwd=ROOT, env=env)
    assert explicit.stdout.startswith("fixtures/demo/")
    assert summary.read_text() == text


def test_fix_check_annotates_every_pending_rewrite(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text(V1ALPHA2)
    (tmp_path / ".git").mkdir()
    summary = tmp_path / "summary.md"
    planned = json.loads(run_cli("fix", "--check", "--format", "json", ".", cwd=tmp_path).stdout)
    fixes = planned["files"][0]["fixes"]
    assert fixes
    result = run_cli(
        "fix", "--check", ".", cwd=tmp_path, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    )
    assert result.returncode == 1
    annotations = _annotations(result.stdout)
    assert [(a["file"], int(a["line"])) for a in annotations] == [("w.yaml", fix["line"]) for fix in fixes]
    assert all("`waslint fix` would rewrite" in line for line in result.stdout.splitlines())
    assert "### waslint fix --check: " in summary.read_text()
    assert (tmp_path / "w.yaml").read_text() == V1ALPHA2
    sarif = json.loads(run_cli("fix", "--check", "--format", "sarif", ".", cwd=tmp_path).stdout)
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [fix["code"] for fix in fixes]
    location = results[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "w.yaml", "uriBaseId": "%SRCROOT%"}
    _validate_sarif(sarif)


def test_fix_check_and_diff_honour_fail_on(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text(V1ALPHA2)
    for mode in ("--check", "--diff"):
        assert run_cli("fix", mode, "w.yaml", cwd=tmp_path).returncode == 1
        assert run_cli("fix", mode, "--fail-on", "never", "w.yaml", cwd=tmp_path).returncode == 0
    # nothing to rewrite, but a finding left at or above --fail-on (a chart template whose migration
    # would delete a template action is not rewritten)
    (tmp_path / "chart.yaml").write_text(
        (RULE_FIXTURES.parent / "helm" / "trainer" / "templates" / "launcher.yaml").read_text()
    )
    held = run_cli("fix", "--check", "chart.yaml", cwd=tmp_path)
    assert held.returncode == 1 and "Nothing to fix in 1 file." in held.stdout
    assert run_cli("fix", "--check", "--fail-on", "never", "chart.yaml", cwd=tmp_path).returncode == 0
    assert run_cli("fix", "--check", "--ignore", "WAS101", "chart.yaml", cwd=tmp_path).returncode == 0


# --------------------------------------------------------------------------- SARIF and stdin


def _validate_sarif(log: dict[str, Any]) -> None:
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(log, schema)


def test_sarif_uris_are_relative_to_the_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "deploy" / "team a").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "deploy" / "team a" / "w.yaml").write_text(V1ALPHA2)
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(V1ALPHA2)
    for cwd, target in ((repo, "deploy"), (repo / "deploy", "."), (tmp_path, str(repo / "deploy"))):
        log = json.loads(run_cli("lint", "--format", "sarif", target, cwd=cwd).stdout)
        _validate_sarif(log)
        run = log["runs"][0]
        assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == (repo if cwd != tmp_path else tmp_path).as_uri() + "/"
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
        expected = "deploy/team%20a/w.yaml" if cwd != tmp_path else "repo/deploy/team%20a/w.yaml"
        assert uris == {expected}
    log = json.loads(run_cli("lint", "--format", "sarif", str(outside), cwd=repo).stdout)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": outside.as_uri()}
    _validate_sarif(log)


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "github", "concise", "text"])
def test_stdin_is_dash_in_every_format_unless_named(fmt: str, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    plain = run_cli("lint", "--format", fmt, "-", stdin=V1ALPHA2, cwd=tmp_path).stdout
    named = run_cli("lint", "--format", fmt, "--stdin-filename", "deploy/w.yaml", "-", stdin=V1ALPHA2, cwd=tmp_path)
    spelled = {
        "json": ('"path": "-"', '"path": "deploy/w.yaml"'),
        "sarif": ('"uri": "-"', '"uri": "deploy/w.yaml"'),
        "junit": ('name="-"', 'name="deploy/w.yaml"'),
        "github": ("file=-,", "file=deploy/w.yaml,"),
        "concise": ("-:2:1: WAS101", "deploy/w.yaml:2:1: WAS101"),
        "text": ("-\n", "deploy/w.yaml\n"),
    }[fmt]
    assert spelled[0] in plain and '"stdin"' not in plain
    assert spelled[1] in named.stdout and spelled[0] not in named.stdout


def test_per_path_config_applies_to_stdin_through_stdin_filename(tmp_path: Path) -> None:
    (tmp_path / ".waslint.yaml").write_text('per-path-ignores:\n  "legacy/*": [WAS1]\n')
    assert run_cli("lint", "-", stdin=V1ALPHA2, cwd=tmp_path).returncode == 1
    named = run_cli("lint", "--stdin-filename", "legacy/w.yaml", "-", stdin=V1ALPHA2, cwd=tmp_path)
    assert named.returncode == 0, named.stdout
    # the config is found from the named file's folder, as for a file on disk
    (tmp_path / "legacy").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    from_afar = run_cli(
        "lint", "--stdin-filename", str(tmp_path / "legacy" / "w.yaml"), "-", stdin=V1ALPHA2, cwd=elsewhere
    )
    assert from_afar.returncode == 0, from_afar.stdout
    fixed = run_cli("fix", "--stdin-filename", "deploy/w.yaml", "-", stdin=V1ALPHA2, cwd=tmp_path)
    assert fixed.returncode == 0 and "scheduling.k8s.io/v1beta1" in fixed.stdout


# --------------------------------------------------------------------------- config in real repositories

TEMPLATE = "{{- if .Values.gang }}\nkind: {{ .Values.kind }\n{{- end }}\n"


def test_exclude_matches_however_the_path_is_given(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    templates = repo / "charts" / "gpu" / "templates"
    templates.mkdir(parents=True)
    (templates / "workload.yaml").write_text(TEMPLATE)
    (repo / "vendor" / "x").mkdir(parents=True)
    (repo / "vendor" / "x" / "w.yaml").write_text(V1ALPHA2)
    (repo / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    (repo / ".waslint.yaml").write_text("exclude: [charts/*/templates, vendor]\n")
    template = templates / "workload.yaml"
    cases = [
        (repo, ["."]),
        (repo, ["charts/gpu/templates/workload.yaml", "ok.yaml"]),  # named, as pre-commit does
        (repo, ["./charts/gpu/templates/workload.yaml"]),
        (repo, [str(template)]),
        (repo / "charts", ["gpu/templates/workload.yaml"]),  # relative to the config's folder, not the cwd
        (repo / "charts" / "gpu", ["."]),
        (tmp_path, [str(repo)]),
        (repo, ["vendor/x/w.yaml"]),
    ]
    for cwd, args in cases:
        result = run_cli("lint", "--format", "json", *args, cwd=cwd)
        assert result.returncode == 0, (cwd, args, result.stdout, result.stderr)
        assert json.loads(result.stdout)["findings"] == [], (cwd, args)
    (repo / ".waslint.yaml").write_text("exclude: []\n")
    assert run_cli("lint", "charts/gpu/templates/workload.yaml", cwd=repo).returncode == 1


def test_the_config_is_found_from_the_linted_paths(tmp_path: Path) -> None:
    for team, ignored in (("team-a", "WAS101"), ("team-b", "WAS103")):
        (tmp_path / team).mkdir()
        (tmp_path / team / ".waslint.yaml").write_text(f"ignore: [{ignored}]\n")
        (tmp_path / team / "w.yaml").write_text((DEMO / "training" / "workload.yaml").read_text())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    one = _json_findings(str(tmp_path / "team-a" / "w.yaml"), cwd=elsewhere)
    assert one and "WAS101" not in {f["code"] for f in one}
    both = _json_findings(str(tmp_path / "team-a"), str(tmp_path / "team-b" / "w.yaml"), cwd=elsewhere)
    by_team = {team: {f["code"] for f in both if f"/{team}/" in f["path"]} for team in ("team-a", "team-b")}
    assert "WAS101" not in by_team["team-a"] and "WAS103" in by_team["team-a"]
    assert "WAS103" not in by_team["team-b"] and "WAS101" in by_team["team-b"]
    assert [f["path"] for f in both] == sorted(f["path"] for f in both)
    # --config still wins over every nearer file
    (elsewhere / "strict.yaml").write_text("select: [WAS101]\n")
    forced = _json_findings("--config", str(elsewhere / "strict.yaml"), str(tmp_path / "team-a"), cwd=elsewhere)
    assert {f["code"] for f in forced} == {"WAS101"}


def test_select_accumulates_and_warns_when_config_ignore_removes_it(tmp_path: Path) -> None:
    picked = {f["code"] for f in _json_findings("--select", "WAS101", "--select", "WAS103,WAS104", str(DEMO))}
    assert picked == {"WAS101", "WAS103", "WAS104"}
    ignored = {f["code"] for f in _json_findings("--ignore", "WAS101", "--ignore", "WAS103", str(DEMO))}
    assert not ignored & {"WAS101", "WAS103"} and "WAS104" in ignored
    (tmp_path / ".waslint.yaml").write_text("ignore: [WAS103]\n")
    (tmp_path / "w.yaml").write_text((DEMO / "training" / "workload.yaml").read_text())
    result = run_cli("lint", "--select", "WAS103", "--select", "WAS101", "w.yaml", cwd=tmp_path)
    assert "warning: --select WAS103: `ignore` in" in result.stderr
    assert "WAS101" not in result.stderr.split("warning:", 1)[1].split("\n", 1)[0].split("(")[0]
    assert "WAS103" not in result.stdout and "WAS101" in result.stdout
    quiet = run_cli("lint", "--select", "WAS101", "w.yaml", cwd=tmp_path)
    assert "warning" not in quiet.stderr


def test_a_misspelt_gate_in_gates_names_the_closest_one(tmp_path: Path) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text("kube-scheduler:\n  GangSchedulng: true\n")
    result = run_cli("lint", "--gates", str(gates), str(DEMO))
    assert result.returncode == 2
    assert "kube-scheduler.GangSchedulng: unknown feature gate; did you mean GangScheduling?" in result.stderr
    gates.write_text("kube-scheduler:\n  genericworkload: true\n")
    assert "did you mean GenericWorkload?" in run_cli("lint", "--gates", str(gates), str(DEMO)).stderr
    gates.write_text("kube-scheduler:\n  GenericWorkload: true\n  SidecarContainers: true\n")  # not a WAS gate: kept
    assert run_cli("lint", "--gates", str(gates), str(DEMO)).returncode == 1


def test_the_usage_page_shows_the_real_statistics_concise_and_show_fixes_output() -> None:
    usage = (ROOT / "docs" / "usage.md").read_text()
    section = usage.split("### Reading 500 findings", 1)[1].split("\n## ", 1)[0]
    outputs = re.findall(r"```\n(.*?)```", re.sub(r"```sh\n.*?```", "", section, flags=re.S), re.S)
    statistics = run_cli("lint", "--statistics", "fixtures/demo", cwd=ROOT).stdout
    concise = run_cli("lint", "--format", "concise", "--show-level", "error", "-q", "fixtures/demo/training", cwd=ROOT)
    fixes = run_cli(
        "lint",
        "--show-fixes",
        "-q",
        "--format",
        "concise",
        "--select",
        "WAS1",
        "fixtures/demo/training/workload.yaml",
        cwd=ROOT,
    ).stdout
    assert outputs[0] == statistics
    assert outputs[1] == "".join(line + "\n" for line in concise.stdout.splitlines() if "WAS502" in line)
    assert fixes.endswith(outputs[2])


def test_colour_changes_nothing_but_escape_codes() -> None:
    from waslint.report import ReportInput
    from waslint.report.text import render

    result = lint_path(DEMO)
    sources = {source.path: source.text for source in result.files}
    rules = [rule.info for rule in all_rules()]

    def report(color: bool) -> str:
        return render(
            ReportInput(
                result.findings, len(result.files), result.documents, "1.37", sources, color, rules=rules, width=72
            )
        )

    coloured = report(True)
    assert "\x1b[31m" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == report(False)
