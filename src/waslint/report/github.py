"""GitHub Actions workflow commands: one annotation per finding."""

from __future__ import annotations

from waslint.core.model import Severity
from waslint.report.base import ReportInput

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: ReportInput) -> str:
    lines = []
    for finding in report.findings:
        span = finding.span
        properties = ",".join(
            [
                f"file={_escape_property(finding.path)}",
                f"line={span.line}",
                f"col={span.column}",
                f"endLine={span.end_line}",
                f"endColumn={span.end_column}",
                f"title={_escape_property(f'{finding.code} {finding.name}')}",
            ]
        )
        lines.append(f"::{_LEVEL[finding.severity]} {properties}::{_escape_data(finding.message)}")
    return "".join(line + "\n" for line in lines)
