"""The `waslint` command line: the commands of the CLI contract on the standard library's
argparse (core/argparsing.py). Only the invoked command's parser is built, and heavy modules are
imported inside the commands that use them: a pre-commit hook starts on every commit."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from waslint import __version__
from waslint.core.argparsing import Parser, UsageError, choices, program_name, whole_number
from waslint.core.failure import (
    DEBUG_FLAG,
    RUN_FAILED,
    RunFailure,
    install_termination_handler,
    internal_error_line,
    run_failure_line,
    take_debug_flag,
)
from waslint.core.records import dataclass
from waslint.escape.terminal import printable

if TYPE_CHECKING:
    from argparse import Namespace

    from waslint.audit.run import AuditResult
    from waslint.findings import Finding
    from waslint.io.config import Config
    from waslint.knowledge.releases import Release
    from waslint.lint.engine import LintResult
    from waslint.lint.options import LintOptions
    from waslint.lint.registry import Rule


class RunFailed(SystemExit):
    """`fail`: the run itself failed (its line is already on stderr); status 2."""

    def __init__(self) -> None:
        super().__init__(RUN_FAILED)


def say(line: str) -> None:
    """One line on stderr: what the run tells the user beside the report. It may quote a server
    or a file name: its control characters are shown, never sent (escape/terminal)."""
    sys.stderr.write(printable(line) + "\n")
    sys.stderr.flush()


def fail(message: str) -> NoReturn:
    """A failure of the run itself (usage, config, unreadable path): exit status 2."""
    say(f"waslint: error: {message}")
    raise RunFailed()


def warn(message: str) -> None:
    say(f"waslint: warning: {message}")


def load_settings(
    config_path: str | None,
    target: str | None,
    select: list[str] | None,
    ignore: list[str] | None,
    namespace: str | None,
    fail_on: str | None,
    no_inline_ignores: bool,
) -> tuple[Config, LintOptions, str]:
    """The config file (already found: see config_groups), then command-line flags on top.
    Invalid values end the run with status 2."""
    from waslint.io.config import ConfigError, check_codes, check_fail_on, check_target_version, load_config
    from waslint.lint.codes import RULES
    from waslint.lint.options import LintOptions

    known = list(RULES)  # the codes table: no rule module is imported to know the codes
    try:
        config = load_config(config_path, known)
        options = LintOptions.from_config(config)
        if target is not None:
            options.target = check_target_version(target)
        if select:
            options.select = _code_list(select, "--select", known, check_codes)
            _warn_ignored_selection(options.select, config)
        if ignore:
            options.ignore += _code_list(ignore, "--ignore", known, check_codes)
        if namespace:
            options.namespace = namespace
        if no_inline_ignores:
            options.inline_ignores = False
        threshold = check_fail_on(fail_on) if fail_on is not None else (config.fail_on or "error")
    except ConfigError as err:
        fail(str(err))
    return config, options, threshold


def config_groups(
    paths: list[str], config_path: str | None, stdin_filename: str | None = None
) -> list[tuple[str | None, list[str]]]:
    """`--config` for every path; else the nearest config above each path (as ruff does), paths
    that share one config in one group. Stdin looks from --stdin-filename's folder."""
    from waslint.io.config import find_config

    if config_path:
        return [(config_path, paths)]
    groups: dict[str | None, list[str]] = {}
    by_folder: dict[str, str | None] = {}  # pre-commit names hundreds of files in a few folders
    for path in paths:
        if path == "-":
            start = os.path.dirname(os.path.abspath(stdin_filename)) if stdin_filename else os.getcwd()
        else:
            start = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
        if start not in by_folder:
            by_folder[start] = find_config(start)
        groups.setdefault(by_folder[start], []).append(path)
    return list(groups.items())


def _code_list(
    values: list[str], flag: str, known: list[str], check: Callable[[list[str], str, list[str]], None]
) -> list[str]:
    """Repeated flags add up: `--select WAS1 --select WAS2,WAS3`."""
    codes = [part.strip().upper() for text in values for part in text.split(",") if part.strip()]
    if not codes and flag == "--select":
        fail("--select: no rule codes given (to run every rule, leave --select out or use ALL)")
    check(codes, flag, known)
    return codes


def _warn_ignored_selection(selected: list[str], config: Config) -> None:
    """--select asked for rules the config's `ignore` removes: say so, they will not run."""
    from waslint.core.codes import matches
    from waslint.lint.codes import RULES

    if not config.ignore:
        return
    for selector in selected:
        chosen = [code for code in RULES if matches(code, [selector])]
        removed = [code for code in chosen if matches(code, config.ignore)]
        if removed:
            what = "all of it" if len(removed) == len(chosen) else ", ".join(removed)
            warn(
                f"--select {selector}: `ignore` in {config.source} removes {what}"
                f" (ignore: {', '.join(config.ignore)}); those rules do not run"
            )


