"""Help text and usage errors as a newcomer reads them: choices in metavars, required options
marked, command summaries whole, the program name as it was invoked."""

from __future__ import annotations

import sys

import pytest

from conftest import in_process, run_cli
from waslint.cli import COMMANDS, SNAPSHOT_COMMANDS, command_parser

EVERY_COMMAND = [[name] for name in COMMANDS] + [["snapshot", name] for name in SNAPSHOT_COMMANDS]


def test_the_command_list_shows_every_summary_whole() -> None:
    result = in_process("--help")
    assert result.returncode == 0
    flat = " ".join(result.stdout.split())
    for command in [*COMMANDS.values(), *SNAPSHOT_COMMANDS.values()]:
        if command.name in COMMANDS:
            assert command.summary in flat, command.name
    assert "..." not in result.stdout.replace("[ARGS]...", "")
    assert "snapshot" in flat
    assert " ".join(in_process("snapshot", "--help").stdout.split()).count(SNAPSHOT_COMMANDS["capture"].summary) == 1


@pytest.mark.parametrize("words", EVERY_COMMAND, ids=" ".join)
def test_every_option_has_help_and_names_its_value(words: list[str]) -> None:
    parser = command_parser(words)
    for action in parser._actions:
        assert action.help, action.option_strings
        if action.option_strings and action.nargs != 0:
            assert action.metavar and action.metavar not in ("TEXT", "STRING"), action.option_strings
    text = in_process(*words, "--help").stdout
    assert text.startswith(f"Usage: waslint {' '.join(words)} ")
    assert " TEXT " not in text and "INTEGER" not in text


def test_metavars_show_the_choices() -> None:
    text = in_process("lint", "--help").stdout
    for shown in (
        "--format [text|concise|json|sarif|junit|github]",
        "--fail-on [error|warning|info|never]",
        "--target-version [1.35|1.36|1.37]",
        "--show-level [error|warning|info]",
        "-o, --output FILE",
        "-j, --jobs N",
    ):
        assert shown in text, shown
    assert "--format [markdown|text|concise|json|sarif|junit|github]" in in_process("audit", "--help").stdout
    assert "--format [text|json|markdown]" in in_process("rules", "--help").stdout
    assert "--target-version [1.37]" in in_process("fix", "--help").stdout


def test_required_options_are_marked_and_named_when_missing() -> None:
    help_text = " ".join(in_process("feasibility", "--help").stdout.split())
    assert "--snapshot SNAP Cluster snapshot" in help_text and "[required]" in help_text
    capture_help = " ".join(in_process("snapshot", "capture", "--help").stdout.split())
    assert "-o, --output FILE" in capture_help and "stdout). [required]" in capture_help
    missing = in_process("feasibility", "fixtures/feasibility")
    assert missing.returncode == 2
    assert missing.stderr == "waslint: error: --snapshot SNAP is required (see `waslint feasibility --help`)\n"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["lint", "--bogus"], "waslint: error: unrecognized arguments: --bogus (see `waslint lint --help`)"),
        (["lint", "--form", "json"], "waslint: error: unrecognized arguments: --form (see `waslint lint --help`)"),
        (
            ["lint", "-j", "x"],
            "waslint: error: argument -j/--jobs: 'x' is not a whole number (see `waslint lint --help`)",
        ),
        (["bogus"], "waslint: error: no such command 'bogus' (see `waslint --help`)"),
        (["audits"], "waslint: error: no such command 'audits'; did you mean audit? (see `waslint --help`)"),
        (
            ["audit", "--page-size", "0"],
            "waslint: error: argument --page-size: 0 is not in the range 1..10000 (see `waslint audit --help`)",
        ),
        (["explain"], "waslint: error: CODE is required (see `waslint explain --help`)"),
    ],
)
def test_usage_errors_are_one_line_and_status_2(args: list[str], line: str) -> None:
    result = in_process(*args)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", line + "\n")


def test_options_and_paths_mix_in_any_order() -> None:
    result = in_process(
        "lint", "fixtures/rules/WAS103/bad.yaml", "--format", "concise", "fixtures/rules/WAS103/good.yaml"
    )
    assert result.returncode == 1
    assert result.stdout.startswith("fixtures/rules/WAS103/bad.yaml:12:5: WAS103")
    assert "2 files" in result.stdout


# The console script's own name decides the program name, as kubectl runs `kubectl-waslint`.
AS_PLUGIN = "import sys; sys.argv[0] = '/usr/local/bin/kubectl-waslint'; from waslint.cli import main; main()"


def test_the_kubectl_plugin_says_kubectl_waslint() -> None:
    top = run_cli("--help", program=[sys.executable, "-c", AS_PLUGIN])
    assert top.stdout.startswith("Usage: kubectl waslint [OPTIONS] COMMAND")
    audit = run_cli("audit", "--help", program=[sys.executable, "-c", AS_PLUGIN])
    assert audit.stdout.startswith("Usage: kubectl waslint audit [OPTIONS]")
    wrong = run_cli("audit", "--bogus", program=[sys.executable, "-c", AS_PLUGIN])
    assert wrong.stderr.endswith("(see `kubectl waslint audit --help`)\n") and wrong.returncode == 2
    assert run_cli("--help").stdout.startswith("Usage: waslint [OPTIONS] COMMAND")  # python -m waslint


def test_version_and_no_command() -> None:
    assert in_process("--version").stdout == "waslint 0.1.0\n"
    bare = in_process()
    assert bare.returncode == 2 and bare.stdout.startswith("Usage: waslint [OPTIONS] COMMAND")
