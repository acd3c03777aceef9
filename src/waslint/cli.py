"""The `waslint` command line (Typer). Heavy modules are imported inside the commands that use them."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from waslint import __version__
from waslint.knowledge.releases import default_target, fix_target, parse_release, supported_text

if TYPE_CHECKING:
    from waslint.io.config import Config
    from waslint.knowledge.releases import Release
    from waslint.lint.engine import LintResult
    from waslint.lint.options import LintOptions

app = typer.Typer(
    name="waslint",
    help="Lint, fix and check Kubernetes Workload-Aware Scheduling manifests.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

FormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        help="Report format: text, concise, json, sarif, junit or github"
        " (default: text; github when GITHUB_ACTIONS=true).",
    ),
]
OutputOption = Annotated[str | None, typer.Option("--output", "-o", help="Write the report to FILE (default stdout).")]
TargetOption = Annotated[
    str | None,
    typer.Option(
        "--target-version",
        help=f"Kubernetes release the manifests must work on: {supported_text()} (default {default_target()}).",
    ),
]
SelectOption = Annotated[
    list[str] | None,
    typer.Option("--select", help="Comma list of rule codes or prefixes to run (WAS1,WAS201); repeatable."),
]
IgnoreOption = Annotated[
    list[str] | None, typer.Option("--ignore", help="Comma list of rule codes or prefixes to skip; repeatable.")
]
StdinFilenameOption = Annotated[
    str | None,
    typer.Option("--stdin-filename", help="The path stdin's findings carry and that per-path config matches."),
]
FailOnOption = Annotated[
    str | None,
    typer.Option("--fail-on", help="Lowest severity that makes the exit status 1: error, warning, info, never."),
]
ConfigOption = Annotated[
    str | None,
    typer.Option(
        "--config",
        help="Config file for every path (default: the nearest .waslint.yaml above each path, else"
        " [tool.waslint] in pyproject.toml).",
    ),
]
NamespaceOption = Annotated[
    str | None, typer.Option("--namespace", help="Namespace of objects that name none (default: default).")
]
NoInlineOption = Annotated[
    bool,
    typer.Option(
        "--no-inline-ignores", help="Strict mode: disregard waslint.io/ignore annotations and # waslint: comments."
    ),
]
StatisticsOption = Annotated[
    bool, typer.Option("--statistics", help="Print a count per rule code (name, severity, fixable) instead.")
]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print only the findings: no summary, nothing when none is shown.")
]
ShowLevelOption = Annotated[
    str | None,
    typer.Option(
        "--show-level", help="Show only findings at or above: error, warning, info (the exit status counts all)."
    ),
]
ShowFixesOption = Annotated[
    bool, typer.Option("--show-fixes", help="List the fixable findings and what `waslint fix` would do.")
]
PathsArgument = Annotated[
    list[str] | None, typer.Argument(help="Files or folders to read ('-' for stdin). Default: '.'.")
]


def fail(message: str) -> NoReturn:
    """A failure of the run itself (usage, config, unreadable path): exit status 2."""
    typer.echo(f"waslint: error: {message}", err=True)
    raise typer.Exit(2)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"waslint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """waslint: lint, fix and check feasibility of Kubernetes Workload-Aware Scheduling manifests."""


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
    from waslint.lint.options import LintOptions
    from waslint.lint.registry import all_rules

    known = [rule.code for rule in all_rules()]
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
    from waslint.lint.registry import all_rules

    if not config.ignore:
        return
    for selector in selected:
        chosen = [rule.code for rule in all_rules() if matches(rule.code, [selector])]
        removed = [code for code in chosen if matches(code, config.ignore)]
        if removed:
            what = "all of it" if len(removed) == len(chosen) else ", ".join(removed)
            typer.echo(
                f"waslint: warning: --select {selector}: `ignore` in {config.source} removes {what}"
                f" (ignore: {', '.join(config.ignore)}); those rules do not run",
                err=True,
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


def emit_report(result: LintResult, display: Display, target: Release) -> None:
    import shutil

    from waslint.core.model import Severity
    from waslint.lint.registry import all_rules
    from waslint.report import ReportInput, render, source_root

    fmt = display.fmt or "text"
    findings = result.findings
    if display.show_level is not None:
        lowest = Severity.parse(display.show_level)
        findings = [finding for finding in findings if finding.severity >= lowest]
    color = fmt == "text" and display.output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    report = ReportInput(
        findings=findings,
        files=len(result.files),
        documents=result.documents,
        target_version=str(target),
        sources={source.path: source.text for source in result.files},
        color=color,
        rules=[rule.info for rule in all_rules()],
        quiet=display.quiet,
        show_fixes=display.show_fixes,
        hidden=len(result.findings) - len(findings),
        show_level=display.show_level,
        width=shutil.get_terminal_size((100, 24)).columns,
        root=source_root() if fmt in ("sarif", "github") else None,
        skipped=result.skipped,
        notes=result.notes,
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
            typer.echo(f"waslint: warning: {problem}", err=True)
    if fmt not in ("text", "json"):
        for entry in result.skipped:
            typer.echo(f"waslint: skipped {entry}", err=True)
    for note in result.notes:
        typer.echo(f"waslint: note: {note}", err=True)


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


@app.command()
def lint(
    paths: PathsArgument = None,
    fmt: FormatOption = None,
    output: OutputOption = None,
    target_version: TargetOption = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    fail_on: FailOnOption = None,
    config: ConfigOption = None,
    namespace: NamespaceOption = None,
    snapshot: Annotated[
        str | None, typer.Option("--snapshot", help="Cluster snapshot (kind: List) for rules that need cluster facts.")
    ] = None,
    base: Annotated[
        str | None, typer.Option("--base", help="Git revision to compare with for immutable-field changes (WAS604).")
    ] = None,
    gates: Annotated[
        str | None, typer.Option("--gates", help="Feature-gate inventory YAML: {component: {Gate: bool}}.")
    ] = None,
    no_inline_ignores: NoInlineOption = False,
    stdin_filename: StdinFilenameOption = None,
    statistics: StatisticsOption = False,
    quiet: QuietOption = False,
    show_level: ShowLevelOption = None,
    show_fixes: ShowFixesOption = False,
    cluster: Annotated[
        bool,
        typer.Option("--cluster", help="Check WAS objects against the live cluster's OpenAPI v3 schemas (GET only)."),
    ] = False,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    baseline: BaselineOption = None,
    write_baseline: WriteBaselineOption = None,
    changed_since: ChangedSinceOption = None,
    lookup: LookupOption = None,
    jobs: JobsOption = None,
    kustomize_cmd: Annotated[
        str | None,
        typer.Option(
            "--kustomize-cmd",
            help="Command that renders a kustomize build root, given its folder (default: `kustomize build`,"
            " else `kubectl kustomize`), e.g. 'kustomize build --enable-helm'.",
        ),
    ] = None,
) -> None:
    """Lint manifests: files, folders (recursively *.yaml, *.yml, *.json, kustomizations) or '-' for stdin."""
    from waslint.lint.engine import RunError, lint_paths

    display = Display(fmt, output, statistics, quiet, show_level, show_fixes).checked()
    live = _live_schemas(kubeconfig, context) if cluster else None
    runs: list[tuple[LintResult, str]] = []
    for config_file, group in config_groups(paths or ["."], config, stdin_filename):
        settings, options, threshold = load_settings(
            config_file, target_version, select, ignore, namespace, fail_on, no_inline_ignores
        )
        _set_cluster_inputs(options, snapshot, base, gates)
        options.stdin_filename = stdin_filename
        if live is not None:
            _use_live_schemas(options, *live)
        options.jobs = _jobs(jobs)
        if kustomize_cmd is not None:
            options.kustomize_cmd = kustomize_cmd
        try:
            result, path_errors = lint_paths(
                group, options, settings, context=lookup or (), changed_since=changed_since
            )
        except RunError as err:
            fail(str(err))
        if path_errors:
            fail("; ".join(path_errors))
        runs.append((result, threshold))
    result = merge_results([run[0] for run in runs])
    for warning in dict.fromkeys(w for run, _ in runs for w in _snapshot_warnings(run)):
        typer.echo(f"waslint: warning: {warning}", err=True)
    if write_baseline is not None:
        _write_baseline(result, write_baseline)
        raise typer.Exit(0)
    if baseline is not None:
        _apply_baseline(result, [run[0] for run in runs], baseline)
    emit_report(result, display, options.target)
    for message in result.internal_errors:
        typer.echo(f"waslint: {message}", err=True)
    raise typer.Exit(max(exit_status(run_result, threshold) for run_result, threshold in runs))


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
    return merged


# --------------------------------------------------------------------------- large repositories

BaselineOption = Annotated[
    str | None, typer.Option("--baseline", help="Report only findings not recorded in this baseline file.")
]
WriteBaselineOption = Annotated[
    str | None, typer.Option("--write-baseline", help="Record today's findings in FILE (JSON) and exit 0.")
]
ChangedSinceOption = Annotated[
    str | None,
    typer.Option("--changed-since", help="Report only files changed since this git ref; read all PATHs for lookups."),
]
LookupOption = Annotated[
    list[str] | None,
    typer.Option("--lookup", help="Also read this folder for cross-object lookups; report only the PATHs."),
]

JobsOption = Annotated[
    int | None, typer.Option("--jobs", "-j", help="Worker processes (default: the cores); output identical to one.")
]


def _jobs(jobs: int | None) -> int:
    from waslint.core.parallel import default_jobs

    if jobs is None:
        return default_jobs()
    if jobs < 1:
        fail(f"--jobs: {jobs} is not a positive number of worker processes")
    return jobs


def _write_baseline(result: LintResult, path: str) -> None:
    from waslint.lint.baseline import baseline_json

    write_output(baseline_json(result.findings), path)
    typer.echo(f"waslint: wrote a baseline of {len(result.findings)} findings to {path}", err=True)


def _apply_baseline(result: LintResult, runs: list[LintResult], path: str) -> None:
    """Keep the findings the baseline does not cover, in the report and in each run's exit status."""
    from waslint.lint.baseline import BaselineError, load_baseline, new_findings

    try:
        result.findings = new_findings(result.findings, load_baseline(path))
    except BaselineError as err:
        fail(str(err))
    kept = {id(finding) for finding in result.findings}
    for run in runs:
        run.findings = [finding for finding in run.findings if id(finding) in kept]


