"""Baselines: record today's findings, later report only the new ones.

A finding is matched by a key that survives line shifts and reformatting: the rule code, the
object's identity (API group without the version, kind, namespace, name) and the field path inside
the object. The file path joins the key only for findings that have no object (a file that does
not parse, a stray suppression comment). Messages and line numbers never join it. Each key carries
a count: two identical findings need two baseline entries, so a second copy is still new.

File format (JSON, sorted, meant to be committed):

    {"tool": "waslint", "baseline_version": 1,
     "entries": [{"code": "WAS101", "group": "scheduling.k8s.io", "kind": "Workload",
                  "namespace": "ml", "name": "trainer", "field": "apiVersion", "path": null,
                  "count": 1, "message": "..."}]}

`message` is for the reader only (the first finding's message); it is not matched.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from waslint.core.model import Path
from waslint.findings import Finding

BASELINE_VERSION = 1
BaselineKey = tuple[str, str, str, str, str, str, str]


class BaselineError(Exception):
    """An unreadable or malformed baseline file: the run stops with exit status 2."""


def finding_key(finding: Finding) -> BaselineKey:
    obj = finding.object_id
    if obj is None:
        return (finding.code, "", "", "", "", field_text(finding.field_path), finding.path)
    group = obj.api_version.rpartition("/")[0]
    return (
        finding.code,
        group,
        obj.kind,
        obj.namespace or "",
        obj.name or "",
        field_text(_object_relative(finding)),
        "" if obj.name else finding.path,  # an unnamed object is known only by its file
    )


def _object_relative(finding: Finding) -> Path:
    """The field path inside the object: an item of a `List` drops its `items[N]` prefix, so
    reordering the list keeps the key."""
    path = finding.field_path
    if len(path) >= 2 and path[0] == "items" and isinstance(path[1], int):
        data = finding.doc.data if finding.doc is not None else None
        kind = data.get("kind") if isinstance(data, dict) else None
        if isinstance(kind, str) and kind.endswith("List"):
            return path[2:]
    return path


def field_text(path: Path) -> str:
    parts: list[str] = []
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        else:
            parts.append(("." if parts else "") + step)
    return "".join(parts)


def baseline_json(findings: Iterable[Finding]) -> str:
    counts: Counter[BaselineKey] = Counter()
    messages: dict[BaselineKey, str] = {}
    for finding in findings:
        key = finding_key(finding)
        counts[key] += 1
        messages.setdefault(key, finding.message)
    entries = [_entry(key, count, messages[key]) for key, count in sorted(counts.items())]
    payload = {"tool": "waslint", "baseline_version": BASELINE_VERSION, "entries": entries}
    return json.dumps(payload, indent=2) + "\n"


def _entry(key: BaselineKey, count: int, message: str) -> dict[str, Any]:
    code, group, kind, namespace, name, field, path = key
    return {
        "code": code,
        "group": group,
        "kind": kind,
        "namespace": namespace,
        "name": name,
        "field": field,
        "path": path or None,
        "count": count,
        "message": message,
    }


def load_baseline(path: str) -> Counter[BaselineKey]:
    """The baseline's counts, read like every input (io/reading.py): a regular file within the
    manifest size limit, JSON nesting and numbers bounded."""
    from waslint.io.loader import MAX_FILE_BYTES
    from waslint.io.reading import BadJSON, InputError, loads_json, read_bounded

    try:
        payload = loads_json(read_bounded(path, MAX_FILE_BYTES))
    except BadJSON as err:
        raise BaselineError(
            f"--baseline: {path}:{err.line}:{err.column}: not a waslint baseline ({err.reason})"
        ) from None
    except InputError as err:
        raise BaselineError(f"--baseline: {err}") from None
    entries = payload.get("entries") if isinstance(payload, dict) else None
    if not isinstance(entries, list) or payload.get("baseline_version") != BASELINE_VERSION:
        raise BaselineError(f"--baseline: {path}: not a waslint baseline (version {BASELINE_VERSION})")
    counts: Counter[BaselineKey] = Counter()
    for position, entry in enumerate(entries):
        counts[_entry_key(entry, path, position)] += _entry_count(entry, path, position)
    return counts


def _entry_key(entry: Any, path: str, position: int) -> BaselineKey:
    names = ("code", "group", "kind", "namespace", "name", "field")
    if not isinstance(entry, dict) or not all(isinstance(entry.get(name), str) for name in names):
        raise BaselineError(f"--baseline: {path}: entry {position} needs string {', '.join(names)}")
    file_path = entry.get("path")
    return (
        entry["code"],
        entry["group"],
        entry["kind"],
        entry["namespace"],
        entry["name"],
        entry["field"],
        file_path if isinstance(file_path, str) else "",
    )


def _entry_count(entry: dict[str, Any], path: str, position: int) -> int:
    count = entry.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise BaselineError(f"--baseline: {path}: entry {position}: count must be a positive integer")
    return count


def new_findings(findings: list[Finding], baseline: Counter[BaselineKey]) -> list[Finding]:
    """The findings the baseline does not cover; each entry covers `count` findings of its key,
    taken in report order."""
    remaining = Counter(baseline)
    kept: list[Finding] = []
    for finding in findings:
        key = finding_key(finding)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            kept.append(finding)
    return kept
