"""--jobs N: forked workers parse and run the per-object rules; the output equals the serial run."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, ROOT, lint_path, run_cli
from waslint.core.parallel import split_evenly
from waslint.findings import Finding
from waslint.io import batch


def _shape(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [
        (f.code, f.severity, f.message, f.path, f.document, f.span, f.object_id, f.fixable, f.field_path, f.scope)
        for f in findings
    ]


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers even for small inputs, so the tests exercise them."""
    monkeypatch.setattr(batch, "MIN_PARALLEL_FILES", 1)
    monkeypatch.setattr(batch, "MIN_PARALLEL_BYTES", 1)


@pytest.mark.parametrize("folder", [FIXTURES / "rules", FIXTURES / "helm", FIXTURES / "scopes", CORPUS])
def test_two_workers_find_exactly_what_one_finds(folder: Path, small_thresholds: None) -> None:
    if not folder.is_dir():
        pytest.skip(f"no {folder}")
    serial = lint_path(folder, jobs=1)
    parallel = lint_path(folder, jobs=2)
    assert len(serial.findings) > 0
    assert _shape(parallel.findings) == _shape(serial.findings)
    assert parallel.internal_errors == serial.internal_errors
    assert [s.path for s in parallel.files] == [s.path for s in serial.files]
    # Findings come back linked to their documents (suppressions and fixes need them).
    assert all(f.doc is not None for f in parallel.findings if f.object_id is not None)


def test_the_cli_output_is_byte_identical(tmp_path: Path) -> None:
    args = ("lint", "--format", "json", str(FIXTURES / "rules"))
    one = run_cli(*args, "--jobs", "1", cwd=ROOT)
    two = run_cli(*args, "--jobs", "2", cwd=ROOT)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout


def test_jobs_must_be_positive() -> None:
    result = run_cli("lint", "--jobs", "0", str(FIXTURES / "rules" / "WAS101"))
    assert result.returncode == 2 and "--jobs" in result.stderr


def test_split_evenly_keeps_order_and_balances() -> None:
    shards = split_evenly([5, 1, 1, 1, 1, 1, 5, 1], 3)
    assert [position for shard in shards for position in shard] == list(range(8))
    assert all(len(shard) > 0 for shard in shards) and len(shards) <= 3
    assert split_evenly([], 4) == []


def test_fork_map_keeps_item_order_while_the_parent_and_workers_share_the_queue() -> None:
    import os
    import time

    from waslint.core.parallel import can_fork, fork_map

    if not can_fork():
        pytest.skip("no fork here")
    parent = os.getpid()
    ran: list[str] = []

    def task(number: int) -> tuple[int, bool]:
        if number == 0:
            time.sleep(0.2)  # a slow first item: the others are taken meanwhile
        return number * number, os.getpid() == parent

    results = fork_map(task, list(range(12)), 2, meanwhile=lambda: ran.append("meanwhile"))
    assert [value for value, _ in results] == [number * number for number in range(12)]
    assert ran == ["meanwhile"]
    assert {in_parent for _, in_parent in results} == {True, False}  # both took items


def test_a_failing_worker_is_an_error_naming_its_traceback() -> None:
    import os
    import time

    from waslint.core.parallel import WorkerError, can_fork, fork_map

    if not can_fork():
        pytest.skip("no fork here")
    parent = os.getpid()

    def task(number: int) -> int:
        if os.getpid() != parent:
            raise ValueError(f"item {number} broke")
        time.sleep(0.05)  # leave items for the worker
        return number

    with pytest.raises(WorkerError, match="ValueError: item"):
        fork_map(task, list(range(40)), 2)