def exit_status(result: LintResult, threshold: str) -> int:
    from waslint.core.model import Severity

    if result.internal_errors:
        return 2
    if threshold == "never":
        return 0
    lowest = Severity.parse(threshold)
    return 1 if any(finding.severity >= lowest for finding in result.findings) else 0


@dataclass
class Display:
    """How the findings are shown; none of it changes the exit status."""

    fmt: str | None = None
    output: str | None = None
    statistics: bool = False
    quiet: bool = False
    show_level: str | None = None
    show_fixes: bool = False

    def checked(self) -> Display:
        """Resolve the default format and check the values (exit 2 on a bad one)."""
        from waslint.report import FORMATS

        self.fmt = resolve_format(self.fmt)
        if self.fmt not in FORMATS:
            fail(f"--format: {self.fmt!r} is not one of {', '.join(FORMATS)}")
        if self.show_level is not None:
            self.show_level = self.show_level.strip().lower()
            if self.show_level not in ("error", "warning", "info"):
                fail(f"--show-level: {self.show_level!r} is not one of error, warning, info")
        if self.statistics and self.fmt not in ("text", "concise", "json"):
            fail(f"--statistics prints a text or json table, not --format {self.fmt}")
        return self


def resolve_format(fmt: str | None) -> str:
    """`--format`, else `github` inside GitHub Actions, else `text`."""
    if fmt is not None:
        return fmt.strip().lower()
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def emit_report(
    result: LintResult, display: Display, target: Release, baselined: int = 0, audit: AuditResult | None = None
) -> None:
    """The report of a lint (or audit: `audit` adds the cluster and its verdict) in the chosen format."""
    from waslint.core.argparsing import terminal_columns
    from waslint.core.model import Severity
    from waslint.lint.registry import all_rules, get_rule
    from waslint.report import ReportInput, SourceTexts, render, source_root

    fmt = display.fmt or "text"
    findings = result.findings
    if display.show_level is not None:
        lowest = Severity.parse(display.show_level)
        findings = [finding for finding in findings if finding.severity >= lowest]
    color = fmt == "text" and display.output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    report = ReportInput(
        findings=findings,
        files=result.file_count,
        documents=result.documents,
        target_version=str(target),
        sources=audit.texts if audit is not None else SourceTexts(result.files),
        color=color,
        # SARIF lists every rule as the driver's; the other formats describe the findings' rules only
        # (so a run that found nothing loads neither every rule module nor the fix planners)
        rules=[rule.info for rule in (all_rules() if fmt == "sarif" else _rules_of(findings, get_rule))],
        quiet=display.quiet,
        show_fixes=display.show_fixes,
        hidden=len(result.findings) - len(findings),
        show_level=display.show_level,
        width=terminal_columns(),
        root=source_root() if fmt in ("sarif", "github") else None,
        skipped=result.skipped,
        notes=result.notes,
        baselined=baselined,
        **(_audit_report_fields(audit) if audit is not None else {}),
    )
    if display.statistics:
        from waslint.report import statistics

        text = statistics.render_json(report) if fmt == "json" else statistics.render_text(report)
    else:
        text = render(fmt, report)
    write_output(text, display.output)
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt == "github" and summary_path:
        from waslint.report.github import append_step_summary

        problem = append_step_summary(report, summary_path)
        if problem:
            warn(problem)
    if fmt not in ("text", "json"):
        for entry in result.skipped:
            say(f"waslint: skipped {entry}")
    for note in result.notes:
        say(f"waslint: note: {note}")


def _audit_report_fields(audit: AuditResult) -> dict[str, Any]:
    from waslint.report.base import Verdict

    served: dict[str, list[str]] = {}
    for resource in audit.discovery.resources:
        versions = served.setdefault(resource.group or "core", [])
        if resource.version not in versions:
            versions.append(resource.version)
    cluster: dict[str, Any] = {"context": audit.context, "server": audit.server, "server_version": audit.server_version}
    cluster["served"] = {group: sorted(versions) for group, versions in sorted(served.items())}
    return {"objects": True, "cluster": cluster, "verdict": Verdict(str(audit.target), list(audit.verdict))}


