"""The lint pipeline: load -> index the set -> rules -> findings (located, filtered, suppressed)."""

from __future__ import annotations

import gc
import os
import traceback
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from waslint.core.codes import matches
from waslint.core.model import Severity, Span
from waslint.core.parallel import can_fork, fork_map, split_evenly
from waslint.findings import Finding
from waslint.io.batch import SHARDS_PER_JOB, PackedParse, pack_parse, read_files, unpack_parse, worth_forking
from waslint.io.config import Config
from waslint.io.helm import shown
from waslint.io.loader import SourceFile, parse_text
from waslint.knowledge.releases import Release, default_target
from waslint.lint.context import Context, RuntimeInputs
from waslint.lint.fixers.preview import declined_fixes
from waslint.lint.lookups import RULE_LOOKUPS
from waslint.lint.registry import Hit, Rule, get_rule, select_rules
from waslint.lint.selection import plan_reading
from waslint.lint.suppress import SuppressionSet
from waslint.objects.index import ObjectIndex
from waslint.objects.kobject import KObject, objects_of

if TYPE_CHECKING:
    from waslint.sources.gates import GatesFile

PARSE_ERROR = "WAS001"
UNUSED_SUPPRESSION = "WAS000"


@dataclass
class LintOptions:
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, Severity] = field(default_factory=dict)
    target: Release = field(default_factory=default_target)
    namespace: str = "default"
    inline_ignores: bool = True
    # What the run reads beside manifests (--snapshot, --gates, --base), loaded by prepare_context.
    snapshot_path: str | None = None
    gates_path: str | None = None
    base_ref: str | None = None
    stdin_filename: str | None = None  # the path stdin's findings carry (--stdin-filename)
    # A gate inventory already read (a live audit reads it from the components' metrics).
    gates: GatesFile | None = None
    runtime: RuntimeInputs = field(default_factory=RuntimeInputs)
    jobs: int = 1  # worker processes for parsing and per-object rules (--jobs)
    # A streamed run: files left unparsed are checked one by one against an index of the files
    # that may hold what cross-object rules look up (lint_paths reads this way).
    stream: bool = False

    @classmethod
    def from_config(cls, config: Config) -> LintOptions:
        return cls(
            select=config.select,
            ignore=list(config.ignore),
            severity=dict(config.severity),
            target=config.target_version or default_target(),
            namespace=config.namespace or "default",
            inline_ignores=config.inline_ignores,
            runtime=RuntimeInputs(thresholds=dict(config.runtime_thresholds)),
        )


@dataclass
class LintResult:
    findings: list[Finding]
    files: list[SourceFile]
    internal_errors: list[str] = field(default_factory=list)
    context: Context | None = None
    skipped: list[str] = field(default_factory=list)  # "path: reason" (links out of the tree...)
    declined: dict[int, str] = field(default_factory=dict)  # id(finding) -> why its fix is declined

    @property
    def documents(self) -> int:
        return sum(len(source.documents) + len(source.problems) for source in self.files)


def lint_paths(
    paths: Iterable[str],
    options: LintOptions,
    config: Config | None = None,
    stdin: Any = None,
    *,
    context: Iterable[str] = (),
    changed_since: str | None = None,
) -> tuple[LintResult, list[str]]:
    """Lint PATH arguments. Returns the result and the path errors (unreadable paths).
    `context`: folders read too, for cross-object lookups, but not reported on;
    `changed_since`: report only the files changed since that git ref (see lint/selection.py)."""
    config = config or Config()
    paths = list(paths)
    changed = _changed_files(changed_since, paths) if changed_since is not None else None
    plan, errors = plan_reading(paths, config.excludes, context, changed)
    stream = _may_stream(options)

    def parse_now(source: SourceFile) -> bool:
        # What cross-object rules may look up, and stdin (before it takes its --stdin-filename:
        # its JSON is told by content); the other files wait for their turn (lint_sources).
        return not stream or source.path == "-" or RULE_LOOKUPS.may_hold(source.text)

    sources = read_files(plan.files, options.jobs, stdin, parse_now)
    if errors:
        return LintResult([], []), errors
    errors = [source.read_error for source in sources if source.read_error is not None]
    if errors:
        return LintResult([], sources), errors
    if plan.reported is not None:  # --lookup, --changed-since: a file that is neither reported
        # nor looked up (left unparsed) has nothing to give the run
        sources = [source for source in sources if source.parsed or plan.reports(source.path)]
    name_stdin(sources, options.stdin_filename)
    # Everything loaded so far lives until the run ends: keep the collector from re-scanning it.
    gc.freeze()
    try:
        result = lint_sources(sources, replace(options, stream=stream), config, release_positions=True)
    except StreamMiss:
        sources = [
            source if source.parsed and not source.values_released else _parsed_again(source) for source in sources
        ]
        result = lint_sources(sources, options, config, release_positions=True)
    result.skipped = [f"{path}: {reason}" for path, reason in plan.skipped]
    if plan.reported is not None:
        result.findings = [finding for finding in result.findings if plan.reports(finding.path)]
    return result, errors


