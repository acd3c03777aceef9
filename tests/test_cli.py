"""The command line as users and CI scripts see it: exit codes, formats, flags, config, stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import jsonschema
import pytest

from conftest import FIXTURES, ROOT, run_cli

BAD = FIXTURES / "rules" / "WAS103" / "bad.yaml"
GOOD = FIXTURES / "rules" / "WAS103" / "good.yaml"
WARNING_ONLY = FIXTURES / "rules" / "WAS102" / "bad.yaml"


def test_exit_status_follows_findings() -> None:
    assert run_cli("lint", str(GOOD)).returncode == 0
    assert run_cli("lint", str(BAD)).returncode == 1
    assert run_cli("lint", str(WARNING_ONLY)).returncode == 0
    assert run_cli("lint", "--fail-on", "warning", str(WARNING_ONLY)).returncode == 1
    assert run_cli("lint", "--fail-on", "never", str(BAD)).returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["lint", "--target-version", "1.38", "x"], "not a supported release"),
        (["lint", "--target-version", "banana", "x"], "not a supported release"),
        (["lint", "/no/such/path"], "no such file"),
        (["lint", "--select", "WAS999", "."], "unknown rule code"),
        (["lint", "--format", "xml", str(FIXTURES)], "--format"),
        (["lint", "--fail-on", "sometimes", "."], "--fail-on"),
        (["explain", "WAS999"], "unknown rule code"),
        (["lint", "--snapshot", "/no/such/snapshot.yaml", "."], "no such file"),
    ],
)
def test_run_failures_exit_2_with_a_message(args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_parse_error_is_a_finding_not_status_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: [unclosed\n")
    result = run_cli("lint", "--format", "json", str(broken))
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert [f["code"] for f in payload["findings"]] == ["WAS001"]


def test_json_report_shape() -> None:
    result = run_cli("lint", "--format", "json", str(BAD))
    payload = json.loads(result.stdout)
    assert set(payload) == {"tool", "version", "target_version", "findings", "summary"}
    assert payload["target_version"] == "1.37"
    finding = payload["findings"][0]
    assert set(finding) == {
        "code",
        "name",
        "severity",
        "message",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "document",
        "object",
        "fixable",
    }
    assert finding["path"] == str(BAD)
    assert (finding["code"], finding["line"], finding["column"]) == ("WAS103", 12, 5)
    assert finding["object"] == {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "namespace": "ml",
        "name": "training",
    }
    assert payload["summary"] == {
        "files": 1,
        "documents": 1,
        "findings": 1,
        "by_severity": {"error": 1, "warning": 0, "info": 0},
    }


def test_stdin_is_linted_with_path_dash() -> None:
    result = run_cli("lint", "--format", "json", "-", stdin=BAD.read_text())
    assert result.returncode == 1
    assert json.loads(result.stdout)["findings"][0]["path"] == "-"


def test_sarif_validates_against_the_2_1_0_schema() -> None:
    result = run_cli("lint", "--format", "sarif", str(FIXTURES / "rules"))
    log = json.loads(result.stdout)
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(log, schema)
    results = log["runs"][0]["results"]
    assert results and all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)
    rule_ids = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rule_ids[r["ruleIndex"]] == r["ruleId"] for r in results)


def test_junit_and_github_formats(tmp_path: Path) -> None:
    out = tmp_path / "report.xml"
    assert run_cli("lint", "--format", "junit", "-o", str(out), str(BAD), str(GOOD)).returncode == 1
    root = ElementTree.parse(out).getroot()
    cases = root.findall(".//testcase")
    assert len(cases) == 2 and len(root.findall(".//failure")) == 1
    github = run_cli("lint", "--format", "github", str(BAD)).stdout
    from waslint.report import relative_path, source_root

    assert github.startswith(f"::error file={relative_path(str(BAD), source_root())},line=12,col=5,")
    assert "title=WAS103 legacy-disruption-mode::" in github


def test_text_report_shows_source_line_and_caret_without_colour() -> None:
    result = run_cli("lint", str(BAD), env={"NO_COLOR": "1", "COLUMNS": "200"})
    lines = result.stdout.splitlines()
    assert lines[0] == str(BAD)
    assert "12:5" in lines[1] and "WAS103" in lines[1]
    assert lines[2].rstrip().endswith("disruptionMode: PodGroup   # 1.36 string form")
    assert lines[3].index("^") == lines[2].index("disruptionMode")
    assert lines[3].count("^") == len("disruptionMode: PodGroup")
    assert "\x1b[" not in result.stdout
    assert lines[-1].startswith("Found 1 finding (1 error, 0 warnings, 0 info)")


def test_select_ignore_and_target_version() -> None:
    v1alpha2 = FIXTURES / "rules" / "WAS101" / "bad.yaml"
    assert run_cli("lint", "--ignore", "WAS1", str(v1alpha2)).returncode == 0
    assert run_cli("lint", "--select", "WAS2", str(v1alpha2)).returncode == 0
    on_136 = json.loads(run_cli("lint", "--format", "json", "--target-version", "1.36", str(v1alpha2)).stdout)
    messages = [(f["code"], f["line"]) for f in on_136["findings"]]
    assert ("WAS101", 14) in messages  # the v1alpha1 Workload: gone in 1.36
    assert ("WAS101", 2) not in messages  # v1alpha2 is served by 1.36
    beta_on_136 = json.loads(run_cli("lint", "--format", "json", "--target-version", "1.36", str(GOOD)).stdout)
    assert [f["code"] for f in beta_on_136["findings"]] == ["WAS101"]
    assert "rewrite it as scheduling.k8s.io/v1alpha2" in beta_on_136["findings"][0]["message"]


def test_config_file_and_invalid_config(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(BAD.read_text())
    (tmp_path / ".waslint.yaml").write_text("severity:\n  WAS103: warning\n")
    assert run_cli("lint", "m.yaml", cwd=tmp_path).returncode == 0
    (tmp_path / ".waslint.yaml").write_text("per-path-ignores:\n  'm.yaml': [WAS103]\n")
    payload = json.loads(run_cli("lint", "--format", "json", "m.yaml", cwd=tmp_path).stdout)
    assert payload["findings"] == []
    (tmp_path / ".waslint.yaml").write_text("selct: [WAS1]\n")
    bad = run_cli("lint", "m.yaml", cwd=tmp_path)
    assert bad.returncode == 2 and "'selct'" in bad.stderr
    (tmp_path / ".waslint.yaml").write_text("severity: {WAS103: loud}\n")
    assert "loud" in run_cli("lint", "m.yaml", cwd=tmp_path).stderr


def test_pyproject_config_and_exclude(tmp_path: Path) -> None:
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "m.yaml").write_text(BAD.read_text())
    (tmp_path / "pyproject.toml").write_text('[tool.waslint]\nexclude = ["vendor"]\n')
    assert run_cli("lint", ".", cwd=tmp_path).returncode == 0
    (tmp_path / "pyproject.toml").write_text("[tool.waslint]\nexclude = []\n")
    assert run_cli("lint", ".", cwd=tmp_path).returncode == 1


def test_rules_and_explain() -> None:
    listing = run_cli("rules")
    assert listing.returncode == 0
    assert any(
        line.startswith("WAS103") and "legacy-disruption-mode" in line and "error" in line
        for line in listing.stdout.splitlines()
    )
    rules = json.loads(run_cli("rules", "--format", "json").stdout)
    assert {"code": "WAS105", "name": "legacy-pod-workload-ref", "severity": "error", "fix": "unsafe"}.items() <= next(
        r for r in rules if r["code"] == "WAS105"
    ).items()
    explained = run_cli("explain", "was103").stdout
    for heading in ("What it does", "Why it matters", "Example (fires)", "Use instead"):
        assert heading in explained
    assert "disruptionMode: PodGroup" in explained


def test_version_and_help() -> None:
    assert run_cli("--version").stdout.strip() == "waslint 0.1.0"
    assert "--target-version" in run_cli("lint", "--help").stdout


def _imported_modules(*args: str) -> set[str]:
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['waslint', *{list(args)!r}]\n"
        "try:\n    runpy.run_module('waslint', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    return set(result.stderr.split())


def _loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


# What a pre-commit run of `waslint lint FILE` never needs (`python bench/startup.py`): the
# kustomize and GitOps machinery without a kustomization, the other pipelines, fix planners, and
# the stdlib modules only a finding, a typo hint, a failed rule or a Helm template needs.
NOT_AT_LINT_START = (
    "kubernetes",
    "ruamel",
    "jsonschema",
    "waslint.lint.gitops",
    "waslint.sources.kustomize.graph",
    "waslint.sources.kustomize.render",
    "waslint.sources.kustomize.origins",
    "waslint.sources.cluster",
    "waslint.sources.snapshot",
    "waslint.feasibility",
    "waslint.audit",
    "waslint.fix",
    "waslint.lint.fixers",
    "waslint.io.helm",
    "subprocess",
    "difflib",
    "textwrap",
    "traceback",
    "pathlib",
    "signal",  # core/failure.py installs its handler through _signal
)


def test_lint_of_plain_file_imports_no_heavy_library() -> None:
    modules = _imported_modules("lint", str(FIXTURES / "rules" / "WAS105" / "bad.yaml"))
    assert "waslint.lint.engine" in modules
    assert "waslint.report.text" in modules  # the run reported its findings
    for heavy in NOT_AT_LINT_START[:3]:
        assert not _loaded(modules, heavy), heavy


def test_lint_of_plain_file_without_findings_imports_only_what_linting_needs() -> None:
    modules = _imported_modules("lint", str(FIXTURES / "rules" / "WAS103" / "good.yaml"))
    assert "waslint.lint.engine" in modules and "waslint.lint.rules.migration.legacy_disruption_mode" in modules
    assert [name for name in NOT_AT_LINT_START if _loaded(modules, name)] == []


# A set imports only the rules its kinds need (lint/rulekinds.py): a file of Workloads needs no
# rule of Jobs, Pods or queues, nor the feature-gate machinery (no gate source, no --gates).
NOT_FOR_A_WORKLOAD = (
    "waslint.lint.rules.sizing.mincount_exceeds_parallelism",
    "waslint.lint.rules.references.dangling_podgroup_ref",
    "waslint.lint.rules.quotas",
    "waslint.lint.rules.claims.claim_triple_mismatch",
    "waslint.lint.rules.gates",
    "waslint.objects.gate_inventory",
    "waslint.knowledge.gates",
    "shlex",
    "decimal",  # objects/quantity.py imports it when a quantity is first read
    "numbers",
)


def test_lint_of_a_workload_imports_only_the_rules_of_its_kinds() -> None:
    modules = _imported_modules("lint", str(FIXTURES / "rules" / "WAS103" / "good.yaml"))
    assert {"waslint.lint.rules.migration.api_version_not_served", "waslint.lint.rules.input.unused_suppression"} <= (
        modules
    )
    assert [name for name in NOT_FOR_A_WORKLOAD if _loaded(modules, name)] == []


def test_lint_of_pods_and_gate_sources_imports_their_rules() -> None:
    modules = _imported_modules("lint", str(FIXTURES / "rules" / "WAS702" / "bad.yaml"))
    assert {
        "waslint.lint.rules.references.dangling_podgroup_ref",
        "waslint.lint.rules.gates.gate_prerequisite_missing",
        "waslint.objects.gate_inventory",
    } <= modules


def test_lint_given_gates_imports_the_gate_rules(tmp_path: Path) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text("kube-scheduler:\n  GenericWorkload: true\n")
    modules = _imported_modules("lint", "--gates", str(gates), str(FIXTURES / "rules" / "WAS103" / "good.yaml"))
    assert "waslint.lint.rules.gates.gate_inconsistent" in modules


def test_a_suppression_naming_a_rule_the_kinds_left_unloaded_is_still_reported_unused(tmp_path: Path) -> None:
    text = (FIXTURES / "rules" / "WAS103" / "good.yaml").read_text()
    path = tmp_path / "workload.yaml"
    path.write_text(text.replace("  name: training\n", "  name: training  # waslint: ignore[WAS301]\n", 1))
    result = run_cli("lint", "--format", "json", str(path))
    findings = json.loads(result.stdout)["findings"]
    assert [(f["code"], f["line"]) for f in findings] == [("WAS000", 4)]
    assert "WAS301" in findings[0]["message"]
    selected = run_cli("lint", "--format", "json", "--select", "WAS000,WAS1", str(path))
    assert json.loads(selected.stdout)["findings"] == []  # WAS301 not run: the suppression may serve another run


def test_lint_of_a_kustomization_imports_the_gitops_machinery(tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("resources: []\n")
    modules = _imported_modules("lint", str(tmp_path))
    assert {"waslint.lint.gitops", "waslint.sources.kustomize.graph"} <= modules


def test_schema_validation_uses_the_compiled_validator_not_jsonschema() -> None:
    modules = _imported_modules("lint", str(GOOD))
    assert "waslint.knowledge.schema" in modules
    assert not any(m.startswith(("kubernetes", "ruamel", "jsonschema", "referencing")) for m in modules)
