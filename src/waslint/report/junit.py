"""JUnit XML: one test case per file, failing with its findings (CI dashboards read this)."""

from __future__ import annotations

from collections import defaultdict
from xml.etree import ElementTree

from waslint.escape.xml import xml_text
from waslint.findings import Finding
from waslint.report.base import ReportInput


def render(report: ReportInput) -> str:
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_path[finding.path].append(finding)
    for path in report.sources:
        by_path.setdefault(path, [])
    suites = ElementTree.Element("testsuites", name="waslint")
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        name="waslint",
        tests=str(len(by_path)),
        failures=str(sum(1 for findings in by_path.values() if findings)),
        errors="0",
    )
    for path in sorted(by_path):
        case = ElementTree.SubElement(suite, "testcase", classname="waslint", name=xml_text(path))
        findings = by_path[path]
        if not findings:
            continue
        failure = ElementTree.SubElement(case, "failure", message=f"{len(findings)} finding(s)", type=findings[0].code)
        failure.text = xml_text(
            "\n".join(
                f"{path}:{f.span.line}:{f.span.column}: {f.code} [{f.severity.label}] {f.message}" for f in findings
            )
        )
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
