"""Parsing many files with `--jobs N`: forked workers parse contiguous shards of the files
(balanced by size) and hand back their documents; the order is the serial order."""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from typing import Any

from waslint.core.parallel import can_fork, fork_map, split_evenly
from waslint.io.loader import Document, Problem, SourceFile, parse_text

MIN_PARALLEL_FILES = 32
MIN_PARALLEL_BYTES = 512 * 1024
SHARDS_PER_JOB = 8  # shards per worker: small enough to even out the workers' loads


def worth_forking(sources: Sequence[SourceFile]) -> bool:
    """Whether the files are enough work to pay for forking workers."""
    return len(sources) >= MIN_PARALLEL_FILES and sum(len(source.text) for source in sources) >= MIN_PARALLEL_BYTES


def parse_files(sources: Sequence[SourceFile], jobs: int) -> None:
    """parse_text each of the (decoded, unparsed) files, in `jobs` workers when they are enough work."""
    if jobs <= 1 or not worth_forking(sources) or not can_fork():
        for source in sources:
            parse_text(source)
        return
    shards = split_evenly([len(source.text) + 1 for source in sources], jobs * SHARDS_PER_JOB)
    parent = os.getpid()

    def parse_shard(shard: range) -> list[PackedParse] | None:
        for position in shard:
            parse_text(sources[position])
        if os.getpid() == parent:
            return None  # parsed in place
        return [pack_parse(sources[position]) for position in shard]

    was_enabled = gc.isenabled()
    gc.disable()  # unpickling the shards builds many acyclic objects, all kept
    try:
        parts = fork_map(parse_shard, shards, jobs)  # the shards the parent takes need no pickling
    finally:
        if was_enabled:
            gc.enable()
    for shard, part in zip(shards, parts, strict=True):
        if part is not None:
            for position, packed in zip(shard, part, strict=True):
                unpack_parse(sources[position], packed)


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