def _may_stream(options: LintOptions) -> bool:
    """Whether no selected rule reads the whole set in this run (see Rule.whole_set_with_snapshot)."""
    rules = select_rules(options.select, options.ignore)
    return not (options.snapshot_path and any(rule.whole_set_with_snapshot for rule in rules))


def _streamed(source: SourceFile) -> bool:
    return not source.parsed or source.values_released


def _parsed_again(source: SourceFile) -> SourceFile:
    again = SourceFile(source.path, source.text, source.is_json)
    parse_text(again)
    return again


def _changed_files(ref: str, paths: list[str]) -> set[str]:
    from waslint.sources.gitchanges import GitChangesError, changed_files

    near = next((path for path in paths if path != "-"), ".")
    try:
        return changed_files(ref, near)
    except GitChangesError as err:
        raise RunError(str(err)) from None


def name_stdin(sources: list[SourceFile], name: str | None) -> None:
    """Give stdin the name --stdin-filename chose: findings carry it, per-path config matches it."""
    if name:
        for source in sources:
            if source.path == "-":
                source.path = name


def lint_sources(
    sources: list[SourceFile], options: LintOptions, config: Config | None = None, *, release_positions: bool = False
) -> LintResult:
    """Lint a set of files. With `scopes` in the config, each scope is linted as its own cluster
    (its own index and context) and the findings are merged. `release_positions`: drop each
    file's node trees once its findings are located (lint keeps none; fix plans with them)."""
    config = config or Config()
    rules = list(select_rules(options.select, options.ignore))
    internal: list[str] = []
    findings: list[Finding] = []
    contexts: list[Context] = []
    declined: dict[int, str] = {}
    for scope, members in split_scopes(sources, config).items():
        ctx, scope_findings = _lint_set(members, rules, options, config, internal, release_positions, declined)
        for finding in scope_findings:
            finding.scope = scope
        findings.extend(scope_findings)
        contexts.append(ctx)
    findings.sort(key=Finding.sort_key)
    if len(contexts) == 1:
        whole = contexts[0]
    else:  # the fixer looks objects up across the run
        whole = Context(ObjectIndex([obj for ctx in contexts for obj in ctx.index.objects]), sources, options.target)
    return LintResult(findings, sources, internal, whole, declined=declined)


def split_scopes(sources: list[SourceFile], config: Config) -> dict[str | None, list[SourceFile]]:
    """Files by scope, in reading order; files outside every scope (None) form one more set."""
    if not config.scopes:
        return {None: sources}
    by_scope: dict[str | None, list[SourceFile]] = {}
    for source in sources:
        by_scope.setdefault(config.scope_of(source.path), []).append(source)
    return by_scope or {None: []}


def _lint_set(
    sources: list[SourceFile],
    rules: list[Rule],
    options: LintOptions,
    config: Config,
    internal: list[str],
    release: bool = False,
    declined: dict[int, str] | None = None,
) -> tuple[Context, list[Finding]]:
    """Lint one set (one cluster). The parsed files are indexed and checked together; the files
    a streamed run left unparsed hold nothing cross-object rules look up, so each is parsed,
    checked on its own against that index and dropped (see lint/lookups.py)."""
    declined = {} if declined is None else declined
    kept = [source for source in sources if source.parsed]
    streamed = [source for source in sources if not source.parsed]
    index = ObjectIndex.build(kept, options.namespace, RULE_LOOKUPS if options.stream else None)
    ctx = Context(index, sources, options.target, options.namespace)
    prepare_context(ctx, options)
    run = _SetRun(rules, ctx, options, config, release)
    if options.jobs > 1 and worth_forking(streamed) and can_fork():
        return ctx, _in_workers(run, kept, streamed, internal, declined)
    findings = _check_kept(run, kept, internal, declined)
    for source in streamed:
        findings.extend(check_streamed(run, source, internal, declined))
    return ctx, findings


