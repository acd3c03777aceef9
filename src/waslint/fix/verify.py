"""The safety net: a fixed text is written only when it parses, says exactly what the operations
say (every document compared with the original data plus the operations, key order included),
and the changed objects pass the fix target's strict schema."""

from __future__ import annotations

import math
from typing import Any

from waslint.lint.fixers.checks import schema_problems
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


def check_problems(check: Check, new_doc: Any) -> list[str]:
    """Schema issues of one checked value in the fixed document ([] when none); no exception for
    issues the original had (the planners decline such fixes before this safety net)."""
    return schema_problems(check, dig(new_doc, *check.path))
