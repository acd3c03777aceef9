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
