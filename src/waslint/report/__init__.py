"""Reports: findings -> text, concise, json, sarif, junit or github annotations.

Reporters know only the core types and findings (`report/base.py`); every pipeline hands them a
`ReportInput`.
"""

from __future__ import annotations

from collections.abc import Callable

from waslint.report.base import (
    FORMATS,
    ReportInput,
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
    renderer = _renderers()[fmt]
    return renderer(report)


def _renderers() -> dict[str, Callable[[ReportInput], str]]:
    from waslint.report import github, json_report, junit, sarif, text

    return {
        "text": text.render,
        "concise": text.render_concise,
        "json": json_report.render,
        "sarif": sarif.render,
        "junit": junit.render,
        "github": github.render,
    }
