"""The JSON report, exactly the shape of the command-line contract."""

from __future__ import annotations

import json
from typing import Any

from waslint import __version__
from waslint.findings import Finding
from waslint.report.base import ReportInput, counts


def finding_json(finding: Finding) -> dict[str, Any]:
    entry = {
        "code": finding.code,
        "name": finding.name,
        "severity": finding.severity.label,
        "message": finding.message,
        "path": finding.path,
        "line": finding.span.line,
        "column": finding.span.column,
        "end_line": finding.span.end_line,
        "end_column": finding.span.end_column,
        "document": finding.document,
        "object": finding.object_id.as_json() if finding.object_id else None,
        "fixable": finding.fixable,
    }
    if finding.scope is not None:  # only with `scopes` in the config
        entry["scope"] = finding.scope
    if finding.rendered_by:  # an object of kustomize renders: the build roots that render it
        entry["rendered_by"] = list(finding.rendered_by)
    return entry


def render(report: ReportInput) -> str:
    payload: dict[str, Any] = {"tool": "waslint", "version": __version__, "target_version": report.target_version}
    if report.cluster is not None:  # waslint audit
        payload["cluster"] = report.cluster
    if report.verdict is not None:
        payload["verdict"] = report.verdict.as_json()
    payload["findings"] = [finding_json(finding) for finding in report.findings]
    summary: dict[str, Any] = {"files": report.files, "documents": report.documents}
    if report.objects:
        summary["objects"] = report.files
    summary.update({"findings": len(report.findings), "by_severity": counts(report.findings)})
    if report.baselined:
        summary["baselined"] = report.baselined
    if report.skipped:
        summary["skipped"] = report.skipped
    if report.notes:
        summary["notes"] = report.notes
    payload["summary"] = summary
    return json.dumps(payload, indent=2) + "\n"
