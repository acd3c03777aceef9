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
from waslint.io.batch import load_files
from waslint.io.config import Config
from waslint.io.helm import shown
from waslint.io.loader import SourceFile
from waslint.knowledge.releases import Release, default_target
from waslint.lint.context import Context, RuntimeInputs
from waslint.lint.fixers.preview import declined_fixes
from waslint.lint.registry import Hit, Rule, get_rule, select_rules
from waslint.lint.selection import plan_reading
from waslint.lint.suppress import SuppressionSet
from waslint.objects.index import ObjectIndex
from waslint.objects.kobject import KObject

if TYPE_CHECKING:
    from waslint.sources.gates import GatesFile

PARSE_ERROR = "WAS001"
MIN_PARALLEL_OBJECTS = 1000
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
    sources = load_files(plan.files, options.jobs, stdin)
    if errors:
        return LintResult([], []), errors
    name_stdin(sources, options.stdin_filename)
    errors = [source.read_error for source in sources if source.read_error is not None]
    if errors:
        return LintResult([], sources), errors
    # Everything loaded lives until the run ends: keep the collector from re-scanning it.
    gc.freeze()
    result = lint_sources(sources, options, config, release_positions=True)
    result.skipped = [f"{path}: {reason}" for path, reason in plan.skipped]
    if plan.reported is not None:
        result.findings = [finding for finding in result.findings if plan.reports(finding.path)]
    return result, errors


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
    index = ObjectIndex.build(sources, options.namespace)
    ctx = Context(index, sources, options.target, options.namespace)
    prepare_context(ctx, options)
    if options.jobs > 1 and len(index.objects) >= MIN_PARALLEL_OBJECTS and can_fork():
        findings = _findings_in_workers(rules, ctx, options, internal, release)
    else:
        findings = locate_all(run_rules(rules, ctx, internal), options, release)
    if any(rule.code == PARSE_ERROR for rule in rules):
        findings.extend(parse_findings(sources, options))
    findings = _drop_path_ignores(findings, config)
    if any(source.template is not None for source in sources):
        findings = _template_findings(findings, sources)
    if options.inline_ignores:
        findings = _apply_suppressions(findings, sources, index, rules, options)
        if release:  # suppressions locate their annotations too
            for source in sources:
                source.release_positions()
    declined = {} if declined is None else declined
    declined.update(declined_fixes(findings, index))
    for finding in findings:
        if id(finding) in declined:
            finding.fixable = False  # `fix` would decline it: never promise a fix that is not written
    return ctx, findings


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


# A shard's findings as they travel back from a worker: the document they point into is named by
# (file position, document position) and linked again in the parent.
_Shipped = tuple[list[tuple[Finding, int, int]], list[str]]


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


def _findings_in_workers(
    rules: list[Rule], ctx: Context, options: LintOptions, internal: list[str], release: bool
) -> list[Finding]:
    """Per-object rules (and the positions of their findings) in forked workers, shards of the
    object list in order; the set rules meanwhile in the parent. Same findings, same order as
    the serial run."""
    objects = ctx.index.objects
    where = {id(doc): (f, d) for f, source in enumerate(ctx.files) for d, doc in enumerate(source.documents)}
    weights = [len(obj.file.text) // max(len(obj.file.documents), 1) + 1 for obj in objects]
    shards = split_evenly(weights, options.jobs * 4)  # the parent takes the last 4 itself

    def run_shard(shard: range) -> _Shipped:
        errors: list[str] = []
        hits = run_object_rules(rules, ctx, (objects[position] for position in shard), errors)
        shipped = []
        for finding in locate_all(hits, options, release):
            file_position, doc_position = where.get(id(finding.doc), (-1, -1))
            finding.doc = None
            shipped.append((finding, file_position, doc_position))
        return shipped, errors

    set_hits: list[Hit] = []
    set_errors: list[str] = []

    def set_rules() -> None:
        set_hits.extend(run_set_rules(rules, ctx, set_errors))

    parts = fork_map(run_shard, shards, options.jobs, meanwhile=set_rules, in_parent=4)
    findings: list[Finding] = []
    for shipped, errors in parts:
        internal.extend(errors)
        for finding, file_position, doc_position in shipped:
            if file_position >= 0:
                finding.doc = ctx.files[file_position].documents[doc_position]
            findings.append(finding)
    internal.extend(set_errors)
    findings.extend(locate_all(set_hits, options, release))
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
    index: ObjectIndex,
    rules: list[Rule],
    options: LintOptions,
) -> list[Finding]:
    suppressions = SuppressionSet()
    for source in sources:
        suppressions.add_file(source)
    objects_by_doc: dict[tuple[int, tuple[Any, ...]], KObject] = {}
    for obj in index.objects:
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
