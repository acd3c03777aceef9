"""Hostile inputs and odd file systems (issue 8): no hang, no silent skip, nothing written outside
the tree, bounded reads, no internal error on content."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli, run_cli_unprivileged

BAD = FIXTURES / "rules" / "WAS103" / "bad.yaml"
GOOD = FIXTURES / "rules" / "WAS103" / "good.yaml"
QUICK = 60.0  # a hang fails the test (TimeoutExpired) instead of blocking the suite

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# --------------------------------------------------------------------------- 1. FIFOs


@needs_fifo
def test_a_fifo_in_a_folder_is_skipped_not_read(tmp_path: Path) -> None:
    shutil.copy(BAD, tmp_path / "bad.yaml")
    os.mkfifo(tmp_path / "pipe.yaml")
    result = run_cli("lint", "--format", "json", str(tmp_path), timeout=QUICK)
    assert result.returncode == 1, result.stderr
    paths = {finding["path"] for finding in json.loads(result.stdout)["findings"]}
    assert paths == {str(tmp_path / "bad.yaml")}


@needs_fifo
@pytest.mark.parametrize("command", ["lint", "fix"])
def test_a_named_fifo_is_the_runs_own_error(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result = run_cli(command, str(fifo), timeout=QUICK)
    assert result.returncode == 2
    line = _one_error_line(result.stderr)
    assert str(fifo) in line and "not a regular file" in line


@needs_fifo
@pytest.mark.parametrize("flag", ["--gates", "--snapshot", "--config"])
def test_a_fifo_as_an_input_file_is_the_runs_own_error(tmp_path: Path, flag: str) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result = run_cli("lint", flag, str(fifo), str(GOOD), timeout=QUICK)
    assert result.returncode == 2, result.stdout
    line = _one_error_line(result.stderr)
    assert str(fifo) in line and "not a regular file" in line


def test_a_device_as_gates_ends_quickly() -> None:
    result = run_cli("lint", "--gates", "/dev/zero", str(GOOD), timeout=QUICK)
    assert result.returncode == 2
    assert "not a regular file" in _one_error_line(result.stderr)


# --------------------------------------------------------------------------- 2. unreadable paths


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_an_unreadable_folder_is_the_runs_own_error(shared_tmp: Path, command: str) -> None:
    tree = shared_tmp / "tree"
    (tree / "locked").mkdir(parents=True)
    shutil.copy(GOOD, tree / "good.yaml")
    shutil.copy(BAD, tree / "locked" / "bad.yaml")
    (tree / "locked").chmod(0)
    result = run_cli_unprivileged(command, str(tree))
    assert result.returncode == 2, result.stdout + result.stderr
    line = _one_error_line(result.stderr)
    assert str(tree / "locked") in line and "Permission denied" in line
    assert "No findings" not in result.stdout


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_an_unreadable_file_is_the_runs_own_error(shared_tmp: Path, command: str) -> None:
    shutil.copy(GOOD, shared_tmp / "good.yaml")
    locked = shared_tmp / "locked.yaml"
    shutil.copy(BAD, locked)
    locked.chmod(0)
    result = run_cli_unprivileged(command, str(shared_tmp))
    assert result.returncode == 2, result.stdout + result.stderr
    line = _one_error_line(result.stderr)
    assert str(locked) in line and "Permission denied" in line
