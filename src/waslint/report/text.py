"""The human report: grouped by file, the offending source line with a caret, a summary."""

from __future__ import annotations

from collections import defaultdict

from waslint.core.model import Severity
from waslint.findings import Finding
from waslint.report.base import ReportInput, counts

_COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


class _Painter:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


def render(report: ReportInput) -> str:
    paint = _Painter(report.color)
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_path[finding.path].append(finding)
    out: list[str] = []
    for path, findings in by_path.items():
        out.append(paint(path, "1"))
        lines = report.sources.get(path, "").splitlines()
        for finding in findings:
            out.extend(_finding_lines(finding, lines, paint))
        out.append("")
    out.append(_summary(report, paint))
    return "\n".join(out) + "\n"


def _finding_lines(finding: Finding, lines: list[str], paint: _Painter) -> list[str]:
    span = finding.span
    severity = paint(f"{finding.severity.label:<7}", _COLORS[finding.severity])
    fixable = paint(" [fixable]", "32") if finding.fixable else ""
    head = f"  {span.line}:{span.column}  {severity} {paint(finding.code, '1')}  {finding.message}{fixable}"
    result = [head]
    if 0 < span.line <= len(lines):
        source = lines[span.line - 1].rstrip("\r").expandtabs(1)
        if len(source) > 160:
            source = source[:157] + "..."
        gutter = f"{span.line:>6} | "
        start = max(span.column - 1, 0)
        end = span.end_column - 1 if span.end_line == span.line and span.end_column > span.column else start + 1
        end = min(max(end, start + 1), max(len(source), start + 1))
        result.append(paint(gutter, "2") + source)
        caret = paint("^" * (end - start), _COLORS[finding.severity])
        result.append(" " * (len(gutter) - 2) + paint("| ", "2") + " " * start + caret)
    return result


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summary(report: ReportInput, paint: _Painter) -> str:
    by = counts(report.findings)
    scanned = f"{_plural(report.files, 'file')}, {_plural(report.documents, 'document')}"
    if not report.findings:
        return paint("No findings", "32") + f" ({scanned}, target Kubernetes {report.target_version})."
    fixable = sum(1 for finding in report.findings if finding.fixable)
    text = (
        f"Found {_plural(len(report.findings), 'finding')} ({_plural(by['error'], 'error')},"
        f" {_plural(by['warning'], 'warning')}, {by['info']} info) in {scanned},"
        f" target Kubernetes {report.target_version}."
    )
    if fixable:
        text += f" {fixable} fixable with `waslint fix`."
    return text
