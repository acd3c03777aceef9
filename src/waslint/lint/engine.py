"""The lint pipeline: read -> index what cross-object rules look up -> check every file (the
indexed ones together, the others one by one) -> findings (located, filtered, suppressed)."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any

from waslint.core.parallel import can_fork
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.io.batch import read_files, worth_forking
from waslint.io.config import Config
from waslint.io.loader import SourceFile, parse_text
from waslint.lint.checks import SetRun, check_kept
from waslint.lint.context import Context
from waslint.lint.lookups import RULE_LOOKUPS
from waslint.lint.options import LintOptions
from waslint.lint.registry import load_rules, select_rules, selected_codes
from waslint.lint.rulekinds import GATES_INPUT, kinds_in_text, may_fire
from waslint.lint.selection import may_need_layout, plan_reading
from waslint.lint.stream import StreamMiss, check_streamed, in_workers
from waslint.objects.index import ObjectIndex

if TYPE_CHECKING:  # read only by the runs that hold a kustomization or a chart
    from waslint.lint.gitops import Layout, RenderedRoot


@dataclass
class LintResult:
    """What a lint run found, over which files, and what it said once."""

    findings: list[Finding]
    files: list[SourceFile]
    internal_errors: list[str] = field(default_factory=list)
    context: Context | None = None
    skipped: list[str] = field(default_factory=list)  # "path: reason" (links out of the tree...)
    notes: list[str] = field(default_factory=list)  # said once (stderr, JSON summary): roots not rendered...
    # --lookup, --changed-since: the files reported on (the others were read for lookups only)
    reported: list[SourceFile] | None = None
    # An audit: the objects linted, each a one-document source; `files` holds only those that
    # findings point at (audit/run.py lints a cluster a group of namespaces at a time)
    objects: int | None = None

    @property
    def reported_files(self) -> list[SourceFile]:
        """The files the findings may come from."""
        return self.files if self.reported is None else self.reported

    @property
    def file_count(self) -> int:
        """What the summary counts as files (an audit: objects)."""
        return len(self.reported_files) if self.objects is None else self.objects

    @property
    def documents(self) -> int:
        if self.objects is not None:
            return self.objects
        return sum(len(source.documents) + len(source.problems) for source in self.reported_files)


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
    layout = _layout(sources, options, plan.reports if plan.reported is not None else None)
    if plan.reported is not None:  # --lookup, --changed-since: a file that is neither reported
        # nor looked up (left unparsed) has nothing to give the run
        sources = [source for source in sources if source.parsed or plan.reports(source.path)]
    name_stdin(sources, options.stdin_filename)
    # Everything loaded so far lives until the run ends: keep the collector from re-scanning it.
    gc.freeze()
    gc.enable()  # off through the start-up (cli.main)
    try:
        result = lint_sources(sources, replace(options, stream=stream), config, release_positions=True, layout=layout)
    except StreamMiss:
        sources = [_parsed_again(source) if _streamed(source) else source for source in sources]
        result = lint_sources(sources, options, config, release_positions=True, layout=layout)
    result.skipped = [f"{path}: {reason}" for path, reason in plan.skipped]
    if plan.reported is not None:
        result.findings = [finding for finding in result.findings if plan.reports(finding.path)]
        result.reported = [source for source in result.files if plan.reports(source.path)]
    return result, errors


def _layout(sources: list[SourceFile], options: LintOptions, reported: Callable[[str], bool] | None) -> Layout | None:
    """The repository's structure (charts, kustomize build roots and their renders), read only
    when the run holds a kustomization or a chart."""
    if not may_need_layout(source.path for source in sources):
        return None
    from waslint.lint.gitops import read_layout
    from waslint.sources.kustomize.render import RendererError

    try:
        return read_layout(sources, options, reported)
    except RendererError as err:
        raise RunError(str(err)) from None


def _may_stream(options: LintOptions) -> bool:
    """Whether no selected rule reads the whole set in this run (see Rule.whole_set_with_snapshot)."""
    if not options.snapshot_path:
        return True
    return not any(rule.whole_set_with_snapshot for rule in select_rules(options.select, options.ignore))


def _streamed(source: SourceFile) -> bool:
    """Whether the run left the file unparsed or dropped its values (a StreamMiss reads it again)."""
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
    sources: list[SourceFile],
    options: LintOptions,
    config: Config | None = None,
    *,
    release_positions: bool = False,
    layout: Layout | None = None,
) -> LintResult:
    """Lint a set of files. Each scope is linted as its own cluster (its own index and context)
    and the findings are merged: the config's `scopes`, else the repository's structure (`layout`:
    each Helm chart, and each kustomize build root as what it renders). `release_positions`: drop
    each file's node trees once its findings are located (lint keeps none; fix plans with them)."""
    config = config or Config()
    codes = selected_codes(options.select, options.ignore)
    internal: list[str] = []
    findings: list[Finding] = []
    contexts: list[Context] = []
    plain = sources if layout is None else [_as_plain(source, layout) for source in sources]
    for scope, members in split_scopes(plain, config, layout).items():
        ctx, scope_findings = _lint_set(members, codes, options, config, internal, release_positions)
        for finding in scope_findings:
            finding.scope = scope if config.scopes and not config.is_file_scope(scope) else None
        findings.extend(scope_findings)
        contexts.append(ctx)
    if layout is not None:
        findings.extend(_lint_renders(layout, codes, options, config, internal, contexts))
    findings.sort(key=Finding.sort_key)
    if len(contexts) == 1:
        whole = contexts[0]
    else:  # the fixer looks objects up across the run
        whole = Context(ObjectIndex([obj for ctx in contexts for obj in ctx.index.objects]), sources, options.target)
    notes = list(layout.notes) if layout is not None else []
    return LintResult(findings, sources, internal, whole, notes=notes)


