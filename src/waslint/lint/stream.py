"""The files a streamed run left unparsed (they hold nothing cross-object rules look up, see
lint/lookups.py): each is parsed, checked against the set's index on its own and dropped. With
`--jobs`, forked workers run them, and the indexed objects' per-object rules, sending back
findings only."""

from __future__ import annotations

import os
from typing import cast

from waslint.core.parallel import fork_map, split_evenly
from waslint.findings import Finding
from waslint.io.batch import PackedParse, pack_parse, shard_count, unpack_parse
from waslint.io.loader import SourceFile, parse_text
from waslint.lint.checks import SetRun, finish, locate_all, run_object_rules, run_set_rules
from waslint.lint.registry import Hit
from waslint.lint.rulekinds import NAMED
from waslint.objects.kobject import objects_of


class StreamMiss(Exception):
    """A file left unparsed held an object cross-object rules look up (its kind spelled with
    escapes, so the text check missed it): the run starts again with every file parsed."""


def check_streamed(run: SetRun, source: SourceFile, internal: list[str]) -> list[Finding]:
    """Parse one file the index does not need, check its objects, then drop its values."""
    parse_text(source)
    objects = [obj for doc in source.documents for obj in objects_of(doc, run.options.namespace)]
    lookups = run.ctx.index.lookups
    if lookups is not None and any(lookups.wants(obj) for obj in objects):
        raise StreamMiss(source.path)
    if run.kinds is not None and any(obj.kind in NAMED and obj.kind not in run.kinds for obj in objects):
        raise StreamMiss(source.path)  # its text hid a kind some rule not loaded fires on
    findings = locate_all(run_object_rules(run.rules, run.ctx, objects, internal), run.options, run.release)
    findings = finish(run, findings, [source], objects)
    source.release_values()
    return findings


# A streamed file's outcome as it travels back from a worker: its parse (values released) and its
# findings (each with its document's position, -1 for none; the fixes lint declines ride on them).
_Outcome = tuple[int, PackedParse, list[tuple[Finding, int]]]
# What a shard returns: the findings (run in the parent) or the outcomes (in a worker), the
# internal errors, and the path of a StreamMiss. A shard of indexed objects returns its findings
# with their documents' (file, document) positions among the indexed files.
_ShardResult = tuple[list[Finding] | None, list[_Outcome], list[str], str | None]
_KeptResult = tuple[list[Finding] | list[tuple[Finding, int, int]], list[str]]
_Item = tuple[str, range]  # ("kept", objects of the index) or ("streamed", streamed files)


def in_workers(run: SetRun, kept: list[SourceFile], streamed: list[SourceFile], internal: list[str]) -> list[Finding]:
    """The per-object rules in forked workers (which inherit the index without copying it):
    shards of the indexed objects and shards of the streamed files, taken from one queue, by the
    parent too once it has run the set rules. Only findings (and the released documents of the
    streamed files) travel back. Same findings, same order as the serial run."""
    parent = os.getpid()
    objects = run.ctx.index.objects
    count = max(shard_count(run.options.jobs) // 2, 1)
    kept_shards = split_evenly([len(obj.file.text) // max(len(obj.file.documents), 1) + 1 for obj in objects], count)
    streamed_shards = split_evenly([len(source.text) + 1 for source in streamed], count)
    items: list[_Item] = [("kept", shard) for shard in kept_shards] + [("streamed", shard) for shard in streamed_shards]
    where = {doc: (f, d) for f, source in enumerate(kept) for d, doc in enumerate(source.documents)}

    def kept_shard(shard: range) -> _KeptResult:
        errors: list[str] = []
        hits = run_object_rules(run.rules, run.ctx, (objects[position] for position in shard), errors)
        findings = locate_all(hits, run.options, run.release)
        if os.getpid() == parent:
            return findings, errors
        shipped = []
        for finding in findings:
            file_position, doc_position = where.get(finding.doc, (-1, -1)) if finding.doc is not None else (-1, -1)
            finding.doc = None
            shipped.append((finding, file_position, doc_position))
        return shipped, errors

    def streamed_shard(shard: range) -> _ShardResult:
        errors: list[str] = []
        in_parent = os.getpid() == parent
        found: list[Finding] = []
        outcomes: list[_Outcome] = []
        try:
            for position in shard:
                source = streamed[position]
                findings = check_streamed(run, source, errors)
                if in_parent:
                    found.extend(findings)
                else:
                    outcomes.append(_outcome(position, source, findings))
        except StreamMiss as miss:
            return None, [], errors, str(miss)
        return (found if in_parent else None), outcomes, errors, None

    def run_item(item: _Item) -> _KeptResult | _ShardResult:
        part, shard = item
        return kept_shard(shard) if part == "kept" else streamed_shard(shard)

    set_hits: list[Hit] = []
    set_errors: list[str] = []

    def set_rules() -> None:
        set_hits.extend(run_set_rules(run.rules, run.ctx, set_errors))

    results = fork_map(run_item, items, run.options.jobs, meanwhile=set_rules)
    kept_findings = _kept_arrived(cast(list[_KeptResult], results[: len(kept_shards)]), kept, internal)
    internal.extend(set_errors)
    kept_findings.extend(locate_all(set_hits, run.options, run.release))
    findings = finish(run, kept_findings, kept, objects)
    for found, outcomes, errors, miss in cast(list[_ShardResult], results[len(kept_shards) :]):
        if miss is not None:
            raise StreamMiss(miss)
        internal.extend(errors)
        findings.extend(found or ())
        for outcome in outcomes:
            findings.extend(_arrived(outcome, streamed))
    return findings


def _kept_arrived(results: list[_KeptResult], kept: list[SourceFile], internal: list[str]) -> list[Finding]:
    """The indexed objects' findings in shard order, linked again to their documents."""
    findings: list[Finding] = []
    for shipped, errors in results:
        internal.extend(errors)
        for item in shipped:
            if isinstance(item, Finding):  # a shard the parent ran
                findings.append(item)
                continue
            finding, file_position, doc_position = item
            if file_position >= 0:
                finding.doc = kept[file_position].documents[doc_position]
            findings.append(finding)
    return findings


def _outcome(position: int, source: SourceFile, findings: list[Finding]) -> _Outcome:
    where = {doc: number for number, doc in enumerate(source.documents)}
    shipped = []
    for finding in findings:
        doc_position = where.get(finding.doc, -1) if finding.doc is not None else -1
        finding.doc = None
        shipped.append((finding, doc_position))
    problems, documents, _ = pack_parse(source)
    return position, (problems, documents, None), shipped


def _arrived(outcome: _Outcome, streamed: list[SourceFile]) -> list[Finding]:
    position, parsed, shipped = outcome
    source = streamed[position]
    unpack_parse(source, parsed)
    source.values_released = True
    findings = []
    for finding, doc_position in shipped:
        if doc_position >= 0:
            finding.doc = source.documents[doc_position]
        findings.append(finding)
    return findings
