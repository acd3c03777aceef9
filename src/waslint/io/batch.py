"""Reading many files with `--jobs N`: forked workers read, decode and (where asked) parse
contiguous shards of the files (balanced by size) and hand them back; the order is the serial
order."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from typing import Any

from waslint.core.parallel import MAX_ITEMS, can_fork, fork_map, split_evenly
from waslint.io.loader import Document, Problem, SourceFile, load_all, parse_text

MIN_PARALLEL_FILES = 32
MIN_PARALLEL_BYTES = 512 * 1024
SHARDS_PER_JOB = 8  # shards per worker: small enough to even out the workers' loads


def shard_count(jobs: int) -> int:
    return min(jobs * SHARDS_PER_JOB, MAX_ITEMS)


def worth_forking(sources: Sequence[SourceFile]) -> bool:
    """Whether the files are enough work to pay for forking workers."""
    return len(sources) >= MIN_PARALLEL_FILES and sum(len(source.text) for source in sources) >= MIN_PARALLEL_BYTES


def read_files(
    paths: Sequence[str], jobs: int, stdin: Any = None, parse_if: Callable[[SourceFile], bool] = lambda _: True
) -> list[SourceFile]:
    """Read and decode every path, and parse the files `parse_if` picks (the others stay unparsed,
    see parse_text); in `jobs` workers when the input is large enough to pay for them."""
    if jobs <= 1 or len(paths) < MIN_PARALLEL_FILES or "-" in paths or not can_fork():
        return _read_shard(paths, parse_if, stdin)
    sizes = [_size(path) for path in paths]
    if sum(sizes) < MIN_PARALLEL_BYTES:
        return _read_shard(paths, parse_if, stdin)
    shards = split_evenly(sizes, shard_count(jobs))
    parent = os.getpid()

    def read_shard(shard: range) -> list[SourceFile] | list[PackedFile]:
        sources = _read_shard([paths[position] for position in shard], parse_if)
        return sources if os.getpid() == parent else [_pack_file(source) for source in sources]

    was_enabled = gc.isenabled()
    gc.disable()  # unpickling the shards builds many acyclic objects, all kept
    try:
        parts = fork_map(read_shard, shards, jobs)  # the shards the parent takes need no pickling
    finally:
        if was_enabled:
            gc.enable()
    return [source if isinstance(source, SourceFile) else _unpack_file(source) for part in parts for source in part]


def _read_shard(paths: Sequence[str], parse_if: Callable[[SourceFile], bool], stdin: Any = None) -> list[SourceFile]:
    sources = load_all(paths, stdin, parse=False)
    for source in sources:
        if not source.parsed and parse_if(source):
            parse_text(source)
    return sources


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


# A file read in a worker as it travels back: path, text, is_json, read_error, parsed, and its parse.
PackedFile = tuple[str, str, bool, "str | None", bool, "PackedParse"]


def _pack_file(source: SourceFile) -> PackedFile:
    return source.path, source.text, source.is_json, source.read_error, source.parsed, pack_parse(source)


def _unpack_file(packed: PackedFile) -> SourceFile:
    path, text, is_json, read_error, parsed, parse = packed
    source = SourceFile(path, text, is_json, read_error=read_error)
    unpack_parse(source, parse)
    source.parsed = parsed
    return source


# A file's parse as it travels back from a worker (the parent has its text): plain tuples
# unpickle about twice as fast as the dataclasses they stand for.
PackedDocument = tuple[int, Any, int, int, int, int, int, "int | None", int]
PackedParse = tuple[list[tuple[str, int, int, "int | None"]], list[PackedDocument], Any]


def pack_parse(source: SourceFile) -> PackedParse:
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
    return problems, documents, source.template


def unpack_parse(source: SourceFile, packed: PackedParse) -> None:
    problems, documents, template = packed
    source.parsed = True
    source.template = template
    source.problems = [Problem(*problem) for problem in problems]
    source.documents = [
        Document(source, index, data, None, offset, first, last, chunk, start, end, line)
        for index, data, offset, first, last, chunk, start, end, line in documents
    ]
