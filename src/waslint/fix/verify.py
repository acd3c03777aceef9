"""The safety net: a fixed text is written only when it parses, says exactly what the operations
say (every document compared with the original data plus the operations, key order included),
and the changed objects pass the 1.37 strict schema (issues the original already had excepted)."""

from __future__ import annotations

import math
from typing import Any

from waslint.core.model import Path
from waslint.knowledge.releases import fix_target
from waslint.knowledge.schema import has_schema, validate_fragment, validate_object
from waslint.lint.fixers.ops import Op, SetScalar, map_path
from waslint.lint.fixers.plan import Check
from waslint.objects.kobject import dig


def same(a: Any, b: Any) -> bool:
    """Deep equality that also compares key order and scalar types (1 is not True or 1.0)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def check_problems(check: Check, old_doc: Any, new_doc: Any, ops: list[Op]) -> list[str]:
    """Schema issues the fix introduced in one checked value ([] when none)."""
    new_value = dig(new_doc, *check.path)
    if check.kind == "object":
        if not isinstance(new_value, dict):
            return ["the fixed object is gone"]
        api_version, kind = new_value.get("apiVersion"), new_value.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return ["the fixed object lost its apiVersion or kind"]
        if not has_schema(fix_target(), api_version, kind):
            return [f"{api_version} {kind} is not a Kubernetes {fix_target()} kind"]
        issues = validate_object(fix_target(), api_version, kind, new_value)
    else:
        assert check.fragment is not None
        issues = validate_fragment(fix_target(), check.fragment, new_value)
    if not issues:
        return []
    known = _known(check, old_doc, ops)
    problems = []
    for issue in issues:
        where = (*check.path, *issue.path)
        if where in known or any(where[: len(p)] == p for p in check.allowed):
            continue
        problems.append(issue.message)
    return problems


def _known(check: Check, old_doc: Any, ops: list[Op]) -> set[Path]:
    """Paths (after the fix) of the schema issues the original value already had."""
    if check.old_path is None:
        return set()
    old_value = dig(old_doc, *check.old_path)
    if check.kind == "object":
        if not isinstance(old_value, dict):
            return set()
        kind = old_value.get("kind")
        api_version = old_value.get("apiVersion")
        if check.old_release is not None and isinstance(api_version, str) and isinstance(kind, str):
            issues = validate_object(check.old_release, api_version, kind, old_value)
        else:
            # No schema for the old version (a kind in a version that never existed): judge the
            # original by the new version's schema.
            where = (*check.old_path, "apiVersion")
            new_api = next(
                (op.value for op in ops if isinstance(op, SetScalar) and op.path == where),
                api_version,
            )
            swapped = dict(old_value, apiVersion=new_api)
            issues = validate_object(fix_target(), str(new_api), str(kind), swapped)
    else:
        if check.old_release is None or check.old_fragment is None:
            return set()
        issues = validate_fragment(check.old_release, check.old_fragment, old_value)
    known: set[Path] = set()
    for issue in issues:
        mapped = map_path((*check.old_path, *issue.path), ops)
        if mapped is not None:
            known.add(mapped)
    return known