def write_output(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as err:
        fail(f"cannot write {output}: {err.strerror or err}")


def lint(a: Namespace) -> int:
    """Lint manifests: files, folders (recursively *.yaml, *.yml, *.json, kustomizations) or '-' for stdin."""
    from waslint.lint.engine import RunError, lint_paths

    display = Display(a.format, a.output, a.statistics, a.quiet, a.show_level, a.show_fixes).checked()
    live = _live_schemas(a.kubeconfig, a.context) if a.cluster else None
    runs: list[tuple[LintResult, str]] = []
    for config_file, group in config_groups(a.paths or ["."], a.config, a.stdin_filename):
        settings, options, threshold = load_settings(
            config_file, a.target_version, a.select, a.ignore, a.namespace, a.fail_on, a.no_inline_ignores
        )
        _set_cluster_inputs(options, a.snapshot, a.base, a.gates)
        options.stdin_filename = a.stdin_filename
        if live is not None:
            _use_live_schemas(options, *live)
        options.jobs = _jobs(a.jobs)
        if a.kustomize_cmd is not None:
            options.kustomize_cmd = _kustomize_cmd(a.kustomize_cmd)
        try:
            result, path_errors = lint_paths(
                group, options, settings, context=a.lookup or (), changed_since=a.changed_since
            )
        except RunError as err:
            fail(str(err))
        if path_errors:
            fail("; ".join(path_errors))
        runs.append((result, threshold))
    result = merge_results([run[0] for run in runs])
    for warning in dict.fromkeys(w for run, _ in runs for w in _snapshot_warnings(run)):
        warn(warning)
    if a.write_baseline is not None:
        _write_baseline(result, a.write_baseline)
        return 0
    baselined = _apply_baseline(result, [run[0] for run in runs], a.baseline) if a.baseline is not None else 0
    emit_report(result, display, options.target, baselined)
    for message in result.internal_errors:
        say(f"waslint: {message}")
    return max(exit_status(run_result, threshold) for run_result, threshold in runs)


def _snapshot_warnings(result: LintResult) -> list[str]:
    snapshot = result.context.snapshot if result.context is not None else None
    return list(getattr(snapshot, "warnings", []))


def merge_results(results: list[LintResult]) -> LintResult:
    """One report for paths linted under different configs."""
    if len(results) == 1:
        return results[0]
    from waslint.findings import Finding
    from waslint.lint.engine import LintResult

    findings = sorted((f for r in results for f in r.findings), key=Finding.sort_key)
    files = [source for r in results for source in r.files]
    merged = LintResult(findings, files, [message for r in results for message in r.internal_errors])
    merged.skipped = [entry for r in results for entry in r.skipped]
    merged.notes = list(dict.fromkeys(note for r in results for note in r.notes))
    if any(r.reported is not None for r in results):
        merged.reported = [source for r in results for source in r.reported_files]
    return merged


def _kustomize_cmd(command: str) -> str:
    """`--kustomize-cmd`, checked as the config's `kustomize-cmd` is: an empty one is a usage error."""
    if not command.strip():
        fail("--kustomize-cmd: expected a command line, e.g. 'kustomize build --enable-helm'")
    return command


def _jobs(jobs: int | None) -> int:
    from waslint.core.parallel import JOBS_PER_CORE, default_jobs, max_jobs

    if jobs is None:
        return default_jobs()
    if jobs < 1:
        fail(f"--jobs: {jobs} is not a positive number of worker processes")
    if jobs > max_jobs():
        warn(f"--jobs {jobs}: capped at {max_jobs()} ({JOBS_PER_CORE} per core on {default_jobs()} cores)")
        return max_jobs()
    return jobs


def _rules_of(findings: list[Finding], get_rule: Callable[[str], Rule | None]) -> list[Rule]:
    found = (get_rule(code) for code in sorted({finding.code for finding in findings}))
    return [rule for rule in found if rule is not None]


def _write_baseline(result: LintResult, path: str) -> None:
    from waslint.lint.baseline import baseline_json

    write_output(baseline_json(result.findings), path)
    say(f"waslint: wrote a baseline of {len(result.findings)} findings to {path}")


def _apply_baseline(result: LintResult, runs: list[LintResult], path: str) -> int:
    """Keep the findings the baseline does not cover, in the report and in each run's exit status.
    Returns how many it left out (the summary says so)."""
    from waslint.lint.baseline import BaselineError, load_baseline, new_findings

    before = len(result.findings)
    try:
        result.findings = new_findings(result.findings, load_baseline(path))
    except BaselineError as err:
        fail(str(err))
    kept = set(result.findings)
    for run in runs:
        run.findings = [finding for finding in run.findings if finding in kept]
    return before - len(result.findings)


def _set_cluster_inputs(options: LintOptions, snapshot: str | None, base: str | None, gates: str | None) -> None:
    """The inputs of the rules that read cluster facts, git history or a gate inventory."""
    for flag, value in (("--snapshot", snapshot), ("--gates", gates)):
        if value is not None and not os.path.exists(value):
            fail(f"{flag}: {value}: no such file or directory")
    options.snapshot_path = snapshot
    options.base_ref = base
    options.gates_path = gates


def fix(a: Namespace) -> int:
    """Rewrite older WAS manifests for the fix target release in place, changing nothing else ('-': stdin to
    stdout)."""
    from waslint.fix.command import FixRequest, UsageError, run
    from waslint.fix.run import FixOptions
    from waslint.knowledge.releases import fix_target, parse_release

    if a.target_version is not None and parse_release(a.target_version) != fix_target():
        fail(
            f"--target-version: `waslint fix` rewrites manifests for Kubernetes {fix_target()},"
            f" not {a.target_version!r}"
        )
    mode = "diff" if a.diff else "check" if a.check else "fix"
    groups = config_groups(list(a.paths or ["."]), a.config, a.stdin_filename)
    if len(groups) > 1 and a.output is not None:
        fail(f"-o: the paths fall under {len(groups)} config files; run fix once per config folder")
    status = 0
    for config_file, group in groups:
        settings, options, threshold = load_settings(
            config_file, None, a.select, a.ignore, a.namespace, a.fail_on, a.no_inline_ignores
        )
        options.stdin_filename = a.stdin_filename
        request = FixRequest(
            paths=group,
            options=FixOptions(lint=options, config=settings, unsafe=a.unsafe_fixes),
            mode=mode,
            fmt=resolve_format(a.format),
            output=a.output,
            threshold=threshold,
        )
        try:
            status = max(status, run(request))
        except UsageError as err:
            fail(str(err))
    return status


def feasibility(a: Namespace) -> int:
    """Can each gang in PATH be placed all-or-nothing on the snapshot's cluster? Where, or why not."""
    from waslint.feasibility.analysis import WhatIf
    from waslint.feasibility.command import FeasibilityRequest, UsageError, run

    if not a.snapshot:
        fail("--snapshot SNAP is required")
    if a.add_nodes < 0 or (a.add_nodes and not a.like) or (a.like and not a.add_nodes):
        fail("--add-nodes N and --like NODE go together (N >= 1)")
    labels: dict[str, str] = {}
    for item in a.label or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            fail(f"--label: {item!r} is not k=v")
        labels[key] = value
    what_if = WhatIf(
        drain=[name.strip() for name in (a.drain or "").split(",") if name.strip()],
        add_nodes=a.add_nodes,
        like=a.like,
        labels=labels,
        preempt=a.preempt,
    )
    chosen = resolve_format(a.format)
    color = chosen == "text" and a.output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    request = FeasibilityRequest(a.snapshot, list(a.paths or ["."]), chosen, a.namespace or "default", what_if, color)
    try:
        outcome = run(request)
    except UsageError as err:
        fail(str(err))
    for warning in dict.fromkeys(outcome.warnings):
        warn(warning)
    write_output(outcome.text, a.output)
    return outcome.status


RULES_FORMATS = ("text", "json", "markdown")


def rules_command(a: Namespace) -> int:
    """List every rule: code, name, default severity, whether it can be fixed."""
    from waslint.lint.docs import rules_json, rules_markdown, rules_text

    renderers = {"text": rules_text, "json": rules_json, "markdown": rules_markdown}
    if a.format not in renderers:
        fail(f"--format: {a.format!r} is not one of {', '.join(renderers)}")
    sys.stdout.write(renderers[a.format]())
    return 0


def explain(a: Namespace) -> int:
    """Show one rule's documentation, with a failing and a fixed example."""
    from waslint.lint.codes import RULES
    from waslint.lint.docs import explain_text
    from waslint.lint.registry import get_rule

    rule = get_rule(a.code)
    if rule is None:
        hint = _closest(a.code, [name for name, _ in RULES.values()])
        fail(f"unknown rule code or name {a.code!r}{hint} (see `waslint rules`)")
    sys.stdout.write(explain_text(rule))
    return 0


def _closest(text: str, names: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(text.strip().lower(), names, n=1)
    return f"; did you mean {close[0]}?" if close else ""


# -- live clusters (read only): snapshot capture and audit ------------------------------------------


CLUSTER_EXTRA = 'pip install "waslint[cluster]"'


def _cluster_client(command: str) -> None:
    """The cluster commands need the `cluster` extra (the kubernetes client); without it, the one line to run."""
    from waslint.sources.cluster import missing_client

    missing = missing_client()
    if missing:
        fail(f"`waslint {command}` needs the {missing}, which the base install leaves out: {CLUSTER_EXTRA}")


def connect_cluster(kubeconfig: str | None, context: str | None, request_timeout: str, command: str) -> Any:
    """A connection to the cluster, or the run ends with one line and status 2."""
    _cluster_client(command)
    from waslint.sources.cluster.connection import ClusterError, ConnectOptions, connect, parse_timeout

    try:
        seconds = parse_timeout(request_timeout)
    except ValueError as err:
        fail(str(err))
    try:
        connection = connect(ConnectOptions(kubeconfig, context, seconds))
    except ClusterError as err:
        fail(str(err))
    if connection.insecure:
        warn(f"TLS is not verified for context {connection.context} (kubeconfig)")
    return connection


def _live_schemas(kubeconfig: str | None, context: str | None) -> tuple[str, Any, dict[Any, Any]]:
    """`lint --cluster`: the cluster's version, release and WAS schemas from its own OpenAPI v3."""
    connection = connect_cluster(kubeconfig, context, "30s", "lint --cluster")
    from waslint.audit.openapi import live_schemas
    from waslint.audit.run import release_of
    from waslint.sources.cluster.connection import ClusterError
    from waslint.sources.cluster.discovery import discover

    try:
        discovery = discover(connection, ["scheduling.k8s.io"])
        schemas, problems = live_schemas(connection, discovery)
    except ClusterError as err:
        fail(str(err))
    for problem in problems:
        warn(problem)
    return discovery.server_version, release_of(discovery.server_version), schemas


def _use_live_schemas(options: LintOptions, version: str, release: Any, schemas: dict[Any, Any]) -> None:
    """WAS002 validates against the cluster's own schemas when the cluster runs the target release."""
    from waslint.lint.context import RuntimeInputs

    if release != options.target:
        warn(f"the cluster runs {version}, the target is {options.target}: the packaged schemas are used")
        return
    options.runtime = RuntimeInputs(options.runtime.thresholds, options.runtime.listed_kinds, schemas)


def snapshot_capture(a: Namespace) -> int:
    """Write a snapshot of a live cluster (Nodes, Pods' requests, PriorityClasses, ResourceSlices, KAI Queues,
    Kueue Topologies) for `feasibility`. GET only; never Secrets, ConfigMaps, env, command or volumes."""
    _cluster_client("snapshot capture")
    from waslint.sources.cluster.capture import CaptureOptions, OutputRefused, capture, check_output
    from waslint.sources.cluster.connection import ClusterError

    try:
        check_output(a.output)
    except OutputRefused as err:
        fail(str(err))
    connection = connect_cluster(a.kubeconfig, a.context, a.request_timeout, "snapshot capture")

    options = CaptureOptions(a.output, a.namespace, a.selector, a.node_selector, a.redact_names, a.page_size)
    progress = Progress()
    try:
        result = capture(connection, options, progress=progress)
    except (ClusterError, OutputRefused) as err:
        progress.done()
        fail(str(err))
    except OSError as err:
        progress.done()
        fail(f"cannot write {a.output}: {err.strerror or err}")
    progress.done()
    for warning in result.warnings:
        warn(warning)
    where = "stdout" if a.output == "-" else a.output
    say(f"waslint: captured {result.summary()} from context {connection.context} into {where}")
    return 0


class Progress:
    """One self-erasing status line on stderr while a long read runs, when stderr is a terminal;
    nothing otherwise (a pipe, a file, CI logs, `TERM=dumb`)."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty() and os.environ.get("TERM") != "dumb"

    def __call__(self, message: str) -> None:
        if self.enabled:
            sys.stderr.write(f"\r\x1b[Kwaslint: {printable(message)}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


AUDIT_FORMATS = ("markdown", "text", "concise", "json", "sarif", "junit", "github")


def audit(a: Namespace) -> int:
    """Read-only audit of a live cluster: served versions and the verdict for --target-version, stored WAS objects
    linted like files, feature gates from the components' metrics, runtime hygiene (WAS8xx)."""
    from waslint.io.config import find_config

    fmt = resolve_format(a.format)
    if fmt not in AUDIT_FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(AUDIT_FORMATS)}")
    settings, options, threshold = load_settings(
        a.config or find_config(), a.target_version, a.select, a.ignore, None, a.fail_on, a.no_inline_ignores
    )
    connection = connect_cluster(a.kubeconfig, a.context, a.request_timeout, "audit")
    from waslint.audit.markdown import render_markdown
    from waslint.audit.run import AuditSettings, run_audit
    from waslint.sources.cluster.connection import ClusterError

    progress = Progress()
    try:
        result = run_audit(connection, options, settings, AuditSettings(a.namespace, a.page_size, a.kubelets), progress)
    except ClusterError as err:
        progress.done()
        fail(str(err))
    progress.done()
    for warning in result.warnings:
        warn(warning)
    if fmt == "markdown":
        write_output(render_markdown(result), a.output)
    else:
        if fmt not in ("text", "json", "sarif"):  # the formats with no place for the verdict
            for item in result.verdict:
                say(f"waslint: before {result.target}: {item}")
        emit_report(result.lint, Display(fmt, a.output).checked(), options.target, audit=result)
    for message in result.lint.internal_errors:
        say(f"waslint: {message}")
    status = exit_status(result.lint, threshold)
    return 1 if status == 0 and result.verdict and threshold != "never" else status


# -- the command line: one parser per command, built only for the command that runs ---------------

REPORT_FORMATS = ("text", "concise", "json", "sarif", "junit", "github")
FAIL_ON = ("error", "warning", "info", "never")
LEVELS = ("error", "warning", "info")


def _release_choices() -> str:
    from waslint.knowledge.releases import supported

    return choices(supported())


def _paths(parser: Parser) -> None:
    parser.arguments.add_argument(
        "paths", nargs="*", metavar="PATH", help="Files or folders to read ('-' for stdin). Default: '.'."
    )


def _report_options(parser: Parser, formats: Sequence[str], what: str = "Report format") -> None:
    parser.value(
        "--format",
        metavar=choices(formats),
        help=f"{what} (default: {formats[0]}; github when GITHUB_ACTIONS=true).",
    )
    parser.value("-o", "--output", metavar="FILE", help="Write the report to FILE (default stdout).")


def _target_option(parser: Parser) -> None:
    from waslint.knowledge.releases import default_target

    parser.value(
        "--target-version",
        metavar=_release_choices(),
        help=f"Kubernetes release the manifests must work on (default {default_target()}).",
    )


def _selection_options(parser: Parser) -> None:
    parser.value(
        "--select",
        metavar="CODES",
        repeat=True,
        help="Comma list of rule codes or prefixes to run (WAS1,WAS201); repeatable.",
    )
    parser.value(
        "--ignore", metavar="CODES", repeat=True, help="Comma list of rule codes or prefixes to skip; repeatable."
    )
    parser.value(
        "--fail-on", metavar=choices(FAIL_ON), help="Lowest severity that makes the exit status 1 (default: error)."
    )
    parser.value(
        "--config",
        metavar="FILE",
        help="Config file for every path (default: the nearest .waslint.yaml above each path, else"
        " [tool.waslint] in pyproject.toml).",
    )


def _namespace_option(parser: Parser) -> None:
    parser.value("--namespace", metavar="NS", help="Namespace of objects that name none (default: default).")


def _strict_option(parser: Parser) -> None:
    parser.switch(
        "--no-inline-ignores", help="Strict mode: disregard waslint.io/ignore annotations and # waslint: comments."
    )


def _stdin_option(parser: Parser) -> None:
    parser.value(
        "--stdin-filename", metavar="NAME", help="The path stdin's findings carry and that per-path config matches."
    )


def _kubeconfig_options(parser: Parser) -> None:
    parser.value(
        "--kubeconfig", metavar="FILE", help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)."
    )
    parser.value("--context", metavar="NAME", help="Kubeconfig context (default: the current one).")


