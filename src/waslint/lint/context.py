"""What every rule can see during one run: the set index, the target release, run options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from waslint.io.loader import SourceFile
from waslint.objects.index import ObjectIndex

RELEASES = ("1.35", "1.36", "1.37")
DEFAULT_TARGET = "1.37"

T = TypeVar("T")


def release_key(release: str) -> tuple[int, int]:
    major, minor = release.split(".")
    return int(major), int(minor)


@dataclass
class Context:
    index: ObjectIndex
    files: list[SourceFile]
    target: str = DEFAULT_TARGET
    namespace: str = "default"
    snapshot: Any = None
    base_ref: str | None = None
    gates: dict[str, dict[str, bool]] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    _derived: dict[str, Any] = field(default_factory=dict, repr=False)

    def derive(self, key: str, build: Callable[[Context], T]) -> T:
        """Per-run data that several rules read (priority classes, the gate inventory): built on
        first use, then shared."""
        if key not in self._derived:
            self._derived[key] = build(self)
        value: T = self._derived[key]
        return value

    def target_at_least(self, release: str) -> bool:
        return release_key(self.target) >= release_key(release)
