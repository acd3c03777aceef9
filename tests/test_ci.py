"""CI and hooks: the composite action and the README snippets work when pasted."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import ROOT
from waslint.cli import command_parser

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
README = (ROOT / "README.md").read_text()
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
DOCS_TEXT = "\n".join(path.read_text() for path in DOCS)
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _options(command: str) -> set[str]:
    parser = command_parser(command.split())
    return {flag for action in parser._actions for flag in action.option_strings}


def _waslint_calls(script: str) -> list[list[str]]:
    """Every `waslint ...` command line of a shell script (after joining continued lines)."""
    calls = []
    for line in script.replace("\\\n", " ").splitlines():
        for part in re.split(r"&&|\|\||;|\|", line):
            words = shlex.split(part, comments=True)
            if words and words[0] == "waslint":
                calls.append(words[1:])
    return calls


def _check_flags(call: list[str]) -> None:
    command, *args = call
    known = _options(command)
    for word in args:
        if word.startswith("--"):
            assert word.split("=", 1)[0] in known, f"`waslint {command}` has no option {word}"


def test_action_inputs_and_flags_are_real() -> None:
    assert ACTION["runs"]["using"] == "composite"
    declared = set(ACTION["inputs"])
    steps = ACTION["runs"]["steps"]
    referenced = set()
    for step in steps:
        text = json.dumps(step)
        referenced |= set(re.findall(r"inputs\.([a-z-]+)", text))
        if "run" in step:
            assert step.get("shell") == "bash"
            for call in _waslint_calls(step["run"]):
                _check_flags(call)
    assert referenced <= declared, referenced - declared
    assert declared - {"python-version"} <= referenced  # every input is used
    for name in ("fail-on", "target-version", "config"):
        assert f"--{name}" in _options("lint")
    upload = next(step for step in steps if str(step.get("uses", "")).startswith("github/codeql-action/upload-sarif"))
    assert upload["if"].startswith("always()")
    sarif_step = next(step for step in steps if "--format sarif" in step.get("run", ""))
    assert "--fail-on never" in sarif_step["run"]
    assert steps.index(sarif_step) < steps.index(upload)
    install = next(step for step in steps if "pip install" in step.get("run", ""))
    assert "$GITHUB_ACTION_PATH" in install["run"]


def _render(value: str, inputs: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        assert expression.startswith("inputs."), expression
        return inputs[expression.removeprefix("inputs.")]

    return EXPRESSION.sub(one, value)


def _run_step(
    step: dict[str, Any], inputs: dict[str, str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    full = {key: value for key, value in os.environ.items() if not key.startswith("GITHUB_")}
    full["PATH"] = str(Path(sys.executable).parent) + os.pathsep + full.get("PATH", "")
    full["PYTHONPATH"] = str(ROOT / "src")
    full.update(env)
    full.update({key: _render(str(value), inputs) for key, value in step.get("env", {}).items()})
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="bash missing")
def test_action_steps_run_sarif_upload_first_then_fail_with_annotations(tmp_path: Path) -> None:
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    inputs.update({"paths": "fixtures/demo fixtures/rules/WAS103/bad.yaml", "sarif-file": str(tmp_path / "w.sarif")})
    steps = {step["name"]: step for step in ACTION["runs"]["steps"]}
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    sarif = _run_step(steps["waslint (SARIF)"], inputs, ROOT, env)
    assert sarif.returncode == 0, sarif.stderr  # findings never stop the upload
    log = json.loads((tmp_path / "w.sarif").read_text())
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert "fixtures/rules/WAS103/bad.yaml" in uris
    annotate = _run_step(steps["waslint (annotations)"], inputs, ROOT, env)
    assert annotate.returncode == 1
    assert annotate.stdout.startswith("::error file=fixtures/")
    assert "### waslint: " in summary.read_text()
    inputs.update({"fail-on": "never", "target-version": "1.36", "config": str(tmp_path / "none.yaml")})
    (tmp_path / "none.yaml").write_text("ignore: [WAS103]\n")
    relaxed = _run_step(steps["waslint (annotations)"], inputs, ROOT, env)
    assert relaxed.returncode == 0, relaxed.stderr
    assert "title=WAS103" not in relaxed.stdout and "Kubernetes 1.36" in relaxed.stdout


def yaml_blocks(marker: str) -> list[Any]:
    """The YAML snippets of the README and docs/ that hold `marker`, parsed."""
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS_TEXT, re.S)
    return [yaml.safe_load(block) for block in blocks if marker in block]


def test_readme_github_actions_workflow_uploads_sarif_even_with_findings() -> None:
    workflows = yaml_blocks("codeql-action/upload-sarif")
    assert workflows
    for workflow in workflows:
        steps = workflow["jobs"]["waslint"]["steps"]
        runs = [step.get("run", "") for step in steps]
        install = next(run for run in runs if "pip install" in run)
        assert re.search(r'"git\+https://github\.com/OWNER/waslint@[^"]+"', install), install
        upload_at = next(i for i, step in enumerate(steps) if "upload-sarif" in str(step.get("uses", "")))
        producer = next(step for step in steps if "--format sarif" in step.get("run", ""))
        assert steps[upload_at].get("if") == "always()" or "--fail-on never" in producer["run"]
        assert steps.index(producer) < upload_at
        sarif_file = steps[upload_at]["with"]["sarif_file"]
        assert f"-o {sarif_file}" in producer["run"] or f"--output {sarif_file}" in producer["run"]
        assert workflow["permissions"]["security-events"] == "write"
        for run in runs:
            for call in _waslint_calls(run):
                _check_flags(call)
    assert "OWNER" in README.split("## Install", 1)[1][:2000]


def test_readme_action_snippet_uses_declared_inputs() -> None:
    snippets = yaml_blocks("uses: OWNER/waslint@")
    assert snippets
    for snippet in snippets:
        steps = snippet["jobs"]["waslint"]["steps"]
        action = next(step for step in steps if str(step.get("uses", "")).startswith("OWNER/waslint@"))
        assert action["uses"].split("@", 1)[1] in refs_named()
        assert set(action.get("with", {})) <= set(ACTION["inputs"])


def test_readme_pre_commit_snippet_names_a_ref_of_this_repository_and_real_hooks() -> None:
    hooks = {hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    configs = yaml_blocks("rev:")
    assert configs
    for config in configs:
        for repo in config["repos"]:
            assert repo["repo"] == "https://github.com/OWNER/waslint"
            assert repo["rev"] in refs_named()
            assert {hook["id"] for hook in repo["hooks"]} <= hooks


# Where a snippet names a git ref of this repository: a pip install URL, a `uses:` of the Action,
# a pre-commit `rev:` (the README, docs/ and the usage comment of action.yml).
REF_PATTERNS = (
    re.compile(r"github\.com/OWNER/waslint@([^\s\"'`)]+)"),
    re.compile(r"\bOWNER/waslint@([^\s\"'`)]+)"),
    re.compile(r"^\s*rev:\s*([^\s#]+)", re.M),
)


def refs_named() -> set[str]:
    texts = [DOCS_TEXT, (ROOT / "action.yml").read_text()]
    return {match.group(1) for text in texts for pattern in REF_PATTERNS for match in pattern.finditer(text)}


def _resolves(ref: str) -> bool:
    for candidate in (ref, f"origin/{ref}"):  # a clone's branches may only be remote-tracking
        found = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if found.returncode == 0:
            return True
    return False


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout: no refs to resolve")
def test_every_git_ref_the_readme_docs_and_action_name_resolves_here() -> None:
    refs = refs_named()
    assert refs, "no ref found: the patterns no longer match the snippets"
    missing = sorted(ref for ref in refs if not _resolves(ref))
    assert not missing, f"refs the snippets name that this repository does not have: {missing}"


def test_the_ref_patterns_find_what_a_snippet_names() -> None:
    text = 'pip install "git+https://github.com/OWNER/waslint@abc123"\n  - uses: OWNER/waslint@main\n  rev: v9  # x\n'
    found = {m.group(1) for pattern in REF_PATTERNS for m in pattern.finditer(text)}
    assert found == {"abc123", "main", "v9"}
