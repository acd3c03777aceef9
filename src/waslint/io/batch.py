"""Reading many files with `--jobs N`: forked workers parse contiguous shards of the file list
(balanced by size) and hand back the parsed files; the order is the serial order."""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from typing import Any

from waslint.core.parallel import can_fork, fork_map, split_evenly
from waslint.io.loader import SourceFile, load_all

MIN_PARALLEL_FILES = 32
MIN_PARALLEL_BYTES = 512 * 1024
SHARDS_PER_JOB = 4


def load_files(paths: Sequence[str], jobs: int, stdin: Any = None) -> list[SourceFile]:
    """load_all(paths), in `jobs` workers when the input is large enough to pay for them."""
    if jobs <= 1 or len(paths) < MIN_PARALLEL_FILES or "-" in paths or not can_fork():
        return load_all(paths, stdin)
    sizes = [_size(path) for path in paths]
    if sum(sizes) < MIN_PARALLEL_BYTES:
        return load_all(paths, stdin)
    shards = split_evenly(sizes, jobs * SHARDS_PER_JOB)

    def parse_shard(shard: range) -> list[SourceFile]:
        return load_all([paths[position] for position in shard])

    was_enabled = gc.isenabled()
    gc.disable()  # unpickling the shards builds many acyclic objects, all kept
    try:
        # The parent parses its own share meanwhile: those files need no pickling.
        parts = fork_map(parse_shard, shards, jobs, in_parent=SHARDS_PER_JOB)
    finally:
        if was_enabled:
            gc.enable()
    return [source for part in parts for source in part]


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
