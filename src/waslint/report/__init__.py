"""Reports: findings -> text, json, sarif, junit or github annotations.

Reporters know only the core types and findings (`report/base.py`); every pipeline hands them a
`ReportInput`.
"""

from __future__ import annotations

from collections.abc import Callable

from waslint.report.base import FORMATS, ReportInput, counts

__all__ = ["FORMATS", "ReportInput", "counts", "render"]


def render(fmt: str, report: ReportInput) -> str:
    renderer = _renderers()[fmt]
    return renderer(report)


def _renderers() -> dict[str, Callable[[ReportInput], str]]:
    from waslint.report import github, json_report, junit, sarif, text

    return {
        "text": text.render,
        "json": json_report.render,
        "sarif": sarif.render,
        "junit": junit.render,
        "github": github.render,
    }
