"""`--statistics`: a count per code (name, severities, fixable count) instead of the findings."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import field
from typing import Any

from waslint.core.model import Severity
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.report.base import ReportInput, plural


@dataclass
class CodeCount:
    code: str
    name: str
    count: int = 0
    fixable: int = 0
    severities: set[Severity] = field(default_factory=set)

    @property
    def severity_label(self) -> str:
        return "/".join(severity.label for severity in sorted(self.severities, reverse=True))


def code_counts(findings: list[Finding]) -> list[CodeCount]:
    """Most frequent first, then by code."""
    by_code: dict[str, CodeCount] = {}
    for finding in findings:
        entry = by_code.setdefault(finding.code, CodeCount(finding.code, finding.name))
        entry.count += 1
        entry.fixable += int(finding.fixable)
        entry.severities.add(finding.severity)
    return sorted(by_code.values(), key=lambda entry: (-entry.count, entry.code))


def render_text(report: ReportInput) -> str:
    entries = code_counts(report.findings)
    if not entries:
        return "" if report.quiet else "No findings.\n"
    rows = [("COUNT", "CODE", "NAME", "SEVERITY", "FIXABLE")]
    rows += [(str(e.count), e.code, e.name, e.severity_label, str(e.fixable)) for e in entries]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [row[0].rjust(widths[0])] + [cell.ljust(widths[i]) for i, cell in enumerate(row) if i]
        lines.append("  ".join(cells).rstrip())
    if not report.quiet:
        fixable = sum(e.fixable for e in entries)
        by_severity: dict[str, int] = defaultdict(int)
        for finding in report.findings:
            by_severity[finding.severity.label] += 1
        lines.append(
            f"{plural(len(report.findings), 'finding')} in {plural(len(entries), 'code')}"
            f" ({plural(by_severity['error'], 'error')}, {plural(by_severity['warning'], 'warning')},"
            f" {by_severity['info']} info); {fixable} fixable with `waslint fix`."
        )
    return "\n".join(lines) + "\n"


def render_json(report: ReportInput) -> str:
    payload: list[dict[str, Any]] = [
        {
            "code": e.code,
            "name": e.name,
            "count": e.count,
            "fixable": e.fixable,
            "severities": [severity.label for severity in sorted(e.severities, reverse=True)],
        }
        for e in code_counts(report.findings)
    ]
    return json.dumps(payload, indent=2) + "\n"
