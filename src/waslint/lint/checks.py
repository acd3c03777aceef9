"""The checks of a set of files: rules -> hits -> findings, located, filtered by per-path ignores,
Helm template positions and inline suppressions, and marked with the fixes `fix` would decline."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import field, replace

from waslint.core.codes import matches
from waslint.core.model import Span
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.io.config import Config
from waslint.io.helmtext import shown
from waslint.io.loader import SourceFile
from waslint.lint.context import Context
from waslint.lint.options import LintOptions
from waslint.lint.owners import owner_of, owners_of
from waslint.lint.registry import Hit, Place, Rule, get_rule
from waslint.lint.suppress import SuppressionSet
from waslint.objects.kobject import KObject

PARSE_ERROR = "WAS001"
UNUSED_SUPPRESSION = "WAS000"


@dataclass
class SetRun:
    """What the checks of one set share."""

    rules: list[Rule]
    ctx: Context
    options: LintOptions
    config: Config
    release: bool
    # Every selected code (`rules` are those of them that can fire on the set's kinds: unused
    # suppressions are judged against all of these), and the kind names `rules` were chosen for
    # (None: every selected rule is in `rules`).
    codes: list[str] = field(default_factory=list)
    kinds: frozenset[str] | None = None

    @property
    def parse_errors(self) -> bool:
        return any(rule.code == PARSE_ERROR for rule in self.rules)


def check_kept(run: SetRun, kept: list[SourceFile], internal: list[str]) -> list[Finding]:
    """The indexed files: per-object rules, set rules, then what every finding goes through."""
    findings = locate_all(run_rules(run.rules, run.ctx, internal), run.options, run.release)
    return finish(run, findings, kept, run.ctx.index.objects)


def finish(run: SetRun, findings: list[Finding], sources: list[SourceFile], objects: list[KObject]) -> list[Finding]:
    """The rules' findings for `sources` (whose objects are `objects`), joined by the files' parse
    errors (WAS001), then: per-path ignores, Helm template positions, inline suppressions and the
    fixes `fix` would decline (`Finding.declined`)."""
    options = run.options
    if run.parse_errors:
        findings = findings + parse_findings(sources, options)
    findings = _drop_path_ignores(findings, run.config)
    if any(source.template is not None for source in sources):
        findings = _template_findings(findings, sources)
    if options.inline_ignores:
        findings = _apply_suppressions(findings, sources, objects, run, options)
        if run.release:  # suppressions locate their annotations too
            for source in sources:
                source.release_positions()
    if any(finding.fixable for finding in findings):  # the planners load only when a fix may be offered
        from waslint.lint.fixers.preview import declined_fixes

        declined = declined_fixes(findings, objects, run.ctx.index)
    else:
        declined = {}
    for finding, reason in declined.items():
        finding.fixable = False  # `fix` would decline it: never promise a fix that is not written
        finding.declined = reason
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
    last: dict[SourceFile, int] = {}
    for position, hit in enumerate(hits):
        if hit.obj is not None:
            last[hit.obj.file] = position
    findings = []
    for position, hit in enumerate(hits):
        findings.append(to_finding(hit, options))
        if hit.obj is not None and last[hit.obj.file] == position:
            hit.obj.file.release_positions()
    return findings


def _run_object_rule(rule: Rule, obj: KObject, ctx: Context, hits: list[Hit], internal: list[str]) -> None:
    if rule.text_trigger is not None and not obj.doc.mentions(rule.text_trigger):
        return
    try:
        hits.extend(rule.check(obj, ctx))
    except Exception as err:  # a rule bug must not lose the other findings
        internal.append(_internal_error(rule, obj, err))


def _internal_error(rule: Rule, obj: KObject | None, err: Exception) -> str:
    import traceback  # only a rule that raised

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
        place = hit.place or Place("-", Span(1, 1, 1, 1))
        return Finding(
            code=rule.code,
            name=rule.name,
            severity=severity,
            message=hit.message,
            path=place.file_path,
            document=place.document,
            span=place.span,
            fixable=fixable,
            field_path=hit.path,
            doc=place.doc,
        )
    full = obj.full_path(hit.path)
    if hit.structural and obj.file.template is not None:
        span = obj.doc.locate_key(full)  # a fact whatever the value renders to: point at the key
    else:
        span = obj.doc.locate(full, key=hit.point_at_key)
    path, lines = obj.file.path, obj.file.lines
    document: int | None = obj.doc.index
    moved = obj.doc.moved(full, hit.point_at_key)
    if moved is not None:  # a rendered object's field a patch or a kustomization wrote
        written_in, document, span = moved
        path, lines = written_in.path, written_in.lines
    if hit.substring is not None:
        span = _narrow(span, lines, hit.substring)
    return Finding(
        code=rule.code,
        name=rule.name,
        severity=severity,
        message=hit.message,
        path=path,
        document=document,
        span=span,
        object_id=obj.object_id,
        fixable=fixable,
        field_path=full,
        doc=obj.doc,
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
                Finding(
                    code=PARSE_ERROR,
                    name=rule.name,
                    severity=severity,
                    message=problem.message,
                    path=source.path,
                    document=problem.document,
                    span=span,
                )
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
    run: SetRun,
    options: LintOptions,
) -> list[Finding]:
    suppressions = SuppressionSet()
    for source in sources:
        suppressions.add_file(source)
    for obj in objects:
        suppressions.add_object(obj)
    if not suppressions.by_file and not suppressions.by_object:
        return findings
    owners = owners_of(objects)
    kept = []
    for finding in findings:
        owner = owner_of(finding, owners)
        found = suppressions.suppressing(finding, owner)
        if found is None:
            kept.append(finding)
        else:
            found.used = True
    kept.extend(_unused(suppressions, run.rules, run.codes or [r.code for r in run.rules], options))
    return kept


def _unused(
    suppressions: SuppressionSet, rules: list[Rule], selected: list[str], options: LintOptions
) -> list[Finding]:
    rule = next((r for r in rules if r.code == UNUSED_SUPPRESSION), None)
    if rule is None:
        return []
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
                code=UNUSED_SUPPRESSION,
                name=rule.name,
                severity=severity,
                message=message,
                path=item.source.path,
                document=item.document,
                span=item.span,
                object_id=object_id,
                fixable=rule.fixable,
                field_path=item.field_path,
                doc=doc,
            )
        )
    return findings