def _set_cluster_inputs(options: LintOptions, snapshot: str | None, base: str | None, gates: str | None) -> None:
    """The inputs of the rules that read cluster facts, git history or a gate inventory."""
    for flag, value in (("--snapshot", snapshot), ("--gates", gates)):
        if value is not None and not os.path.exists(value):
            fail(f"{flag}: {value}: no such file or directory")
    options.snapshot_path = snapshot
    options.base_ref = base
    options.gates_path = gates


@app.command()
def fix(
    paths: PathsArgument = None,
    diff: Annotated[
        bool,
        typer.Option("--diff", help="Print a unified diff of the fixes, change nothing; exit 1 if anything changes."),
    ] = False,
    check: Annotated[bool, typer.Option("--check", help="Change nothing; exit 1 if anything would change.")] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="Also apply unsafe fixes (WAS105: adds PodGroup objects).")
    ] = False,
    fmt: FormatOption = None,
    output: OutputOption = None,
    target_version: Annotated[
        str | None,
        typer.Option("--target-version", help=f"Only {fix_target()}, the release fix rewrites manifests for."),
    ] = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    fail_on: FailOnOption = None,
    config: ConfigOption = None,
    namespace: NamespaceOption = None,
    no_inline_ignores: NoInlineOption = False,
    stdin_filename: StdinFilenameOption = None,
) -> None:
    """Rewrite older WAS manifests for the fix target release in place, changing nothing else ('-': stdin to
    stdout)."""
    from waslint.fix.command import FixRequest, UsageError, run
    from waslint.fix.run import FixOptions

    if target_version is not None and parse_release(target_version) != fix_target():
        fail(
            f"--target-version: `waslint fix` rewrites manifests for Kubernetes {fix_target()}, not {target_version!r}"
        )
    mode = "diff" if diff else "check" if check else "fix"
    groups = config_groups(list(paths or ["."]), config, stdin_filename)
    if len(groups) > 1 and output is not None:
        fail(f"-o: the paths fall under {len(groups)} config files; run fix once per config folder")
    status = 0
    for config_file, group in groups:
        settings, options, threshold = load_settings(
            config_file, None, select, ignore, namespace, fail_on, no_inline_ignores
        )
        options.stdin_filename = stdin_filename
        request = FixRequest(
            paths=group,
            options=FixOptions(lint=options, config=settings, unsafe=unsafe_fixes),
            mode=mode,
            fmt=resolve_format(fmt),
            output=output,
            threshold=threshold,
        )
        try:
            status = max(status, run(request))
        except UsageError as err:
            fail(str(err))
    raise typer.Exit(status)


