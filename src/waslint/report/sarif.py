"""SARIF 2.1.0, for GitHub code scanning and other CI viewers."""

from __future__ import annotations

import json
from typing import Any

from waslint import __version__
from waslint.core.model import RuleInfo, Severity
from waslint.report.base import ReportInput

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule_json(rule: RuleInfo) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what},
        "help": {"text": f"{rule.what}\n\nWhy: {rule.why}"},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"fixable": rule.fix.value},
    }


def _uri(path: str) -> str:
    return "stdin" if path == "-" else path.replace("\\", "/").removeprefix("./")


def render(report: ReportInput) -> str:
    rules = sorted(report.rules, key=lambda rule: rule.code)
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
                            "artifactLocation": {"uri": _uri(finding.path)},
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
                        "informationUri": "https://pypi.org/project/waslint/",
                        "rules": [_rule_json(rule) for rule in rules],
                    }
                },
                "results": results,
                "properties": {"targetVersion": report.target_version},
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