def _as_plain(source: SourceFile, layout: Layout) -> SourceFile:
    """A file the renders stand for (a patch, a kustomization, a resource of a rendered root) is
    not linted as whole objects: only its parse problems are kept (WAS001)."""
    if source.path == "-" or os.path.realpath(source.path) not in layout.hidden:
        return source
    if not source.parsed:
        parse_text(source)  # its problems, and its documents for the summary
    stand_in = SourceFile(source.path, "", source.is_json)
    stand_in.problems = source.problems
    return stand_in


def _lint_renders(
    layout: Layout,
    codes: list[str],
    options: LintOptions,
    config: Config,
    internal: list[str],
    contexts: list[Context],
) -> list[Finding]:
    """Each rendered root as its own cluster (roots in one config scope together), its findings
    at their source lines, merged across roots; then the builds that failed (WAS005)."""
    from waslint.lint.gitops import merge_rendered

    groups: dict[str, list[RenderedRoot]] = {}
    for rendered in layout.rendered:
        key = (
            (config.scope_of(rendered.label + "/kustomization.yaml") or rendered.label)
            if config.scopes
            else rendered.label
        )
        groups.setdefault(key, []).append(rendered)
    by_root: list[tuple[RenderedRoot, list[Finding]]] = []
    whole = replace(options, stream=False)
    for key, members in groups.items():
        files = [source for rendered in members for source in rendered.files]
        ctx, found = _lint_set(files, codes, whole, config, internal, False)
        contexts.append(ctx)
        for rendered in members:
            by_root.append((rendered, [finding for finding in found if _of_root(finding, rendered)]))
        for finding in found:
            finding.scope = key if config.scopes else None
    return merge_rendered(by_root, layout) + _filtered(layout.findings, config)


def _of_root(finding: Finding, rendered: RenderedRoot) -> bool:
    """Whether a finding of a set is about one of the root's objects (or its files' comments)."""
    if finding.doc is not None:
        return any(finding.doc.file is source for source in rendered.files)
    return any(finding.path == source.path for source in rendered.files)


def _filtered(findings: list[Finding], config: Config) -> list[Finding]:
    from waslint.core.codes import matches

    return [f for f in findings if not matches(f.code, config.ignored_for_path(f.path))]


def split_scopes(
    sources: list[SourceFile], config: Config, layout: Layout | None = None
) -> dict[str | None, list[SourceFile]]:
    """Files by scope, in reading order; files outside every scope (None) form one more set. The
    config's `scopes` win; without them each Helm chart of the layout is a scope."""
    if not config.scopes and (layout is None or not layout.charts):
        return {None: sources}
    by_scope: dict[str | None, list[SourceFile]] = {}
    for source in sources:
        if config.scopes:
            scope = config.scope_of(source.path)
        else:
            scope = layout.chart_of(source.path) if layout is not None else None
        by_scope.setdefault(scope, []).append(source)
    return by_scope or {None: []}


def _lint_set(
    sources: list[SourceFile],
    codes: list[str],
    options: LintOptions,
    config: Config,
    internal: list[str],
    release: bool = False,
) -> tuple[Context, list[Finding]]:
    """Lint one set (one cluster) with the selected rules that can fire on its kinds (see
    lint/rulekinds.py). The parsed files are indexed and checked together; the files a streamed
    run left unparsed hold nothing cross-object rules look up, so each is parsed, checked on its
    own against that index and dropped (see lint/lookups.py)."""
    kept = [source for source in sources if source.parsed]
    streamed = [source for source in sources if not source.parsed]
    index = ObjectIndex.build(kept, options.namespace, RULE_LOOKUPS if options.stream else None)
    ctx = Context(index, sources, options.target, options.namespace)
    prepare_context(ctx, options)
    kinds = frozenset(
        {obj.kind for obj in index.objects}
        | kinds_in_text(source.text for source in streamed)
        | ({GATES_INPUT} if ctx.gates is not None else set())
    )
    rules = load_rules(code for code in codes if may_fire(code, kinds))
    run = SetRun(rules, ctx, options, config, release, codes, kinds)
    if options.jobs > 1 and worth_forking(sources) and can_fork():
        return ctx, in_workers(run, kept, streamed, internal)
    findings = check_kept(run, kept, internal)
    for source in streamed:
        findings.extend(check_streamed(run, source, internal))
    return ctx, findings


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