@app.command()
def feasibility(
    paths: PathsArgument = None,
    snapshot: Annotated[
        str, typer.Option("--snapshot", help="Cluster snapshot: kind: List (YAML/JSON, or a folder), KAI snapshot.zip.")
    ] = "",
    fmt: FormatOption = None,
    output: OutputOption = None,
    namespace: NamespaceOption = None,
    preempt: Annotated[
        bool, typer.Option("--preempt", help="Say whether evicting lower-priority groups makes a failing gang fit.")
    ] = False,
    drain: Annotated[str | None, typer.Option("--drain", help="What-if: these nodes (comma list) are drained.")] = None,
    add_nodes: Annotated[int, typer.Option("--add-nodes", help="What-if: add N nodes like --like NODE.")] = 0,
    like: Annotated[str | None, typer.Option("--like", help="The node --add-nodes copies.")] = None,
    label: Annotated[
        list[str] | None, typer.Option("--label", help="k=v label of the added nodes (repeatable).")
    ] = None,
) -> None:
    """Can each gang in PATH be placed all-or-nothing on the snapshot's cluster? Where, or why not."""
    from waslint.feasibility.analysis import WhatIf
    from waslint.feasibility.command import FeasibilityRequest, UsageError, run

    if not snapshot:
        fail("--snapshot SNAP is required")
    if add_nodes < 0 or (add_nodes and not like) or (like and not add_nodes):
        fail("--add-nodes N and --like NODE go together (N >= 1)")
    labels: dict[str, str] = {}
    for item in label or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            fail(f"--label: {item!r} is not k=v")
        labels[key] = value
    what_if = WhatIf(
        drain=[name.strip() for name in (drain or "").split(",") if name.strip()],
        add_nodes=add_nodes,
        like=like,
        labels=labels,
        preempt=preempt,
    )
    chosen = resolve_format(fmt)
    color = chosen == "text" and output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    request = FeasibilityRequest(snapshot, list(paths or ["."]), chosen, namespace or "default", what_if, color)
    try:
        outcome = run(request)
    except UsageError as err:
        fail(str(err))
    write_output(outcome.text, output)
    raise typer.Exit(outcome.status)