@dataclass
class _SetRun:
    """What the checks of one set share."""

    rules: list[Rule]
    ctx: Context
    options: LintOptions
    config: Config
    release: bool

    @property
    def parse_errors(self) -> bool:
        return any(rule.code == PARSE_ERROR for rule in self.rules)


class StreamMiss(Exception):
    """A file left unparsed held an object cross-object rules look up (its kind spelled with
    escapes, so the text check missed it): the run starts again with every file parsed."""


def _check_kept(run: _SetRun, kept: list[SourceFile], internal: list[str], declined: dict[int, str]) -> list[Finding]:
    """The indexed files: per-object rules, set rules, then what every finding goes through."""
    findings = locate_all(run_rules(run.rules, run.ctx, internal), run.options, run.release)
    if run.parse_errors:
        findings.extend(parse_findings(kept, run.options))
    return _finish(run, findings, kept, run.ctx.index.objects, declined)


def check_streamed(run: _SetRun, source: SourceFile, internal: list[str], declined: dict[int, str]) -> list[Finding]:
    """Parse one file the index does not need, check its objects, then drop its values."""
    parse_text(source)
    objects = [obj for doc in source.documents for obj in objects_of(doc, run.options.namespace)]
    lookups = run.ctx.index.lookups
    if lookups is not None and any(lookups.wants(obj) for obj in objects):
        raise StreamMiss(source.path)
    findings = locate_all(run_object_rules(run.rules, run.ctx, objects, internal), run.options, run.release)
    if run.parse_errors:
        findings.extend(parse_findings([source], run.options))
    findings = _finish(run, findings, [source], objects, declined)
    source.release_values()
    return findings


def _finish(
    run: _SetRun, findings: list[Finding], sources: list[SourceFile], objects: list[KObject], declined: dict[int, str]
) -> list[Finding]:
    """Per-path ignores, Helm template positions, inline suppressions and the fixes `fix` would
    decline, for the findings of `sources` (whose objects are `objects`)."""
    options = run.options
    findings = _drop_path_ignores(findings, run.config)
    if any(source.template is not None for source in sources):
        findings = _template_findings(findings, sources)
    if options.inline_ignores:
        findings = _apply_suppressions(findings, sources, objects, run.rules, options)
        if run.release:  # suppressions locate their annotations too
            for source in sources:
                source.release_positions()
    found = declined_fixes(findings, objects, run.ctx.index)
    declined.update(found)
    for finding in findings:
        if id(finding) in found:
            finding.fixable = False  # `fix` would decline it: never promise a fix that is not written
    return findings


def _template_findings(findings: list[Finding], sources: list[SourceFile]) -> list[Finding]:
    """In Helm templates: drop the findings that point at a template action (its value is only
    known once rendered) and show masked values as `{{…}}` in the others."""
    templates = {source.path: source.template for source in sources if source.template is not None}
    kept = []
    for finding in findings:
        template = templates.get(finding.path)
        if template is None:
            kept.append(finding)
            continue
        span = finding.span
        start = template.offset(span.line, span.column)
        end = template.offset(span.end_line, span.end_column) if span.end_line == span.line else start + 1
        if template.touches(start, end):
            continue
        finding.message = shown(finding.message)
        if finding.object_id is not None and finding.object_id.name is not None:
            finding.object_id = replace(finding.object_id, name=shown(finding.object_id.name))
        kept.append(finding)
    return kept


class RunError(Exception):
    """The run cannot go on (an unusable --snapshot, --gates or --base): exit status 2."""


def prepare_context(ctx: Context, options: LintOptions) -> None:
    """Load the inputs named by the command line (--snapshot, --gates, --base) into the context."""
    if options.snapshot_path:
        from waslint.sources.snapshot import SnapshotError, load_snapshot

        try:
            ctx.snapshot = load_snapshot(options.snapshot_path)
        except SnapshotError as err:
            raise RunError(str(err)) from None
    if options.gates_path:
        from waslint.sources.gates import GatesFileError, load_gates_file

        try:
            ctx.gates = load_gates_file(options.gates_path)
        except GatesFileError as err:
            raise RunError(str(err)) from None
    if options.gates is not None:
        ctx.gates = options.gates
    ctx.runtime = options.runtime
    if options.base_ref:
        from waslint.sources.gitbase import GitBaseError, load_base

        try:
            ctx.base = load_base(options.base_ref, ctx.files, ctx.namespace)
        except GitBaseError as err:
            raise RunError(str(err)) from None


