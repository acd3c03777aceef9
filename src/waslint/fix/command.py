"""`waslint fix` behind the Typer command: modes, writing, the summary and the exit status.

Modes: fix in place (stdin `-`: the fixed text goes to stdout), `--check` (change nothing; exit 1
when something would change) and `--diff` (a unified diff on stdout, change nothing; exit 1 when
something would change). The summary goes to stdout, or to stderr when stdout carries the fixed
text or the diff; `-o FILE` writes it to a file.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass
from typing import IO, Any

from waslint import __version__
from waslint.core.model import RuleInfo, Severity, Span
from waslint.findings import Finding
from waslint.fix.diff import unified_diff
from waslint.fix.run import FileState, FixOptions, FixResult, fix_paths
from waslint.fix.writer import write_atomic
from waslint.io.reading import InputError, TooLarge, read_bounded
from waslint.knowledge.releases import fix_target
from waslint.lint.registry import all_rules


class UsageError(Exception):
    """A usage error: exit status 2 (the CLI prints it)."""


@dataclass
class FixRequest:
    paths: list[str]
    options: FixOptions
    mode: str = "fix"  # fix, check, diff
    fmt: str = "text"
    output: str | None = None
    threshold: str = "error"


def run(request: FixRequest, stdin: Any = None, stdout: Any = None, stderr: Any = None) -> int:
    """Run one `waslint fix`; returns the exit status."""
    out: IO[str] = stdout or sys.stdout
    err: IO[str] = stderr or sys.stderr
    paths = request.paths or ["."]
    from waslint.report import FORMATS

    if request.fmt not in FORMATS:
        raise UsageError(f"--format: {request.fmt!r} is not one of {', '.join(FORMATS)}")
    if "-" in paths and len(paths) > 1:
        raise UsageError("'-' (stdin) cannot be combined with other paths")
    result, path_errors = fix_paths(paths, request.options, stdin)
    if path_errors:
        raise UsageError("; ".join(path_errors))
    stdin_mode = paths == ["-"]
    status = 0
    if request.mode == "diff":
        out.write("".join(unified_diff(s.path, s.original, s.text) for s in result.changed))
        out.flush()
    elif request.mode == "fix":
        status = _write(result, stdin_mode, out, err)
    report = render(result, request)
    if request.output is not None:
        try:
            with open(request.output, "w", encoding="utf-8") as handle:
                handle.write(report)
        except OSError as error:
            raise UsageError(f"cannot write {request.output}: {error.strerror or error}") from None
    else:
        stream = err if stdin_mode or request.mode == "diff" else out
        stream.write(report)
        stream.flush()
    for message in result.internal_errors:
        err.write(f"waslint: {message}\n")
    if status or result.internal_errors:
        return 2
    if request.mode in ("check", "diff"):
        # pending rewrites fail the check unless --fail-on never; so do findings left at or above it
        if request.threshold == "never":
            return 0
        return 1 if result.changed else _threshold_status(result, request.threshold)
    return _threshold_status(result, request.threshold)


def _write(result: FixResult, stdin_mode: bool, out: IO[str], err: IO[str]) -> int:
    if stdin_mode:
        state = result.files[0] if result.files else None
        data = state.encoded() if state is not None else b""
        out.flush()
        buffer = getattr(out, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            out.write(data.decode(state.encoding.codec if state else "utf-8", "replace"))
        return 0
    status = 0
    for state in result.changed:
        try:
            if read_bounded(state.path, len(state.raw)) != state.raw:
                raise TooLarge("changed")
            links = write_atomic(state.path, state.encoded())
        except TooLarge:
            err.write(f"waslint: error: {state.path} changed while it was being fixed; not written, run fix again\n")
            state.applied.clear()
            status = 2
            continue
        except InputError as error:
            err.write(f"waslint: error: cannot write {error}\n")
            state.applied.clear()
            status = 2
            continue
        except OSError as error:
            err.write(f"waslint: error: cannot write {state.path}: {error.strerror or error}\n")
            state.applied.clear()
            status = 2
            continue
        if links > 1:
            result.notes.setdefault(state.path, []).append(
                f"it had {links} hard links: the fixed file replaces this name only, the other"
                f" {links - 1} keep the old text"
            )
    return status


def _threshold_status(result: FixResult, threshold: str) -> int:
    if threshold == "never":
        return 0
    lowest = Severity.parse(threshold)
    return 1 if any(item.finding.severity >= lowest for item in result.remaining) else 0


# --------------------------------------------------------------------------- reports


def render(result: FixResult, request: FixRequest) -> str:
    if request.fmt == "text":
        return render_text(result, request.mode)
    if request.fmt == "json":
        return render_json(result, request.mode)
    import os

    from waslint.report import ReportInput, source_root
    from waslint.report import render as render_findings

    rules = {rule.code: rule.info for rule in all_rules()}
    findings = [item.finding for item in result.remaining]
    if request.mode in ("check", "diff"):
        findings += pending_findings(result, request, rules)
    findings.sort(key=Finding.sort_key)
    report = ReportInput(
        findings=findings,
        files=len(result.files),
        documents=result.documents,
        target_version=str(fix_target()),
        # --check and --diff change nothing: positions point into the files as they are
        sources={state.path: state.original if request.mode != "fix" else state.text for state in result.files},
        rules=list(rules.values()),
        root=source_root() if request.fmt in ("sarif", "github") else None,
    )
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if request.fmt == "github" and summary_path:
        from waslint.report.github import append_step_summary

        problem = append_step_summary(report, summary_path, title=f"waslint fix --{request.mode}")
        if problem:
            sys.stderr.write(f"waslint: warning: {problem}\n")
    return render_findings(request.fmt, report)


def pending_findings(result: FixResult, request: FixRequest, rules: dict[str, RuleInfo]) -> list[Finding]:
    """Each rewrite `fix` would make, as a finding at the spot it rewrites (for annotations)."""
    findings = []
    for state in result.changed:
        for fix in state.applied:
            rule = rules.get(fix.code)
            severity = request.options.lint.severity.get(fix.code) or (rule.severity if rule else Severity.ERROR)
            what = rule.fix_title if rule and rule.fix_title else "rewrite it"
            message = f"`waslint fix` would rewrite {fix.label}: {what}. {fix.message}"
            span = Span(fix.line, fix.column, fix.line, fix.column + 1)
            findings.append(
                Finding(
                    code=fix.code,
                    name=rule.name if rule else fix.code,
                    severity=severity,
                    message=message,
                    path=state.path,
                    document=None,
                    span=span,
                    fixable=True,
                )
            )
    return findings


def _codes(state: FileState) -> str:
    counts = Counter(fix.code for fix in state.applied)
    return ", ".join(f"{code} x{n}" if n > 1 else code for code, n in sorted(counts.items()))


def render_text(result: FixResult, mode: str) -> str:
    lines: list[str] = []
    changed = [state for state in result.files if state.applied and state.changed]
    fixes = sum(len(state.applied) for state in changed)
    verb = "Fixed" if mode == "fix" else "Would fix"
    for state in changed:
        count = len(state.applied)
        lines.append(f"{verb} {state.path}: {count} fix{'es' if count != 1 else ''} ({_codes(state)})")
    unchanged = len(result.files) - len(changed)
    if changed:
        lines.append(
            f"{verb} {fixes} finding{'s' if fixes != 1 else ''} in {len(changed)}"
            f" file{'s' if len(changed) != 1 else ''}; {unchanged} file"
            f"{'s' if unchanged != 1 else ''} unchanged."
        )
    else:
        lines.append(f"Nothing to fix in {len(result.files)} file{'s' if len(result.files) != 1 else ''}.")
    if result.remaining:
        lines.append(
            f"{len(result.remaining)} finding{'s' if len(result.remaining) != 1 else ''} without an applied fix:"
        )
        for item in result.remaining:
            f = item.finding
            lines.append(f"  {f.path}:{f.span.line}:{f.span.column}: {f.code} {f.severity.label}: {f.message}")
            lines.append(f"    -> {item.reason}")
    notes = [(path, note) for path, items in sorted(result.notes.items()) for note in items]
    if notes:
        lines.append("Notes:")
        lines.extend(f"  {path}: {note}" for path, note in notes)
    return "\n".join(lines) + "\n"


def render_json(result: FixResult, mode: str) -> str:
    from waslint.report.json_report import finding_json

    files = [
        {
            "path": state.path,
            "changed": state.changed,
            "fixes": [
                {"code": fix.code, "line": fix.line, "column": fix.column, "message": fix.message, "object": fix.label}
                for fix in state.applied
            ],
        }
        for state in result.files
        if state.applied
    ]
    payload = {
        "tool": "waslint",
        "version": __version__,
        "target_version": str(fix_target()),
        "mode": mode,
        "files": files,
        "remaining": [dict(finding_json(item.finding), reason=item.reason) for item in result.remaining],
        "notes": [{"path": path, "message": note} for path, items in sorted(result.notes.items()) for note in items],
        "internal_errors": result.internal_errors,
        "summary": {
            "files": len(result.files),
            "changed_files": len([s for s in result.files if s.changed]),
            "fixes": result.fixes,
            "remaining": len(result.remaining),
        },
    }
    return json.dumps(payload, indent=2) + "\n"