def _cluster_read_options(parser: Parser) -> None:
    _kubeconfig_options(parser)
    parser.value(
        "--request-timeout",
        metavar="DURATION",
        default="30s",
        show_default=True,
        help="Give up on one request (connect to last byte) after this long: 30s, 2m, 500ms. Replies are"
        " also refused past 64 MiB.",
    )


def _page_size_option(parser: Parser) -> None:
    parser.value(
        "--page-size",
        metavar="N",
        kind=whole_number(1, 10000),
        default=500,
        show_default=True,
        help="Items per list request, 1 to 10000 (a page must fit the 64 MiB reply limit).",
    )


def _lint_parser(prog: str) -> Parser:
    parser = Parser(prog, "%(prog)s [OPTIONS] [PATH ...]", lint.__doc__ or "")
    _paths(parser)
    _report_options(parser, REPORT_FORMATS)
    _target_option(parser)
    _selection_options(parser)
    _namespace_option(parser)
    parser.value("--snapshot", metavar="FILE", help="Cluster snapshot (kind: List) for rules that need cluster facts.")
    parser.value("--base", metavar="GIT_REF", help="Git revision to compare with for immutable-field changes (WAS604).")
    parser.value("--gates", metavar="FILE", help="Feature-gate inventory YAML: {component: {Gate: bool}}.")
    _strict_option(parser)
    _stdin_option(parser)
    parser.switch("--statistics", help="Print a count per rule code (name, severity, fixable) instead.")
    parser.switch("-q", "--quiet", help="Print only the findings: no summary, nothing when none is shown.")
    parser.value(
        "--show-level",
        metavar=choices(LEVELS),
        help="Show only findings at or above this severity (the exit status counts all).",
    )
    parser.switch("--show-fixes", help="List the fixable findings and what `waslint fix` would do.")
    parser.switch("--cluster", help="Check WAS objects against the live cluster's OpenAPI v3 schemas (GET only).")
    _kubeconfig_options(parser)
    parser.value("--baseline", metavar="FILE", help="Report only findings not recorded in this baseline file.")
    parser.value("--write-baseline", metavar="FILE", help="Record today's findings in FILE (JSON) and exit 0.")
    parser.value(
        "--changed-since",
        metavar="GIT_REF",
        help="Report only files changed since this git ref; read all PATHs for lookups.",
    )
    parser.value(
        "--lookup",
        metavar="DIR",
        repeat=True,
        help="Also read this folder for cross-object lookups; report only the PATHs.",
    )
    parser.value(
        "-j",
        "--jobs",
        metavar="N",
        kind=whole_number(),
        help="Worker processes (default: the cores; capped at 4 per core); output identical to one.",
    )
    parser.value(
        "--kustomize-cmd",
        metavar="CMD",
        help="Command that renders a kustomize build root, given its folder (default: `kustomize build`, else"
        " `kubectl kustomize`), e.g. 'kustomize build --enable-helm'.",
    )
    return parser.finish()