def run_rules(rules: list[Rule], ctx: Context, internal: list[str]) -> list[Hit]:
    return run_object_rules(rules, ctx, ctx.index.objects, internal) + run_set_rules(rules, ctx, internal)


def run_object_rules(rules: list[Rule], ctx: Context, objects: Iterable[KObject], internal: list[str]) -> list[Hit]:
    by_kind: dict[tuple[str, str], list[Rule]] = defaultdict(list)
    every_object: list[Rule] = []
    for rule in rules:
        if rule.kinds is None:
            every_object.append(rule)
        else:
            for kind in rule.kinds:
                by_kind[kind].append(rule)
    hits: list[Hit] = []
    for obj in objects:
        for rule in by_kind.get((obj.group, obj.kind), ()):
            _run_object_rule(rule, obj, ctx, hits, internal)
        for rule in every_object:
            _run_object_rule(rule, obj, ctx, hits, internal)
    return hits


def run_set_rules(rules: list[Rule], ctx: Context, internal: list[str]) -> list[Hit]:
    hits: list[Hit] = []
    for rule in rules:
        if rule.is_set_rule:
            try:
                hits.extend(rule.check_set(ctx))
            except Exception as err:  # a rule bug must not lose the other findings
                internal.append(_internal_error(rule, None, err))
    return hits


def locate_all(hits: list[Hit], options: LintOptions, release: bool) -> list[Finding]:
    """The findings of the hits, in order; with `release`, a file's node trees are dropped after
    its last hit is located, so at most a few files' trees are held at once."""
    if not release:
        return [to_finding(hit, options) for hit in hits]
    last: dict[int, int] = {}
    for position, hit in enumerate(hits):
        if hit.obj is not None:
            last[id(hit.obj.file)] = position
    findings = []
    for position, hit in enumerate(hits):
        findings.append(to_finding(hit, options))
        if hit.obj is not None and last[id(hit.obj.file)] == position:
            hit.obj.file.release_positions()
    return findings


# A streamed file's outcome as it travels back from a worker: its parse (values released), its
# findings (each with its document's position, -1 for none), and the fixes lint declines (by
# finding position).
_Outcome = tuple[int, PackedParse, list[tuple[Finding, int]], list[tuple[int, str]]]
# What a shard returns: the findings (run in the parent) or the outcomes (in a worker), the
# internal errors, and the path of a StreamMiss.
_ShardResult = tuple[list[Finding] | None, list[_Outcome], list[str], str | None]


def _in_workers(
    run: _SetRun, kept: list[SourceFile], streamed: list[SourceFile], internal: list[str], declined: dict[int, str]
) -> list[Finding]:
    """The streamed files in forked workers (which inherit the index without copying it), shards
    of the file list in order, while the parent checks the indexed files and takes the last
    shards itself. Only findings travel back. Same findings as the serial run."""
    parent = os.getpid()
    shards = split_evenly([len(source.text) + 1 for source in streamed], run.options.jobs * SHARDS_PER_JOB)

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

    def check_kept() -> None:
        kept_findings.extend(_check_kept(run, kept, kept_errors, declined))

    parts = fork_map(run_shard, shards, run.options.jobs, meanwhile=check_kept)
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


def _run_object_rule(rule: Rule, obj: KObject, ctx: Context, hits: list[Hit], internal: list[str]) -> None:
    if rule.text_trigger is not None and not obj.doc.mentions(rule.text_trigger):
        return
    try:
        hits.extend(rule.check(obj, ctx))
    except Exception as err:  # a rule bug must not lose the other findings
        internal.append(_internal_error(rule, obj, err))


def _internal_error(rule: Rule, obj: KObject | None, err: Exception) -> str:
    where = f" on {obj} in {obj.file.path}" if obj is not None else ""
    detail = "".join(traceback.format_exception_only(type(err), err)).strip()
    if os.environ.get("WASLINT_DEBUG"):
        traceback.print_exc()
    return f"internal error in {rule.code}{where}: {detail} (please report this bug)"


