"""The lint pipeline: load -> index the set -> rules -> findings (located, filtered, suppressed)."""

from __future__ import annotations

import gc
import os
import traceback
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from waslint.core.codes import matches
from waslint.core.model import Severity, Span
from waslint.findings import Finding
from waslint.io.config import Config
from waslint.io.discover import discover_all
from waslint.io.loader import SourceFile, load_all
from waslint.knowledge.releases import Release, default_target
from waslint.lint.context import Context, RuntimeInputs
from waslint.lint.fixers.preview import declined_fixes
from waslint.lint.registry import Hit, Rule, get_rule, select_rules
from waslint.lint.suppress import SuppressionSet
from waslint.objects.index import ObjectIndex
from waslint.objects.kobject import KObject
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
    paths: Iterable[str], options: LintOptions, config: Config | None = None, stdin: Any = None
) -> tuple[LintResult, list[str]]:
    """Lint PATH arguments. Returns the result and the path errors (unreadable paths)."""
    config = config or Config()
    found = discover_all(paths, config.excludes)
    if found.errors:
        return LintResult([], []), found.errors
    sources = load_all(found.files, stdin)
    name_stdin(sources, options.stdin_filename)
    errors = [source.read_error for source in sources if source.read_error is not None]
    if errors:
        return LintResult([], sources), errors
    # Everything loaded lives until the run ends: keep the collector from re-scanning it.
    gc.freeze()
    result = lint_sources(sources, options, config)
    result.skipped = [f"{path}: {reason}" for path, reason in found.skipped]
    return result, errors


def name_stdin(sources: list[SourceFile], name: str | None) -> None:
    """Give stdin the name --stdin-filename chose: findings carry it, per-path config matches it."""
    if name:
        for source in sources:
            if source.path == "-":
                source.path = name


def lint_sources(sources: list[SourceFile], options: LintOptions, config: Config | None = None) -> LintResult:
    config = config or Config()
    rules = list(select_rules(options.select, options.ignore))
    index = ObjectIndex.build(sources, options.namespace)
    ctx = Context(index, sources, options.target, options.namespace)
    prepare_context(ctx, options)
    internal: list[str] = []
    hits = run_rules(rules, ctx, internal)
    findings = [to_finding(hit, options) for hit in hits]
    if any(rule.code == PARSE_ERROR for rule in rules):
        findings.extend(parse_findings(sources, options))
    findings = _drop_path_ignores(findings, config)
    if options.inline_ignores:
        findings = _apply_suppressions(findings, sources, index, rules, options)
    findings.sort(key=Finding.sort_key)
    declined = declined_fixes(findings, index)
    for finding in findings:
        if id(finding) in declined:
            finding.fixable = False  # `fix` would decline it: never promise a fix that is not written
    return LintResult(findings, sources, internal, ctx, declined=declined)


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
    by_kind: dict[tuple[str, str], list[Rule]] = defaultdict(list)
    every_object: list[Rule] = []
    for rule in rules:
        if rule.kinds is None:
            every_object.append(rule)
        else:
            for kind in rule.kinds:
                by_kind[kind].append(rule)
    hits: list[Hit] = []
    for obj in ctx.index.objects:
        for rule in by_kind.get((obj.group, obj.kind), ()):
            _run_object_rule(rule, obj, ctx, hits, internal)
        for rule in every_object:
            _run_object_rule(rule, obj, ctx, hits, internal)
    for rule in rules:
        if rule.is_set_rule:
            try:
                hits.extend(rule.check_set(ctx))
            except Exception as err:  # a rule bug must not lose the other findings
                internal.append(_internal_error(rule, None, err))
    return hits


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
