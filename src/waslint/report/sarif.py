"""SARIF 2.1.0, for GitHub code scanning and other CI viewers."""

from __future__ import annotations

import json
import pathlib
from typing import Any
from urllib.parse import quote

from waslint import __version__
from waslint.core.model import RuleInfo, Severity
from waslint.report.base import ReportInput, relative_path

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _rule_json(rule: RuleInfo) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary or rule.name},
        "fullDescription": {"text": rule.what or rule.summary or rule.name},
        "help": {"text": f"{rule.what}\n\nWhy: {rule.why}" if rule.why else rule.what or rule.name},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"fixable": rule.fix.value, "severities": [s.label for s in rule.severities or (rule.severity,)]},
    }


def artifact_location(path: str, root: str) -> dict[str, str]:
    """A repository-relative URI against %SRCROOT%; stdin stays `-`; a file outside the root
    gets its absolute file: URI; a live object keeps its cluster:// URI."""
    if path == "-":
        return {"uri": "-"}
    if path.startswith("cluster://"):  # a live object (waslint audit): each segment quoted (audit/collect.py)
        return {"uri": quote(path, safe=":/%")}
    relative = relative_path(path, root)
    if relative is None:
        return {"uri": pathlib.Path(path).resolve().as_uri()}
    return {"uri": quote(relative), "uriBaseId": SRCROOT}


def render(report: ReportInput) -> str:
    rules = sorted(report.rules, key=lambda rule: rule.code)
    root = str(pathlib.Path(report.root or ".").resolve())
    positions = {rule.code: position for position, rule in enumerate(rules)}
    results = []
    for finding in report.findings:
        span = finding.span
        results.append(
            {
                "ruleId": finding.code,
                **({"ruleIndex": positions[finding.code]} if finding.code in positions else {}),
                "level": _LEVEL[finding.severity],
                "message": {"text": finding.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": artifact_location(finding.path, root),
                            "region": {
                                "startLine": span.line,
                                "startColumn": span.column,
                                "endLine": max(span.end_line, span.line),
                                "endColumn": max(span.end_column, span.column + 1)
                                if span.end_line <= span.line
                                else span.end_column,
                            },
                        }
                    }
                ],
                "properties": {"fixable": finding.fixable, "document": finding.document},
            }
        )
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "waslint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": [_rule_json(rule) for rule in rules],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": pathlib.Path(root).as_uri().rstrip("/") + "/"}},
                "results": results,
                "properties": _run_properties(report),
                **_invocations(report),
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _run_properties(report: ReportInput) -> dict[str, Any]:
    properties: dict[str, Any] = {"targetVersion": report.target_version}
    if report.cluster is not None:
        properties["cluster"] = report.cluster
    if report.verdict is not None:
        properties["verdict"] = report.verdict.as_json()
    return properties


def _invocations(report: ReportInput) -> dict[str, Any]:
    """waslint audit: each reason of the upgrade verdict as an error notification of the run."""
    if report.verdict is None:
        return {}
    notes = [
        {"descriptor": {"id": "verdict"}, "level": "error", "message": {"text": reason}}
        for reason in report.verdict.reasons
    ]
    return {"invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notes}]}
