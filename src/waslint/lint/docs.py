"""Rule documentation generated from the registry: `waslint rules`, `waslint explain`, the README table."""

from __future__ import annotations

import json

from waslint.core.model import FixKind
from waslint.lint.registry import Rule, all_rules

_FIX_LABEL = {FixKind.NONE: "-", FixKind.SAFE: "yes", FixKind.UNSAFE: "unsafe"}


def rules_text() -> str:
    rows = [("CODE", "NAME", "SEVERITY", "FIX", "SUMMARY")]
    rows += [(r.code, r.name, r.severity_label, _FIX_LABEL[r.fix], r.summary) for r in all_rules()]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)) for row in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def rules_json() -> str:
    payload = [
        {
            "code": r.code,
            "name": r.name,
            "severity": r.severity.label,
            "severities": [severity.label for severity in r.severities],
            "fix": r.fix.value,
            "summary": r.summary,
        }
        for r in all_rules()
    ]
    return json.dumps(payload, indent=2) + "\n"


def rules_markdown() -> str:
    lines = ["| code | name | severity | fix | what it catches |", "|---|---|---|---|---|"]
    for r in all_rules():
        summary = r.summary.replace("|", "\\|")
        lines.append(f"| {r.code} | {r.name} | {r.severity_label} | {_FIX_LABEL[r.fix]} | {summary} |")
    return "\n".join(lines) + "\n"


def explain_text(rule: Rule) -> str:
    fix = {
        FixKind.NONE: "no automatic fix",
        FixKind.SAFE: "fixable with `waslint fix`",
        FixKind.UNSAFE: "fixable with `waslint fix --unsafe-fixes`",
    }[rule.fix]
    parts = [
        f"{rule.code} {rule.name} ({_severity_words(rule)}; {fix})",
        "",
        rule.summary,
        "",
        "What it does",
        "  " + rule.what,
        *(line for part in rule.parts for line in ("", f"  {part.name}: {part.what}")),
        "",
        "Why it matters",
        "  " + rule.why,
    ]
    if rule.example:
        parts += ["", "Example (fires)", _indent(rule.example)]
    if rule.use_instead:
        parts += ["", "Use instead", _indent(rule.use_instead)]
    if rule.fix_title:
        parts += ["", "What `waslint fix` does", "  " + rule.fix_title]
    parts += [
        "",
        "Suppress",
        f'  annotation waslint.io/ignore: "{rule.code}", comment # waslint: ignore[{rule.code}],'
        f" or config ignore: [{rule.code}]",
    ]
    return "\n".join(parts) + "\n"


def _severity_words(rule: Rule) -> str:
    if len(rule.severities) == 1:
        return f"default severity: {rule.severity.label}"
    return f"default severity: {rule.severity.label}; findings carry {rule.severity_label}"


def _indent(block: str) -> str:
    return "\n".join("    " + line if line else "" for line in block.rstrip("\n").splitlines())


def rules_reference_markdown() -> str:
    """docs/rules.md: every rule's full documentation."""
    out = ["# waslint rules", "", "Generated from the rule registry (`python scripts/gen_docs.py`).", ""]
    for r in all_rules():
        out += [
            f"## {r.code} {r.name}",
            "",
            f"Severity: {r.severity_label}{' (default ' + r.severity.label + ')' if len(r.severities) > 1 else ''}."
            f" Fix: {_FIX_LABEL[r.fix]}.",
            "",
            r.summary,
            "",
            "**What it does.** " + r.what,
            "",
            *(line for part in r.parts for line in (f"- **{part.name}**: {part.what}",)),
            *([""] if r.parts else []),
            "**Why it matters.** " + r.why,
            "",
        ]
        if r.example:
            out += ["Example (fires):", "", "```yaml", r.example.rstrip("\n"), "```", ""]
        if r.use_instead:
            out += ["Use instead:", "", "```yaml", r.use_instead.rstrip("\n"), "```", ""]
    return "\n".join(out)
