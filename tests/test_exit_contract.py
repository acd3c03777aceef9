"""The exit-status contract (../shared/spec/cli.md, src/waslint/core/failure.py): status 1 means
findings and nothing else. An exception nobody expected, anywhere in any command, is status 2 and
one line naming the command and "please report"; the traceback only with --debug or
WASLINT_DEBUG=1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from clusters import cluster_137

from conftest import FIXTURES, in_process, run_cli

SNAPSHOT = str(FIXTURES / "snapshots" / "cluster.yaml")
DEMO = str(FIXTURES / "demo")

# command -> (the function deep inside it that fails, the arguments; KUBECONFIG / OUT filled in)
COMMANDS = {
    "lint": ("waslint.lint.engine.lint_paths", ["lint", DEMO]),
    "lint --jobs 2": ("waslint.io.batch._read_shard", ["lint", "--jobs", "2", DEMO]),  # in the workers too
    "fix": ("waslint.fix.command.run", ["fix", "--check", DEMO]),
    "feasibility": ("waslint.feasibility.command.check", ["feasibility", "--snapshot", SNAPSHOT, DEMO]),
    "audit": ("waslint.audit.collect.Collector.run", ["audit", "--kubeconfig", "KUBECONFIG"]),
    "snapshot capture": (
        "waslint.sources.cluster.capture.ListWriter.write",
        ["snapshot", "capture", "-o", "OUT", "--kubeconfig", "KUBECONFIG"],
    ),
    "rules": ("waslint.lint.docs.rules_text", ["rules"]),
    "explain": ("waslint.lint.docs.explain_text", ["explain", "WAS101"]),
}
ERRORS = [RuntimeError("boom"), KeyError("missing"), RecursionError("deep"), MemoryError(), OSError(5, "I/O error")]


def _patch(monkeypatch: pytest.MonkeyPatch, target: str, error: BaseException) -> None:
    module_name, _, attribute = target.rpartition(".")
    owner: Any
    try:
        owner = __import__(module_name, fromlist=["_"])
    except ImportError:  # Class.method
        module_name, _, class_name = module_name.rpartition(".")
        owner = getattr(__import__(module_name, fromlist=["_"]), class_name)

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(owner, attribute, fail)


def _arguments(command: str, serve: Any, tmp_path: Path) -> list[str]:
    _, args = COMMANDS[command]
    if "KUBECONFIG" in args:
        _, kubeconfig = serve(cluster_137())
        args = [str(kubeconfig) if arg == "KUBECONFIG" else arg for arg in args]
    return [str(tmp_path / "snap.json") if arg == "OUT" else arg for arg in args]


@pytest.mark.parametrize("error", ERRORS, ids=lambda error: type(error).__name__)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_command_exits_1_on_an_internal_error(
    serve: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, error: BaseException
) -> None:
    args = _arguments(command, serve, tmp_path)
    _patch(monkeypatch, COMMANDS[command][0], error)
    if command == "lint --jobs 2":
        monkeypatch.setattr("waslint.io.batch.MIN_PARALLEL_BYTES", 0)
        monkeypatch.setattr("waslint.io.batch.MIN_PARALLEL_FILES", 2)
    result = in_process(*args)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    word = command.split(" --")[0]
    if isinstance(error, OSError) and lines[0].startswith("waslint: error: cannot write"):
        return  # an I/O error while writing the output is the run's own error, said as such
    assert lines[0].startswith(f"waslint: internal error in `waslint {word}`: "), lines[0]
    assert type(error).__name__ in lines[0]  # a worker's failure names the worker's exception
    assert "please report this bug; run with --debug for the traceback" in lines[0]
    assert not (tmp_path / "snap.json").exists() and not list(tmp_path.glob("snap.json.partial-*"))


def test_a_real_process_exits_2_and_shows_the_traceback_only_when_asked(tmp_path: Path) -> None:
    hook = tmp_path / "sitecustomize.py"
    hook.write_text(
        "import waslint.lint.engine as engine\n"
        "def fail(*args, **kwargs):\n"
        "    raise ZeroDivisionError('injected')\n"
        "engine.lint_paths = fail\n"
    )
    import os

    pythonpath = f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    plain = run_cli("lint", DEMO, env={"PYTHONPATH": pythonpath})
    assert plain.returncode == 2
    assert plain.stderr.strip().splitlines() == [
        "waslint: internal error in `waslint lint`: ZeroDivisionError: injected (please report this bug;"
        " run with --debug for the traceback)"
    ]
    for flags, env in ((["--debug"], {}), ([], {"WASLINT_DEBUG": "1"})):
        debug = run_cli("lint", *flags, DEMO, env={"PYTHONPATH": pythonpath, **env})
        assert debug.returncode == 2
        assert "Traceback (most recent call last)" in debug.stderr and "ZeroDivisionError: injected" in debug.stderr
        assert debug.stderr.strip().splitlines()[-1].startswith("waslint: internal error in `waslint lint`")


@pytest.mark.parametrize("args", [["lint", "--no-such-flag"], ["lint", "--jobs", "many"], ["nonsense"]])
def test_usage_errors_are_status_2_never_1(args: list[str]) -> None:
    result = in_process(*args)
    assert result.returncode == 2, result.stderr


def test_findings_are_still_status_1() -> None:
    result = in_process("lint", str(FIXTURES / "rules" / "WAS101" / "bad.yaml"))
    assert result.returncode == 1
