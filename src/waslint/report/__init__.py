"""Reports: findings -> text, json, sarif, junit or github annotations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from waslint.core.model import Severity
from waslint.findings import Finding

FORMATS = ("text", "json", "sarif", "junit", "github")


@dataclass
class ReportInput:
    findings: list[Finding]
    files: int
    documents: int
    target_version: str
    # path -> source text, for the text report's source lines
    sources: dict[str, str] = field(default_factory=dict)
    color: bool = False
    tool_name: str = "waslint"


def counts(findings: list[Finding]) -> dict[str, int]:
    by = {severity.label: 0 for severity in sorted(Severity, reverse=True)}
    for finding in findings:
        by[finding.severity.label] += 1
    return by


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
