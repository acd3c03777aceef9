"""GitHub Actions: one workflow-command annotation per finding, errors first (GitHub shows only a
limited number of annotations per step), and a Markdown summary for $GITHUB_STEP_SUMMARY."""

from __future__ import annotations

from waslint.core.model import Severity
from waslint.escape import markdown
from waslint.escape.workflow import command_data, command_property
from waslint.findings import Finding
from waslint.report.base import ReportInput, counts, plural, relative_path, split_message, summary_line

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
# GitHub shows at most this many error and this many warning annotations per step.
ANNOTATIONS_PER_STEP = 10
SUMMARY_ROWS = 200


def cap_order(findings: list[Finding]) -> list[Finding]:
    """Errors first, then warnings, then info; in path order within each severity."""
    return sorted(findings, key=lambda finding: (-finding.severity, finding.sort_key()))


def render(report: ReportInput) -> str:
    lines = []
    for finding in cap_order(report.findings):
        span = finding.span
        properties = ",".join(
            [
                f"file={command_property(relative_path(finding.path, report.root) or finding.path)}",
                f"line={span.line}",
                f"col={span.column}",
                f"endLine={span.end_line}",
                f"endColumn={span.end_column}",
                f"title={command_property(f'{finding.code} {finding.name}')}",
            ]
        )
        lines.append(f"::{_LEVEL[finding.severity]} {properties}::{command_data(finding.message)}")
    return "".join(line + "\n" for line in lines)


def summary_markdown(report: ReportInput, title: str = "waslint") -> str:
    """The job summary: totals, a count per code, and the findings (errors first)."""
    by = counts(report.findings)
    out = [f"### {title}: {plural(len(report.findings), 'finding')}", "", summary_line(report), ""]
    if not report.findings:
        return "\n".join(out) + "\n"
    if by["error"] > ANNOTATIONS_PER_STEP or by["warning"] > ANNOTATIONS_PER_STEP:
        out += [
            f"GitHub shows at most {ANNOTATIONS_PER_STEP} error and {ANNOTATIONS_PER_STEP} warning annotations"
            " per step: the full list is below.",
            "",
        ]
    per_code: dict[str, list[Finding]] = {}
    for finding in report.findings:
        per_code.setdefault(finding.code, []).append(finding)
    out += ["| code | name | severity | count | fixable |", "|---|---|---|---|---|"]
    for code, items in sorted(per_code.items(), key=lambda entry: (-len(entry[1]), entry[0])):
        severities = "/".join(s.label for s in sorted({f.severity for f in items}, reverse=True))
        fixable = sum(1 for f in items if f.fixable)
        out.append(f"| {code} | {markdown.cell(items[0].name)} | {severities} | {len(items)} | {fixable} |")
    ordered = cap_order(report.findings)
    out += ["", "| severity | location | code | message |", "|---|---|---|---|"]
    for finding in ordered[:SUMMARY_ROWS]:
        where = f"{finding.path}:{finding.span.line}:{finding.span.column}"
        head, _ = split_message(finding.message)
        out.append(f"| {finding.severity.label} | {markdown.code(where)} | {finding.code} | {markdown.cell(head)} |")
    if len(ordered) > SUMMARY_ROWS:
        out.append(f"| | | | … and {len(ordered) - SUMMARY_ROWS} more |")
    return "\n".join(out) + "\n"


def append_step_summary(report: ReportInput, path: str, title: str = "waslint") -> str | None:
    """Append the summary to $GITHUB_STEP_SUMMARY; returns the reason when it cannot be written."""
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(summary_markdown(report, title))
    except OSError as err:
        return f"cannot write $GITHUB_STEP_SUMMARY ({path}): {err.strerror or err}"
    return None
