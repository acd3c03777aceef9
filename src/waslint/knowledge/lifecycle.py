"""Kubernetes knowledge kept as data: the tables in `waslint/rules/*.yaml`, loaded once."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from waslint.lint.context import release_key


@functools.cache
def load_table(name: str) -> Any:
    text = resources.files("waslint.knowledge").joinpath(name).read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@dataclass(frozen=True)
class ApiVersionEntry:
    group: str
    version: str
    kind: str
    stage: str
    introduced: str
    removed: str | None
    notice: str | None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    def served_in(self, release: str) -> bool:
        key = release_key(release)
        if key < release_key(self.introduced):
            return False
        return self.removed is None or key < release_key(self.removed)


@functools.cache
def api_lifecycle() -> tuple[ApiVersionEntry, ...]:
    rows = load_table("api-lifecycle.yaml")["apis"]
    return tuple(
        ApiVersionEntry(
            group=row["group"],
            version=row["version"],
            kind=row["kind"],
            stage=row["stage"],
            introduced=str(row["introduced"]),
            removed=str(row["removed"]) if row.get("removed") is not None else None,
            notice=row.get("notice"),
        )
        for row in rows
    )


def lifecycle_entry(group: str, version: str, kind: str) -> ApiVersionEntry | None:
    for entry in api_lifecycle():
        if (entry.group, entry.version, entry.kind) == (group, version, kind):
            return entry
    return None


_STAGE_RANK = {"alpha": 0, "beta": 1, "ga": 2}


def preferred_entry(group: str, kind: str, release: str) -> ApiVersionEntry | None:
    """The most mature version of a kind that a release serves."""
    served = [e for e in api_lifecycle() if (e.group, e.kind) == (group, kind) and e.served_in(release)]
    if not served:
        return None
    return max(served, key=lambda e: _STAGE_RANK.get(e.stage, 0))
