"""Kubernetes releases: the one `Release` type and the one parser (`1.37`, `v1.37` and `1.37.2`
all mean 1.37). Which releases are supported, the default target and the fix target are data
(`releases.yaml`)."""

from __future__ import annotations

import functools
import re

from waslint.core.records import dataclass
from waslint.knowledge.tables import load_table

_RELEASE = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?")


@dataclass(frozen=True, order=True)
class Release:
    """A Kubernetes minor release (1.37), ordered by version."""

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


def parse_release(text: object) -> Release | None:
    """A release from `1.37`, `v1.37` or `1.37.2` (surrounding blanks ignored); None otherwise.
    Whether waslint supports it is `is_supported`'s question."""
    if isinstance(text, Release):
        return text
    if not isinstance(text, str):
        return None
    match = _RELEASE.fullmatch(text.strip())
    return Release(int(match.group(1)), int(match.group(2))) if match else None


def _release(text: object, where: str) -> Release:
    release = parse_release(str(text))
    if release is None:
        raise ValueError(f"releases.yaml: {where}: {text!r} is not a release")
    return release


@functools.cache
def supported() -> tuple[Release, ...]:
    return tuple(sorted(_release(row["version"], "releases") for row in load_table("releases.yaml")["releases"]))


@functools.cache
def default_target() -> Release:
    return _release(load_table("releases.yaml")["default-target"], "default-target")


@functools.cache
def fix_target() -> Release:
    return _release(load_table("releases.yaml")["fix-target"], "fix-target")


@functools.cache
def milestone(name: str) -> Release:
    """The release a named change arrived in (`beta-api`, `scheduling-group`)."""
    return _release(load_table("releases.yaml")["milestones"][name], f"milestones.{name}")


def is_supported(release: Release) -> bool:
    return release in supported()


def supported_text() -> str:
    return ", ".join(str(release) for release in supported())
