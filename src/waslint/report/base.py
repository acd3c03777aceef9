"""What every reporter receives: the findings of a run and the facts its summary needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from waslint.core.model import RuleInfo, Severity
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
    # The rules of the run's registry (SARIF lists them as the driver's rules).
    rules: list[RuleInfo] = field(default_factory=list)


def counts(findings: list[Finding]) -> dict[str, int]:
    by = {severity.label: 0 for severity in sorted(Severity, reverse=True)}
    for finding in findings:
        by[finding.severity.label] += 1
    return by
