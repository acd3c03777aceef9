"""Reports: findings -> text, concise, json, sarif, junit or github annotations.

Reporters know only the core types and findings (`report/base.py`); every pipeline hands them a
`ReportInput`.
"""

from __future__ import annotations

from collections.abc import Callable

from waslint.report.base import (
    FORMATS,
    ReportInput,
    SourceTexts,
    counts,
    fix_lines,
    plural,
    relative_path,
    source_root,
    split_message,
    summary_line,
)

__all__ = [
    "FORMATS",
    "ReportInput",
    "SourceTexts",
    "counts",
    "fix_lines",
    "plural",
    "relative_path",
    "render",
    "source_root",
    "split_message",
    "summary_line",
]


def render(fmt: str, report: ReportInput) -> str:
    return _renderer(fmt)(report)


def _renderer(fmt: str) -> Callable[[ReportInput], str]:
    """Only the chosen reporter is imported (junit's ElementTree costs a millisecond of every start)."""
    if fmt in ("text", "concise"):
        from waslint.report import text

        return text.render if fmt == "text" else text.render_concise
    if fmt == "json":
        from waslint.report import json_report

        return json_report.render
    if fmt == "sarif":
        from waslint.report import sarif

        return sarif.render
    if fmt == "junit":
        from waslint.report import junit

        return junit.render
    if fmt == "github":
        from waslint.report import github

        return github.render
    raise KeyError(fmt)