def to_finding(hit: Hit, options: LintOptions) -> Finding:
    rule = hit.rule
    severity = options.severity.get(rule.code) or hit.severity or rule.severity
    obj = hit.obj
    # A hit may decline the rule's fix for itself, never claim one the rule does not have.
    fixable = rule.fixable and hit.fixable is not False
    if obj is None:
        span = hit.extra.get("span", Span(1, 1, 1, 1))
        return Finding(
            rule.code,
            rule.name,
            severity,
            hit.message,
            hit.extra.get("path", "-"),
            hit.extra.get("document"),
            span,
            None,
            fixable,
            hit.path,
            hit.extra.get("doc"),
        )
    full = obj.full_path(hit.path)
    span = obj.doc.locate(full, key=hit.point_at_key)
    if "substring" in hit.extra:
        span = _narrow(span, obj.file.lines, hit.extra["substring"])
    return Finding(
        rule.code,
        rule.name,
        severity,
        hit.message,
        obj.file.path,
        obj.doc.index,
        span,
        obj.object_id,
        fixable,
        full,
        obj.doc,
    )


def _narrow(span: Span, lines: list[str], substring: str) -> Span:
    """Point at `substring` inside a one-line value (e.g. a condition name inside a command)."""
    if span.line != span.end_line:
        return span
    if not 0 < span.line <= len(lines):
        return span
    start = lines[span.line - 1].find(substring, span.column - 1)
    if start < 0:
        return span
    return Span(span.line, start + 1, span.line, start + 1 + len(substring))


def parse_findings(sources: list[SourceFile], options: LintOptions) -> list[Finding]:
    rule = get_rule(PARSE_ERROR)
    assert rule is not None
    severity = options.severity.get(PARSE_ERROR, rule.severity)
    findings = []
    for source in sources:
        for problem in source.problems:
            span = Span(problem.line, problem.column, problem.line, problem.column + 1)
            findings.append(
                Finding(PARSE_ERROR, rule.name, severity, problem.message, source.path, problem.document, span)
            )
    return findings


def _drop_path_ignores(findings: list[Finding], config: Config) -> list[Finding]:
    if not config.per_path_ignores:
        return findings
    cache: dict[str, list[str]] = {}
    kept = []
    for finding in findings:
        if finding.path not in cache:
            cache[finding.path] = config.ignored_for_path(finding.path)
        if not matches(finding.code, cache[finding.path]):
            kept.append(finding)
    return kept


def _apply_suppressions(
    findings: list[Finding],
    sources: list[SourceFile],
    objects: list[KObject],
    rules: list[Rule],
    options: LintOptions,
) -> list[Finding]:
    suppressions = SuppressionSet()
    for source in sources:
        suppressions.add_file(source)
    objects_by_doc: dict[tuple[int, tuple[Any, ...]], KObject] = {}
    for obj in objects:
        suppressions.add_object(obj)
        objects_by_doc[(id(obj.doc), obj.base_path)] = obj
    if not suppressions.by_file and not suppressions.by_object:
        return findings
    kept = []
    for finding in findings:
        owner = _owner(finding, objects_by_doc)
        found = suppressions.suppressing(finding, owner)
        if found is None:
            kept.append(finding)
        else:
            found.used = True
    kept.extend(_unused(suppressions, rules, options))
    return kept


def _owner(finding: Finding, objects_by_doc: dict[tuple[int, tuple[Any, ...]], KObject]) -> KObject | None:
    if finding.doc is None:
        return None
    path = finding.field_path
    if len(path) >= 2 and path[0] == "items":
        item = objects_by_doc.get((id(finding.doc), tuple(path[:2])))
        if item is not None:
            return item
    return objects_by_doc.get((id(finding.doc), ()))


def _unused(suppressions: SuppressionSet, rules: list[Rule], options: LintOptions) -> list[Finding]:
    rule = next((r for r in rules if r.code == UNUSED_SUPPRESSION), None)
    if rule is None:
        return []
    selected = [r.code for r in rules]
    severity = options.severity.get(UNUSED_SUPPRESSION, rule.severity)
    findings = []
    for item in suppressions.all():
        if item.used:
            continue
        if item.codes and not all(any(matches(code, [c]) for code in selected) for c in item.codes):
            continue  # it names a rule this run did not run: it may be used in another run
        message = f"unused suppression: {item.label} suppresses nothing; remove it"
        doc = item.obj.doc if item.obj is not None else None
        object_id = item.obj.object_id if item.obj is not None else None
        findings.append(
            Finding(
                UNUSED_SUPPRESSION,
                rule.name,
                severity,
                message,
                item.source.path,
                item.document,
                item.span,
                object_id,
                rule.fixable,
                item.field_path,
                doc,
            )
        )
    return findings
