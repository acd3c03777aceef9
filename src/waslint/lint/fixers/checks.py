"""The fix contract checked on the data, before any text is touched: a fixed object must pass the
fix target's strict schema, with no exception for problems the original had (a rewrite into a new
version would carry them there). A fix that fails is declined with the reason; `lint` uses the
same verdict (`preview`), so it never marks a finding fixable that `fix` would decline.
"""

from __future__ import annotations

from typing import Any

from waslint.core.model import Path
from waslint.io.helmtext import PLACEHOLDER
from waslint.knowledge.releases import fix_target
from waslint.knowledge.schema import has_fragment, has_schema, validate_fragment, validate_object
from waslint.lint.fixers.ops import Op, apply_to_data
from waslint.lint.fixers.plan import Check, Plan, Unit
from waslint.objects.kobject import dig


def schema_problems(check: Check, value: Any) -> list[str]:
    """The fix target's schema issues of one checked value after the fix ([] when none)."""
    target = fix_target()
    if check.kind == "object":
        if not isinstance(value, dict):
            return ["the fixed object is gone"]
        api_version, kind = value.get("apiVersion"), value.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return ["the fixed object lost its apiVersion or kind"]
        if not has_schema(target, api_version, kind):
            return [f"{api_version} {kind} is not a Kubernetes {target} kind"]
        issues = validate_object(target, api_version, kind, value)
        if "metadata" in value and has_fragment(target, "ObjectMeta"):  # kind schemas keep it loose
            issues += validate_fragment(target, "ObjectMeta", value["metadata"], ("metadata",))
    else:
        assert check.fragment is not None
        issues = validate_fragment(target, check.fragment, value)
    return [issue.message for issue in issues if not _templated(dig(value, *issue.path))]


def _templated(value: Any) -> bool:
    """A Helm template action's placeholder: its value (and type) is known only once rendered."""
    return isinstance(value, str) and PLACEHOLDER in value


def object_after(data: Any, base: Path, ops: list[Op]) -> Any:
    """The object at `base` once `ops` (full document paths) are applied; only it is copied."""
    skeleton: Any = data
    if base:  # a List item: a one-item skeleton instead of a copy of the whole List
        inner: dict[Any, Any] = {}
        skeleton = inner
        for step in base[:-1]:
            inner[step] = {}
            inner = inner[step]
        inner[base[-1]] = _at(data, base)
    result = apply_to_data(skeleton, ops)
    return _at(result, base)


def _at(data: Any, path: Path) -> Any:
    for step in path:
        data = data[step]
    return data


def unit_problems(unit: Unit, data: Any, ops: list[Op]) -> list[str]:
    """Why the unit's checks fail once `ops` are applied to the document `data`."""
    base = unit.base
    unique = list({(type(op).__name__, op.path): op for op in ops}.values())  # as run.prepare does
    try:
        fixed = object_after(data, base, unique)
    except (KeyError, IndexError, TypeError, AssertionError):
        return ["the fix does not fit this object's shape"]
    problems: list[str] = []
    for check in unit.checks:
        relative = check.path[len(base) :]
        problems.extend(schema_problems(check, dig(fixed, *relative) if relative else fixed))
    return problems


def decline_invalid(unit: Unit, data: Any, plan: Plan) -> bool:
    """Keep the unit's parts only when what they write together passes the schema: all of them,
    else those that pass alone (when they still pass together); the others are declined with the
    reason. Returns whether any part is left. `data` is the document the unit edits."""
    everything = unit_problems(unit, data, [op for _, ops in unit.parts for op in ops])
    if not everything:
        return True
    alone = [(part, unit_problems(unit, data, part[1])) for part in unit.parts]
    kept = [part for part, problems in alone if not problems]
    if kept and unit_problems(unit, data, [op for _, ops in kept for op in ops]):
        kept = []
    for (finding, _), problems in alone:
        if (finding, _) not in kept:
            plan.skip(finding, declined(unit.label, problems or everything))
    unit.parts = kept
    return bool(kept)


def declined(label: str, problems: list[str]) -> str:
    shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
    return f"not fixed: the fixed {label} would fail the Kubernetes {fix_target()} schema: {shown}; fix it by hand"


def line_break_problem(text: str) -> str | None:
    """Why a file's line breaks keep fix from editing it (a lone CR, or LF and CRLF mixed)."""
    carriage = text.count("\r")
    if not carriage:
        return None
    pairs = text.count("\r\n")
    if pairs != carriage:
        return "not fixed: the file has CR-only line breaks; convert them to LF or CRLF first"
    if pairs != text.count("\n"):
        return "not fixed: the file mixes LF and CRLF line breaks; make them one kind first"
    return None