def _fix_parser(prog: str) -> Parser:
    from waslint.knowledge.releases import fix_target

    parser = Parser(prog, "%(prog)s [OPTIONS] [PATH ...]", fix.__doc__ or "")
    _paths(parser)
    parser.switch("--diff", help="Print a unified diff of the fixes, change nothing; exit 1 if anything changes.")
    parser.switch("--check", help="Change nothing; exit 1 if anything would change.")
    parser.switch("--unsafe-fixes", help="Also apply unsafe fixes (WAS105: adds PodGroup objects).")
    _report_options(parser, REPORT_FORMATS)
    parser.value(
        "--target-version",
        metavar=choices([fix_target()]),
        help=f"Only {fix_target()}, the release fix rewrites manifests for.",
    )
    _selection_options(parser)
    _namespace_option(parser)
    _strict_option(parser)
    _stdin_option(parser)
    return parser.finish()


def _feasibility_parser(prog: str) -> Parser:
    from waslint.feasibility.command import FORMATS

    parser = Parser(prog, "%(prog)s --snapshot SNAP [OPTIONS] [PATH ...]", feasibility.__doc__ or "")
    _paths(parser)
    parser.value(
        "--snapshot",
        metavar="SNAP",
        required=True,
        help="Cluster snapshot: kind: List (YAML/JSON, or a folder), KAI snapshot.zip.",
    )
    _report_options(parser, FORMATS)
    _namespace_option(parser)
    parser.switch("--preempt", help="Say whether evicting lower-priority groups makes a failing gang fit.")
    parser.value("--drain", metavar="NODES", help="What-if: these nodes (comma list) are drained.")
    parser.value(
        "--add-nodes", metavar="N", kind=whole_number(0), default=0, help="What-if: add N nodes like --like NODE."
    )
    parser.value("--like", metavar="NODE", help="The node --add-nodes copies.")
    parser.value("--label", metavar="K=V", repeat=True, help="Label of the added nodes (repeatable).")
    return parser.finish()


