"""The files a streamed run left unparsed (they hold nothing cross-object rules look up, see
lint/lookups.py): each is parsed, checked against the set's index on its own and dropped; with
`--jobs`, in forked workers that send back findings only."""

from __future__ import annotations

import os

from waslint.core.parallel import fork_map, split_evenly
from waslint.findings import Finding
from waslint.io.batch import PackedParse, pack_parse, shard_count, unpack_parse
from waslint.io.loader import SourceFile, parse_text
from waslint.lint.checks import SetRun, check_kept, finish, locate_all, parse_findings, run_object_rules
from waslint.objects.kobject import objects_of


class StreamMiss(Exception):
    """A file left unparsed held an object cross-object rules look up (its kind spelled with
    escapes, so the text check missed it): the run starts again with every file parsed."""


def check_streamed(run: SetRun, source: SourceFile, internal: list[str], declined: dict[int, str]) -> list[Finding]:
    """Parse one file the index does not need, check its objects, then drop its values."""
    parse_text(source)
    objects = [obj for doc in source.documents for obj in objects_of(doc, run.options.namespace)]
    lookups = run.ctx.index.lookups
    if lookups is not None and any(lookups.wants(obj) for obj in objects):
        raise StreamMiss(source.path)
    findings = locate_all(run_object_rules(run.rules, run.ctx, objects, internal), run.options, run.release)
    if run.parse_errors:
        findings.extend(parse_findings([source], run.options))
    findings = finish(run, findings, [source], objects, declined)
    source.release_values()
    return findings


# A streamed file's outcome as it travels back from a worker: its parse (values released), its
# findings (each with its document's position, -1 for none), and the fixes lint declines (by
# finding position).
_Outcome = tuple[int, PackedParse, list[tuple[Finding, int]], list[tuple[int, str]]]
# What a shard returns: the findings (run in the parent) or the outcomes (in a worker), the
# internal errors, and the path of a StreamMiss.
_ShardResult = tuple[list[Finding] | None, list[_Outcome], list[str], str | None]


def in_workers(
    run: SetRun, kept: list[SourceFile], streamed: list[SourceFile], internal: list[str], declined: dict[int, str]
) -> list[Finding]:
    """The streamed files in forked workers (which inherit the index without copying it): shards
    of the file list taken from one queue, by the parent too once it has checked the indexed
    files. Only findings (and the released documents) travel back. Same findings as serial."""
    parent = os.getpid()
    shards = split_evenly([len(source.text) + 1 for source in streamed], shard_count(run.options.jobs))

    def run_shard(shard: range) -> _ShardResult:
        errors: list[str] = []
        in_parent = os.getpid() == parent
        found: list[Finding] = []
        outcomes: list[_Outcome] = []
        try:
            for position in shard:
                source = streamed[position]
                reasons: dict[int, str] = declined if in_parent else {}
                findings = check_streamed(run, source, errors, reasons)
                if in_parent:
                    found.extend(findings)
                else:
                    outcomes.append(_outcome(position, source, findings, reasons))
        except StreamMiss as miss:
            return None, [], errors, str(miss)
        return (found if in_parent else None), outcomes, errors, None

    kept_findings: list[Finding] = []
    kept_errors: list[str] = []

    def kept_check() -> None:
        kept_findings.extend(check_kept(run, kept, kept_errors, declined))

    parts = fork_map(run_shard, shards, run.options.jobs, meanwhile=kept_check)
    findings = kept_findings
    internal.extend(kept_errors)
    for found, outcomes, errors, miss in parts:
        if miss is not None:
            raise StreamMiss(miss)
        internal.extend(errors)
        findings.extend(found or ())
        for outcome in outcomes:
            findings.extend(_arrived(outcome, streamed, declined))
    return findings


def _outcome(position: int, source: SourceFile, findings: list[Finding], reasons: dict[int, str]) -> _Outcome:
    where = {id(doc): number for number, doc in enumerate(source.documents)}
    shipped = []
    declined = []
    for number, finding in enumerate(findings):
        if id(finding) in reasons:
            declined.append((number, reasons[id(finding)]))
        doc_position = where.get(id(finding.doc), -1)
        finding.doc = None
        shipped.append((finding, doc_position))
    problems, documents, _ = pack_parse(source)
    return position, (problems, documents, None), shipped, declined


def _arrived(outcome: _Outcome, streamed: list[SourceFile], declined: dict[int, str]) -> list[Finding]:
    position, parsed, shipped, reasons = outcome
    source = streamed[position]
    unpack_parse(source, parsed)
    source.values_released = True
    findings = []
    for finding, doc_position in shipped:
        if doc_position >= 0:
            finding.doc = source.documents[doc_position]
        findings.append(finding)
    for number, reason in reasons:
        declined[id(findings[number])] = reason
    return findings
