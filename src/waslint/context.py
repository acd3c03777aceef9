"""What every rule can see during one run: the set index, the target release, run options."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from waslint.index import ObjectIndex
from waslint.loader import SourceFile

RELEASES = ("1.35", "1.36", "1.37")
DEFAULT_TARGET = "1.37"


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

    def target_at_least(self, release: str) -> bool:
        return release_key(self.target) >= release_key(release)