def _rules_parser(prog: str) -> Parser:
    parser = Parser(prog, "%(prog)s [OPTIONS]", rules_command.__doc__ or "")
    parser.value("--format", metavar=choices(RULES_FORMATS), default="text", show_default=True, help="Listing format.")
    return parser.finish()


def _explain_parser(prog: str) -> Parser:
    parser = Parser(prog, "%(prog)s CODE", explain.__doc__ or "")
    parser.arguments.add_argument(
        "code", metavar="CODE", help="A rule code or name, e.g. WAS103 or legacy-disruption-mode."
    )
    return parser.finish()


def _capture_parser(prog: str) -> Parser:
    parser = Parser(prog, "%(prog)s -o FILE [OPTIONS]", snapshot_capture.__doc__ or "")
    parser.value(
        "-o", "--output", metavar="FILE", required=True, help="Snapshot file to write (.json, .yaml; '-': stdout)."
    )
    _cluster_read_options(parser)
    parser.value("-n", "--namespace", metavar="NS", help="Capture the Pods of one namespace.")
    parser.value("-l", "--selector", metavar="SELECTOR", help="Label selector for the Pods.")
    parser.value("--node-selector", metavar="SELECTOR", help="Label selector for the Nodes.")
    parser.switch("--redact-names", help="Replace namespace and Pod names by salted hashes (for sharing).")
    _page_size_option(parser)
    return parser.finish()