@app.command("rules")
def rules_command(
    fmt: Annotated[str, typer.Option("--format", help="text, json or markdown.")] = "text",
) -> None:
    """List every rule: code, name, default severity, whether it can be fixed."""
    from waslint.lint.docs import rules_json, rules_markdown, rules_text

    renderers = {"text": rules_text, "json": rules_json, "markdown": rules_markdown}
    if fmt not in renderers:
        fail(f"--format: {fmt!r} is not one of {', '.join(renderers)}")
    sys.stdout.write(renderers[fmt]())


@app.command()
def explain(
    code: Annotated[str, typer.Argument(help="A rule code or name, e.g. WAS103 or legacy-disruption-mode.")],
) -> None:
    """Show one rule's documentation, with a failing and a fixed example."""
    from waslint.lint.docs import explain_text
    from waslint.lint.registry import all_rules, get_rule

    rule = get_rule(code)
    if rule is None:
        hint = _closest(code, [known.name for known in all_rules()])
        fail(f"unknown rule code or name {code!r}{hint} (see `waslint rules`)")
    sys.stdout.write(explain_text(rule))


def _closest(text: str, names: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(text.strip().lower(), names, n=1)
    return f"; did you mean {close[0]}?" if close else ""


# -- live clusters (read only): snapshot capture and audit ------------------------------------------

snapshot_app = typer.Typer(
    help="Cluster snapshots for `feasibility` and `lint --snapshot`.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(snapshot_app, name="snapshot")

KubeconfigOption = Annotated[
    str | None, typer.Option("--kubeconfig", help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster).")
]
ContextOption = Annotated[str | None, typer.Option("--context", help="Kubeconfig context (default: the current one).")]
TimeoutOption = Annotated[
    str, typer.Option("--request-timeout", help="Give up on one request after this long: 30s, 2m, 500ms.")
]
PageSizeOption = Annotated[int, typer.Option("--page-size", min=1, max=10000, help="Items per list request.")]


def connect_cluster(kubeconfig: str | None, context: str | None, request_timeout: str) -> Any:
    """A connection to the cluster, or the run ends with one line and status 2."""
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
        typer.echo(f"waslint: warning: TLS is not verified for context {connection.context} (kubeconfig)", err=True)
    return connection


def _live_schemas(kubeconfig: str | None, context: str | None) -> tuple[str, Any, dict[Any, Any]]:
    """`lint --cluster`: the cluster's version, release and WAS schemas from its own OpenAPI v3."""
    from waslint.audit.openapi import live_schemas
    from waslint.audit.run import release_of
    from waslint.sources.cluster.connection import ClusterError
    from waslint.sources.cluster.discovery import discover

    connection = connect_cluster(kubeconfig, context, "30s")
    try:
        discovery = discover(connection, ["scheduling.k8s.io"])
        schemas, problems = live_schemas(connection, discovery)
    except ClusterError as err:
        fail(str(err))
    for problem in problems:
        typer.echo(f"waslint: warning: {problem}", err=True)
    return discovery.server_version, release_of(discovery.server_version), schemas


def _use_live_schemas(options: LintOptions, version: str, release: Any, schemas: dict[Any, Any]) -> None:
    """WAS002 validates against the cluster's own schemas when the cluster runs the target release."""
    from waslint.lint.context import RuntimeInputs

    if release != options.target:
        typer.echo(
            f"waslint: warning: the cluster runs {version}, the target is {options.target}:"
            " the packaged schemas are used",
            err=True,
        )
        return
    options.runtime = RuntimeInputs(options.runtime.thresholds, options.runtime.listed_kinds, schemas)


@snapshot_app.command("capture")
def snapshot_capture(
    output: Annotated[str, typer.Option("--output", "-o", help="Snapshot file to write (.json, .yaml; '-': stdout).")],
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: TimeoutOption = "30s",
    namespace: Annotated[
        str | None, typer.Option("--namespace", "-n", help="Capture the Pods of one namespace.")
    ] = None,
    selector: Annotated[str | None, typer.Option("--selector", "-l", help="Label selector for the Pods.")] = None,
    node_selector: Annotated[str | None, typer.Option("--node-selector", help="Label selector for the Nodes.")] = None,
    redact_names: Annotated[
        bool, typer.Option("--redact-names", help="Replace namespace and Pod names by salted hashes (for sharing).")
    ] = False,
    page_size: PageSizeOption = 500,
) -> None:
    """Write a snapshot of a live cluster (Nodes, Pods' requests, PriorityClasses, ResourceSlices, KAI Queues,
    Kueue Topologies) for `feasibility`. GET only; never Secrets, ConfigMaps, env, command or volumes."""
    from waslint.sources.cluster.capture import CaptureOptions, capture
    from waslint.sources.cluster.connection import ClusterError

    connection = connect_cluster(kubeconfig, context, request_timeout)
    options = CaptureOptions(output, namespace, selector, node_selector, redact_names, page_size)
    try:
        result = capture(connection, options)
    except ClusterError as err:
        fail(str(err))
    except OSError as err:
        fail(f"cannot write {output}: {err.strerror or err}")
    for warning in result.warnings:
        typer.echo(f"waslint: warning: {warning}", err=True)
    where = "stdout" if output == "-" else output
    typer.echo(f"waslint: captured {result.summary()} from context {connection.context} into {where}", err=True)


class _Progress:
    """One self-erasing status line on a terminal's stderr; nothing otherwise."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"

    def __call__(self, message: str) -> None:
        if self.enabled:
            sys.stderr.write(f"\r\x1b[Kwaslint: {message}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


@app.command()
def audit(
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format", help="Report format: markdown (the audit document), text, json, sarif, junit, github."
        ),
    ] = None,
    output: OutputOption = None,
    target_version: TargetOption = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    fail_on: FailOnOption = None,
    config: ConfigOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    request_timeout: TimeoutOption = "30s",
    namespace: Annotated[
        str | None, typer.Option("--namespace", "-n", help="Audit one namespace (default: all of them).")
    ] = None,
    page_size: PageSizeOption = 500,
    kubelets: Annotated[
        int, typer.Option("--kubelets", min=0, help="Read the feature gates of at most this many kubelets.")
    ] = 20,
    no_inline_ignores: NoInlineOption = False,
) -> None:
    """Read-only audit of a live cluster: served versions and the verdict for --target-version, stored WAS objects
    linted like files, feature gates from the components' metrics, runtime hygiene (WAS8xx)."""
    from waslint.audit.markdown import render_markdown
    from waslint.audit.run import AuditSettings, run_audit
    from waslint.io.config import find_config
    from waslint.report import FORMATS
    from waslint.sources.cluster.connection import ClusterError

    fmt = resolve_format(fmt)
    if fmt != "markdown" and fmt not in FORMATS:
        fail(f"--format: {fmt!r} is not one of markdown, {', '.join(FORMATS)}")
    settings, options, threshold = load_settings(
        config or find_config(), target_version, select, ignore, None, fail_on, no_inline_ignores
    )
    connection = connect_cluster(kubeconfig, context, request_timeout)
    progress = _Progress()
    try:
        result = run_audit(connection, options, settings, AuditSettings(namespace, page_size, kubelets), progress)
    except ClusterError as err:
        progress.done()
        fail(str(err))
    progress.done()
    for warning in result.warnings:
        typer.echo(f"waslint: warning: {warning}", err=True)
    if fmt == "markdown":
        write_output(render_markdown(result), output)
    else:
        for item in result.verdict:
            typer.echo(f"waslint: before {result.target}: {item}", err=True)
        emit_report(result.lint, Display(fmt, output).checked(), options.target)
    for message in result.lint.internal_errors:
        typer.echo(f"waslint: {message}", err=True)
    status = exit_status(result.lint, threshold)
    raise typer.Exit(1 if status == 0 and result.verdict and threshold != "never" else status)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("waslint: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
