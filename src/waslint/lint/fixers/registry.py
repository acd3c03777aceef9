"""The one registration of every fix: a planner registered against the rule codes it fixes.

A rule is fixable exactly when a planner is registered for its code (`Rule.fix` reads it here),
so `fixable` in reports, `waslint rules`, the `[fixable]` marks and the fix pipeline all derive
from these registrations. Planners turn findings into operations on the data (`ops`); the fix
pipeline (`waslint.fix`) writes them as text edits and verifies the result.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from waslint.core.model import FixKind
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.lint.fixers.plan import Plan
from waslint.objects.index import ObjectIndex
from waslint.objects.kobject import KObject

# Planner modules; each registers its planners on import.
FIXER_MODULES = ("waslint.lint.fixers.migration", "waslint.lint.fixers.podgroups")


@dataclass(frozen=True)
class FixTarget:
    """One fixable finding, the object it is about, and the position of its document in its file."""

    finding: Finding
    obj: KObject
    doc: int


@dataclass(frozen=True)
class FixEnv:
    """What a planner may consult beyond its findings: the set, and which objects may be edited."""

    index: ObjectIndex
    writable: Callable[[KObject], bool]
    position: Callable[[KObject], int]


Planner = Callable[[list[FixTarget], FixEnv, Plan], None]


@dataclass(frozen=True, eq=False)
class Fixer:
    codes: tuple[str, ...]
    kind: FixKind
    plan: Planner

    @property
    def name(self) -> str:
        return f"{self.plan.__module__}.{self.plan.__name__}"


_FIXERS: list[Fixer] = []
_BY_CODE: dict[str, Fixer] = {}
_loaded = False


def fixes(*codes: str, kind: FixKind = FixKind.SAFE) -> Callable[[Planner], Planner]:
    """Register a planner for the findings of these rule codes."""
    if kind is FixKind.NONE or not codes:
        raise ValueError("a fixer fixes at least one code, safely or unsafely")

    def register(planner: Planner) -> Planner:
        fixer = Fixer(tuple(codes), kind, planner)
        for code in codes:
            if code in _BY_CODE:
                raise RuntimeError(f"{code} has two fixers: {_BY_CODE[code].name} and {fixer.name}")
            _BY_CODE[code] = fixer
        _FIXERS.append(fixer)
        return planner

    return register


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in FIXER_MODULES:
            importlib.import_module(module)


def all_fixers() -> list[Fixer]:
    """Every registered fixer, in registration order (the order planning runs in)."""
    _load()
    return list(_FIXERS)


def fixer_for(code: str) -> Fixer | None:
    _load()
    return _BY_CODE.get(code)
