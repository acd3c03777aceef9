"""`waslint audit --format markdown`: the audit document an operator files with an upgrade plan."""

from __future__ import annotations

import datetime

from waslint.audit.run import AuditResult, served_was_versions
from waslint.escape import markdown
from waslint.knowledge.gates import gate_table
from waslint.objects.keys import SCHEDULING
from waslint.report.base import counts, plural


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(markdown.cell(cell) for cell in header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(markdown.cell(cell) for cell in row) + " |" for row in rows)
    return lines


def _verdict(result: AuditResult) -> list[str]:
    lines = ["## Verdict", ""]
    if result.verdict:
        lines.append(f"Before this cluster runs {result.target}:")
        lines.append("")
        lines.extend(f"- {markdown.cell(item)}" for item in result.verdict)
    else:
        lines.append(
            f"Nothing on this cluster blocks {result.target} (see the findings below for object-level issues)."
        )
    return lines


def _served(result: AuditResult) -> list[str]:
    versions = result.discovery.versions(SCHEDULING)
    rows = []
    for version in versions:
        plurals = [r.plural for r in result.discovery.resources if r.group == SCHEDULING and r.version == version]
        rows.append([f"{SCHEDULING}/{version}", ", ".join(plurals)])
    lines = ["## Served versions", ""]
    mode = "aggregated discovery" if result.discovery.aggregated else "per group version discovery"
    lines.append(
        f"Read with {mode}. WAS versions served: {', '.join(served_was_versions(result.discovery)) or 'none'}."
    )
    lines.append("")
    lines += _table(["group/version", "resources"], rows)
    if result.live_schemas:
        lines += ["", f"Schemas (WAS002) from the cluster's OpenAPI v3: {', '.join(result.live_schemas)}."]
    return lines


def _gates(result: AuditResult) -> list[str]:
    lines = ["## Feature gates", ""]
    known = [component for component in result.gates.components if component.gates is not None]
    table = gate_table()
    names = sorted({gate for component in known for gate in (component.gates or {}) if gate in table})
    if known and names:
        header = ["gate", *[f"{c.component} {c.instance}" if c.component == "kubelet" else c.component for c in known]]
        rows = []
        for gate in names:
            row = [gate]
            for component in known:
                value = (component.gates or {}).get(gate)
                row.append("-" if value is None else ("on" if value[1] else "off") + f" ({value[0].lower()})")
            rows.append(row)
        lines += _table(header, rows)
    else:
        lines.append("No component's kubernetes_feature_enabled metric could be read.")
    sampled = sum(1 for component in result.gates.components if component.component == "kubelet")
    if result.gates.kubelets_total > sampled:
        lines += ["", f"Kubelets: {sampled} of {result.gates.kubelets_total} nodes sampled."]
    unknown = result.gates.unknown()
    if unknown:
        lines += ["", "Unknown (not read, so not assumed off):", ""]
        lines.extend(f"- {markdown.cell(f'{c.component} {c.instance}: {c.problem}')}" for c in unknown)
    return lines


def _objects(result: AuditResult) -> list[str]:
    lines = ["## Stored objects", ""]
    counts = sorted(result.collection.per_version.items())
    lines += _table(["kind", "apiVersion", "objects"], [[kind, version, str(n)] for (kind, version), n in counts])
    written = [(obj, writer) for obj in result.collection.written for writer in obj.writers]
    if written:
        lines += ["", "Last written as (from `metadata.managedFields` and the last-applied annotation):", ""]
        rows = [
            [f"{obj.kind} {obj.namespace}/{obj.name}", obj.api_version, writer.api_version, writer.how]
            for obj, writer in written
        ]
        lines += _table(["object", "served as", "written as", "by"], rows)
    return lines


def _growth(result: AuditResult) -> list[str]:
    growth = result.collection.growth
    jobs = growth.root_jobs + growth.cronjob_jobs
    return [
        "## Growth estimate (WorkloadWithJob)",
        "",
        f"With WorkloadWithJob on at {result.target}, the Job controller would create about {jobs} Workload(s) and"
        f" {jobs} PodGroup(s) for the active Jobs that do not bring their own PodGroup ({growth.root_jobs} root"
        f" Jobs, {growth.cronjob_jobs} owned by CronJobs), and two more objects per run of each of the"
        f" {growth.cronjobs} CronJob(s).",
    ]


def _findings(result: AuditResult) -> list[str]:
    findings = result.lint.findings
    lines = ["## Findings", ""]
    if not findings:
        return [*lines, "No findings."]
    by = counts(findings)  # error, warning, info: most severe first
    lines.append(
        f"{plural(by['error'], 'error')}, {plural(by['warning'], 'warning')}, {by['info']} info"
        f" in {plural(result.lint.file_count, 'object')}."
    )
    lines.append("")
    ordered = sorted(findings, key=lambda f: -f.severity)  # stable: path order within a severity
    rows = [[f.severity.label, f"{f.code} {f.name}", f.path, f.message] for f in ordered]
    return lines + _table(["severity", "rule", "object", "message"], rows)


def render_markdown(result: AuditResult, now: datetime.datetime | None = None) -> str:
    when = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    head = [
        f"# waslint audit: {markdown.code(result.context)}"
        f" ({markdown.cell(result.server_version or 'unknown version')}), target {result.target}",
        "",
        f"Server {markdown.cell(result.server)}, read {when}: {result.collection.objects_read} objects read,"
        f" {result.collection.store.count} linted, GET requests only.",
        "",
    ]
    sections = [_verdict(result), _served(result), _gates(result), _objects(result), _growth(result), _findings(result)]
    if result.warnings:
        sections.append(["## Warnings", "", *[f"- {markdown.cell(warning)}" for warning in result.warnings]])
    body = head
    for section in sections:
        body += [*section, ""]
    return "\n".join(body)