def _audit_parser(prog: str) -> Parser:
    parser = Parser(prog, "%(prog)s [OPTIONS]", audit.__doc__ or "")
    parser.value(
        "--format",
        metavar=choices(AUDIT_FORMATS),
        help="Report format: markdown is the audit document (default: text; github when GITHUB_ACTIONS=true).",
    )
    parser.value("-o", "--output", metavar="FILE", help="Write the report to FILE (default stdout).")
    _target_option(parser)
    _selection_options(parser)
    _cluster_read_options(parser)
    parser.value("-n", "--namespace", metavar="NS", help="Audit one namespace (default: all of them).")
    _page_size_option(parser)
    parser.value(
        "--kubelets",
        metavar="N",
        kind=whole_number(0),
        default=20,
        show_default=True,
        help="Read the feature gates of at most this many kubelets.",
    )
    _strict_option(parser)
    return parser.finish()


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, its parser (built only when the command runs) and its runner."""

    name: str
    parser: Callable[[str], Parser]
    run: Callable[[Namespace], int]

    @property
    def summary(self) -> str:
        return " ".join((self.run.__doc__ or "").split())


COMMANDS = {
    command.name: command
    for command in (
        Command("lint", _lint_parser, lint),
        Command("fix", _fix_parser, fix),
        Command("feasibility", _feasibility_parser, feasibility),
        Command("rules", _rules_parser, rules_command),
        Command("explain", _explain_parser, explain),
        Command("audit", _audit_parser, audit),
    )
}
SNAPSHOT_COMMANDS = {"capture": Command("capture", _capture_parser, snapshot_capture)}
SUMMARY = "Lint, fix and check Kubernetes Workload-Aware Scheduling manifests."
SNAPSHOT_SUMMARY = "Cluster snapshots for `feasibility` and `lint --snapshot`."


def command_parser(words: Sequence[str], prog: str = "waslint") -> Parser:
    """The parser of `waslint lint`, `waslint snapshot capture`, ...: what the tests read options from."""
    if words[0] == "snapshot":
        return SNAPSHOT_COMMANDS[words[1]].parser(f"{prog} snapshot {words[1]}")
    return COMMANDS[words[0]].parser(f"{prog} {words[0]}")


def group_help(prog: str, summary: str, commands: dict[str, Command], extra: dict[str, str]) -> str:
    """`waslint --help`: every command with its whole summary, wrapped (never cut)."""
    from waslint.core.argparsing import help_width

    entries = {name: command.summary for name, command in commands.items()} | extra
    column = max(len("-h, --help"), *(len(name) for name in entries)) + 4
    width = max(20, help_width() - column)
    options = {
        "--version": "Show the version and exit.",
        DEBUG_FLAG: "On an internal error, print the traceback too (anywhere on the line, or WASLINT_DEBUG=1).",
        "-h, --help": "Show this message and exit.",
    }
    lines = [f"Usage: {prog} [OPTIONS] COMMAND [ARGS]...", "", f"  {summary}", "", "Options:"]
    lines += _two_columns(options, column, width)
    lines += ["", "Commands:", *_two_columns(entries, column, width)]
    return "\n".join(lines) + "\n"


def _two_columns(entries: dict[str, str], column: int, width: int) -> list[str]:
    import textwrap

    lines = []
    for name, text in entries.items():
        wrapped = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
        lines.append(f"  {name}".ljust(column) + wrapped[0])
        lines += [" " * column + more for more in wrapped[1:]]
    return lines


def run(args: Sequence[str], prog: str = "waslint") -> int:
    """The exit status of one command line (`args` without the program name); what it prints goes
    to sys.stdout and sys.stderr (the tests run it in-process)."""
    arguments = take_debug_flag(list(args))  # `--debug` anywhere: the traceback of an internal error
    try:
        return _dispatch(arguments, prog)
    except UsageError as error:
        say(f"waslint: error: {error} (see `{error.prog} --help`)")
        return RUN_FAILED
    except SystemExit as stop:  # fail() (its line is on stderr already), --help, SIGTERM (143)
        return stop.code if isinstance(stop.code, int) else RUN_FAILED
    except RunFailure as error:
        sys.stderr.write(run_failure_line(error) + "\n")
        return RUN_FAILED
    except BrokenPipeError:
        raise  # main: the reader went away, nothing more to say
    except Exception as error:  # a bug: status 2 and one line, never 1 (core/failure.py)
        sys.stderr.write(internal_error_line(error, _command_name(arguments)) + "\n")
        return RUN_FAILED


def _command_name(arguments: list[str]) -> str:
    words = [word for word in arguments if not word.startswith("-")][:2]
    if words[:1] == ["snapshot"]:
        return " ".join(words)
    return words[0] if words else ""


def _dispatch(words: list[str], prog: str) -> int:
    if not words or words[0] in ("-h", "--help"):
        sys.stdout.write(group_help(prog, SUMMARY, COMMANDS, {"snapshot": SNAPSHOT_SUMMARY}))
        return 0 if words else RUN_FAILED
    if words[0] == "--version":
        sys.stdout.write(f"waslint {__version__}\n")
        return 0
    if words[0] == "snapshot":
        return _dispatch_snapshot(words[1:], f"{prog} snapshot")
    command = COMMANDS.get(words[0])
    if command is None:
        raise UsageError(_unknown("command", words[0], [*COMMANDS, "snapshot"]), prog)
    if command.run is not lint:
        gc.enable()
    return command.run(command.parser(f"{prog} {command.name}").parse(words[1:]))


def _dispatch_snapshot(words: list[str], prog: str) -> int:
    if not words or words[0] in ("-h", "--help"):
        sys.stdout.write(group_help(prog, SNAPSHOT_SUMMARY, SNAPSHOT_COMMANDS, {}))
        return 0 if words else RUN_FAILED
    command = SNAPSHOT_COMMANDS.get(words[0])
    if command is None:
        raise UsageError(_unknown("command", words[0], list(SNAPSHOT_COMMANDS)), prog)
    gc.enable()
    return command.run(command.parser(f"{prog} {command.name}").parse(words[1:]))


def _unknown(what: str, word: str, known: list[str]) -> str:
    if word.startswith("-"):
        return f"no such option: {word}"
    return f"no such {what} {word!r}{_closest(word, known)}"


def main() -> None:
    # Start-up allocates what lives until the exit (modules, classes, tables): collecting it is
    # wasted time on every pre-commit run. `lint` turns the collector on once loaded (lint/engine.py),
    # every other command as it starts.
    gc.disable()
    install_termination_handler()
    try:
        status = run(sys.argv[1:], program_name(sys.argv[0]))
        sys.stdout.flush()
    except KeyboardInterrupt:
        sys.stderr.write("waslint: interrupted\n")
        status = 130
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say, nothing to flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)
