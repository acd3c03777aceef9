"""The `waslint` command line (Typer). Heavy modules are imported inside the commands that use them."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from waslint import __version__
from waslint.knowledge.releases import default_target, fix_target, parse_release, supported_text

if TYPE_CHECKING:
    from waslint.io.config import Config
    from waslint.knowledge.releases import Release
    from waslint.lint.engine import LintOptions, LintResult

app = typer.Typer(
    name="waslint",
    help="Lint, fix and check Kubernetes Workload-Aware Scheduling manifests.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

FormatOption = Annotated[str, typer.Option("--format", help="Report format: text, json, sarif, junit or github.")]
OutputOption = Annotated[str | None, typer.Option("--output", "-o", help="Write the report to FILE (default stdout).")]
TargetOption = Annotated[
    str | None,
    typer.Option(
        "--target-version",
        help=f"Kubernetes release the manifests must work on: {supported_text()} (default {default_target()}).",
    ),
]
SelectOption = Annotated[
    str | None, typer.Option("--select", help="Comma list of rule codes or prefixes to run (WAS1,WAS201).")
]
IgnoreOption = Annotated[str | None, typer.Option("--ignore", help="Comma list of rule codes or prefixes to skip.")]
FailOnOption = Annotated[
    str | None,
    typer.Option("--fail-on", help="Lowest severity that makes the exit status 1: error, warning, info, never."),
]
ConfigOption = Annotated[
    str | None,
    typer.Option(
        "--config", help="Config file (default: nearest .waslint.yaml, else [tool.waslint] in pyproject.toml)."
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
    select: str | None,
    ignore: str | None,
    namespace: str | None,
    fail_on: str | None,
    no_inline_ignores: bool,
) -> tuple[Config, LintOptions, str]:
    """Config file, then command-line flags on top. Invalid values end the run with status 2."""
    from waslint.io.config import (
        ConfigError,
        check_codes,
        check_fail_on,
        check_target_version,
        find_config,
        load_config,
    )
    from waslint.lint.engine import LintOptions
    from waslint.lint.registry import all_rules

    known = [rule.code for rule in all_rules()]
    try:
        config = load_config(config_path if config_path else find_config(), known)
        options = LintOptions.from_config(config)
        if target is not None:
            options.target = check_target_version(target)
        if select is not None:
            options.select = _code_list(select, "--select", known, check_codes)
        if ignore is not None:
            options.ignore += _code_list(ignore, "--ignore", known, check_codes)
        if namespace:
            options.namespace = namespace
        if no_inline_ignores:
            options.inline_ignores = False
        threshold = check_fail_on(fail_on) if fail_on is not None else (config.fail_on or "error")
    except ConfigError as err:
        fail(str(err))
    return config, options, threshold


def _code_list(text: str, flag: str, known: list[str], check: Callable[[list[str], str, list[str]], None]) -> list[str]:
    codes = [part.strip().upper() for part in text.split(",") if part.strip()]
    check(codes, flag, known)
    return codes


def exit_status(result: LintResult, threshold: str) -> int:
    from waslint.core.model import Severity

    if result.internal_errors:
        return 2
    if threshold == "never":
        return 0
    lowest = Severity.parse(threshold)
    return 1 if any(finding.severity >= lowest for finding in result.findings) else 0


def emit_report(result: LintResult, fmt: str, output: str | None, target: Release) -> None:
    from waslint.lint.registry import all_rules
    from waslint.report import FORMATS, ReportInput, render

    if fmt not in FORMATS:
        fail(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    color = fmt == "text" and output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    report = ReportInput(
        findings=result.findings,
        files=len(result.files),
        documents=result.documents,
        target_version=str(target),
        sources={source.path: source.text for source in result.files},
        color=color,
        rules=[rule.info for rule in all_rules()],
    )
    write_output(render(fmt, report), output)


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
    fmt: FormatOption = "text",
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
) -> None:
    """Lint manifests: files, folders (recursively *.yaml, *.yml, *.json) or '-' for stdin."""
    from waslint.lint.engine import RunError, lint_paths

    settings, options, threshold = load_settings(
        config, target_version, select, ignore, namespace, fail_on, no_inline_ignores
    )
    _set_cluster_inputs(options, snapshot, base, gates)
    try:
        result, path_errors = lint_paths(paths or ["."], options, settings)
    except RunError as err:
        fail(str(err))
    if path_errors:
        fail("; ".join(path_errors))
    emit_report(result, fmt, output, options.target)
    for message in result.internal_errors:
        typer.echo(f"waslint: {message}", err=True)
    raise typer.Exit(exit_status(result, threshold))


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
    fmt: FormatOption = "text",
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
) -> None:
    """Rewrite older WAS manifests for the fix target release in place, changing nothing else ('-': stdin to
    stdout)."""
    from waslint.fix.command import FixRequest, UsageError, run
    from waslint.fix.run import FixOptions

    if target_version is not None and parse_release(target_version) != fix_target():
        fail(
            f"--target-version: `waslint fix` rewrites manifests for Kubernetes {fix_target()}, not {target_version!r}"
        )
    settings, options, threshold = load_settings(config, None, select, ignore, namespace, fail_on, no_inline_ignores)
    mode = "diff" if diff else "check" if check else "fix"
    request = FixRequest(
        paths=list(paths or ["."]),
        options=FixOptions(lint=options, config=settings, unsafe=unsafe_fixes),
        mode=mode,
        fmt=fmt,
        output=output,
        threshold=threshold,
    )
    try:
        status = run(request)
    except UsageError as err:
        fail(str(err))
    raise typer.Exit(status)


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
def explain(code: Annotated[str, typer.Argument(help="A rule code, e.g. WAS103.")]) -> None:
    """Show one rule's documentation, with a failing and a fixed example."""
    from waslint.lint.docs import explain_text
    from waslint.lint.registry import get_rule

    rule = get_rule(code)
    if rule is None:
        fail(f"unknown rule code {code!r} (see `waslint rules`)")
    sys.stdout.write(explain_text(rule))


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("waslint: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
