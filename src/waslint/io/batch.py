"""Reading many files with `--jobs N`: forked workers parse contiguous shards of the file list
(balanced by size) and hand back the parsed files; the order is the serial order."""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from typing import Any

from waslint.core.parallel import can_fork, fork_map, split_evenly
from waslint.io.loader import Document, Problem, SourceFile, load_all

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

    parent = os.getpid()

    def parse_shard(shard: range) -> list[SourceFile] | list[_Packed]:
        sources = load_all([paths[position] for position in shard])
        return sources if os.getpid() == parent else [_pack(source) for source in sources]

    was_enabled = gc.isenabled()
    gc.disable()  # unpickling the shards builds many acyclic objects, all kept
    try:
        # The parent parses its own share meanwhile: those files need no pickling.
        parts = fork_map(parse_shard, shards, jobs, in_parent=SHARDS_PER_JOB)
    finally:
        if was_enabled:
            gc.enable()
    return [source if isinstance(source, SourceFile) else _unpack(source) for part in parts for source in part]


# A parsed file as it travels back from a worker: plain tuples unpickle about twice as fast as
# the dataclasses they stand for.
_Packed = tuple[str, str, bool, Any, list[tuple[str, int, int, int | None]], list[tuple[Any, ...]], str | None]


def _pack(source: SourceFile) -> _Packed:
    problems = [(p.message, p.line, p.column, p.document) for p in source.problems]
    documents = [
        (
            d.index,
            d.data,
            d.line_offset,
            d.first_line,
            d.last_line,
            d.chunk_start,
            d.span_start,
            d.span_end,
            d.span_line,
        )
        for d in source.documents
    ]
    return (source.path, source.text, source.is_json, source.template, problems, documents, source.read_error)


def _unpack(packed: _Packed) -> SourceFile:
    path, text, is_json, template, problems, documents, read_error = packed
    source = SourceFile(path, text, is_json, template=template, read_error=read_error)
    source.problems = [Problem(*problem) for problem in problems]
    source.documents = [
        Document(source, index, data, None, offset, first, last, chunk, start, end, line)
        for index, data, offset, first, last, chunk, start, end, line in documents
    ]
    return source


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
