"""The API server's registry strategies (``strategies.yaml``): what PrepareForCreate and
PrepareForUpdate do to an object before it is validated.

:func:`prepare_for_create` and :func:`prepare_for_update` return the object as the validators see
it (status wiped where the strategy wipes it; a field of a feature gate known to be off set to nil,
on update only when the stored object does not use it) and the fields they dropped. A gate whose
state is unknown (``gates(name)`` is None) counts as on: nothing is dropped for it. The input is
never modified; a copy is made only when something changes.

It reads `core` and the rest of `knowledge/` (release parsing, the YAML tables).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from typing import Any

from waslint.core.model import Path
from waslint.core.records import dataclass
from waslint.knowledge.releases import parse_release
from waslint.knowledge.tables import load_table

__all__ = ["Dropped", "drops_field", "prepare_for_create", "prepare_for_update"]

GateLookup = Callable[[str], bool | None]
_EVERY = "[]"


@dataclass(frozen=True)
class Drop:
    holder: tuple[str, ...]  # field names, `[]` for every item of a list
    field: str
    gate: str
    object_wide: bool  # in use when any holder of the stored object sets it


@dataclass(frozen=True)
class Strategy:
    source: str
    reset_status: bool
    drops: tuple[Drop, ...]


@dataclass(frozen=True)
class Dropped:
    """A field the strategy set to nil: where it was, and the gate that is off."""

    path: Path
    gate: str


def _holder(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    for name in text.split("."):
        if name.endswith(_EVERY):
            parts.extend((name[: -len(_EVERY)], _EVERY))
        else:
            parts.append(name)
    return tuple(parts)


@functools.cache
def _strategies() -> dict[tuple[str, str, str], Strategy]:
    found: dict[tuple[str, str, str], Strategy] = {}
    for row in load_table("strategies.yaml")["strategies"]:
        strategy = Strategy(
            str(row["source"]),
            bool(row.get("reset-status")),
            tuple(
                Drop(_holder(str(d["holder"])), str(d["field"]), str(d["gate"]), d.get("in-use") == "object")
                for d in row.get("drops", [])
            ),
        )
        for release in row["releases"]:
            found[(str(release), str(row["group"]), str(row["kind"]))] = strategy
    return found


def _strategy(release: object, group: str, kind: str) -> Strategy | None:
    return _strategy_of(str(release), group, kind)


@functools.cache
def _strategy_of(release: str, group: str, kind: str) -> Strategy | None:
    parsed = parse_release(release)
    return None if parsed is None else _strategies().get((str(parsed), group, kind))


def _set(value: Any) -> bool:
    return value is not None and value != "" and value != []  # an empty mapping is a set pointer


def _holders(data: Any, holder: tuple[str, ...], path: Path = ()) -> Iterator[tuple[Path, dict[str, Any]]]:
    if not holder:
        if isinstance(data, dict):
            yield path, data
        return
    step, rest = holder[0], holder[1:]
    if step == _EVERY:
        for index, item in enumerate(data if isinstance(data, list) else []):
            yield from _holders(item, rest, (*path, index))
    elif isinstance(data, dict):
        yield from _holders(data.get(step), rest, (*path, step))


def _dig(data: Any, path: Path) -> Any:
    for step in path:
        if isinstance(step, int):
            data = data[step] if isinstance(data, list) and step < len(data) else None
        else:
            data = data.get(step) if isinstance(data, dict) else None
    return data


def _in_use(drop: Drop, old: Any, path: Path) -> bool:
    if old is None:
        return False
    if drop.object_wide:
        return any(_set(holder.get(drop.field)) for _, holder in _holders(old, drop.holder))
    holder = _dig(old, path)
    return isinstance(holder, dict) and _set(holder.get(drop.field))


def _prepare(
    release: object, group: str, kind: str, data: Any, old: Any, gates: GateLookup
) -> tuple[Any, list[Dropped]]:
    strategy = _strategy(release, group, kind)
    if strategy is None or not isinstance(data, dict):
        return data, []
    dropped: list[tuple[Path, Drop]] = []
    for drop in strategy.drops:
        if gates(drop.gate) is not False:
            continue
        for path, holder in _holders(data, drop.holder):
            if _set(holder.get(drop.field)) and not _in_use(drop, old, path):
                dropped.append((path, drop))
    wipe = strategy.reset_status and "status" in data
    if not dropped and not wipe:
        return data, []
    prepared = copy.deepcopy(data)
    if wipe:
        if isinstance(old, dict) and "status" in old:
            prepared["status"] = copy.deepcopy(old["status"])
        else:
            del prepared["status"]
    for path, drop in dropped:
        holder = _dig(prepared, path)
        if isinstance(holder, dict):
            holder.pop(drop.field, None)
    return prepared, [Dropped((*path, drop.field), drop.gate) for path, drop in dropped]


def prepare_for_create(
    release: object, group: str, kind: str, data: Any, gates: GateLookup
) -> tuple[Any, list[Dropped]]:
    """``data`` as the create validators see it, and the fields the strategy dropped."""
    return _prepare(release, group, kind, data, None, gates)


def prepare_for_update(
    release: object, group: str, kind: str, new: Any, old: Any, gates: GateLookup
) -> tuple[Any, list[Dropped]]:
    """``new`` as the update validators see it (compared with the stored ``old``), and the fields
    the strategy dropped (gated fields the stored object does not use)."""
    return _prepare(release, group, kind, new, old if isinstance(old, dict) else {}, gates)


def drops_field(release: object, group: str, kind: str, path: Path, gate: str) -> bool:
    """Whether the strategy drops the field at ``path`` (or one above it) when ``gate`` is off."""
    strategy = _strategy(release, group, kind)
    if strategy is None:
        return False
    names = tuple(_EVERY if isinstance(step, int) else step for step in path)
    for drop in strategy.drops:
        field_path = (*drop.holder, drop.field)
        if drop.gate == gate and names[: len(field_path)] == field_path:
            return True
    return False
