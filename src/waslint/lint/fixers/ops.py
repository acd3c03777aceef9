"""Fix operations: what a fix changes, said on the data (paths in the original document).

The planner speaks in operations; `edits.py` turns each into minimal text edits at node
positions, and `apply_to_data` applies them to a copy of the parsed document. After a fix, the
re-parsed text must equal that copy: the two implementations check each other.
"""

from __future__ import annotations

import copy
from typing import Any

from waslint.core.model import Path
from waslint.core.records import dataclass


@dataclass(frozen=True)
class SetScalar:
    """Replace a scalar value (e.g. apiVersion), keeping its quoting style."""

    path: Path
    value: str


@dataclass(frozen=True)
class RenameKey:
    """Rename the key at `path`, keeping its place in the mapping and its value."""

    path: Path
    new: str


@dataclass(frozen=True)
class ReplaceValue:
    """Replace the value at `path` with a small new value, written in the document's style."""

    path: Path
    value: Any


@dataclass(frozen=True)
class Hoist:
    """The value at `path` becomes the value of its only key `child` (`a: {b: X}` -> `a: X`)."""

    path: Path
    child: str


@dataclass(frozen=True)
class DeleteKey:
    path: Path


Op = SetScalar | RenameKey | ReplaceValue | Hoist | DeleteKey


def _order(op: Op) -> tuple[int, int]:
    # Deepest first, so every path is still valid when its op runs; at one path the value
    # changes (hoist, replace) come before the key rename.
    return (-len(op.path), 1 if isinstance(op, RenameKey) else 0)


def ordered(ops: list[Op]) -> list[Op]:
    return sorted(ops, key=_order)


def apply_to_data(data: Any, ops: list[Op]) -> Any:
    """A deep copy of `data` with the operations applied (key order kept)."""
    result = copy.deepcopy(data)
    for op in ordered(ops):
        parent = _walk(result, op.path[:-1])
        last = op.path[-1]
        if isinstance(op, RenameKey):
            assert isinstance(parent, dict) and isinstance(last, str)
            items = list(parent.items())
            parent.clear()
            for key, value in items:
                parent[op.new if key == last else key] = value
        elif isinstance(op, DeleteKey):
            del parent[last]
        elif isinstance(op, Hoist):
            parent[last] = parent[last][op.child]
        elif isinstance(op, (SetScalar, ReplaceValue)):
            parent[last] = copy.deepcopy(op.value)
    return result


def _walk(data: Any, path: Path) -> Any:
    for step in path:
        data = data[step]
    return data


def map_path(path: Path, ops: list[Op]) -> Path | None:
    """Where a field of the original document ends up after the ops (None: it is gone)."""
    current: Path | None = path
    for op in ordered(ops):
        if current is None:
            return None
        size = len(op.path)
        if current[:size] != op.path:
            continue
        rest = current[size:]
        if isinstance(op, RenameKey):
            current = (*op.path[:-1], op.new, *rest)
        elif isinstance(op, DeleteKey):
            current = None
        elif isinstance(op, Hoist):
            if not rest:
                current = op.path
            elif rest[0] == op.child:
                current = (*op.path, *rest[1:])
            else:
                current = None
        else:  # a replaced value: what was said about the old one no longer applies
            current = None
    return current
