"""Core value types shared by every layer: field paths, severities, spans, fix kinds, object references."""

from __future__ import annotations

import enum
from typing import Any

from waslint.core.records import dataclass

Path = tuple[str | int, ...]


class Severity(enum.IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None


class FixKind(enum.Enum):
    NONE = "none"
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class RuleInfo:
    """A rule as reporters see it (SARIF rule descriptors): no behaviour, only its documentation."""

    code: str
    name: str
    severity: Severity
    summary: str
    what: str
    why: str
    fix: FixKind
    # every severity its findings carry, highest first (empty: just `severity`)
    severities: tuple[Severity, ...] = ()
    # what `waslint fix` does for its findings, in a few words
    fix_title: str = ""


@dataclass(frozen=True)
class Span:
    """1-based line/column of the start, and exclusive 1-based end."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class ObjectId:
    """Which object a finding is about: apiVersion, kind, namespace and name."""

    api_version: str
    kind: str
    namespace: str | None
    name: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
        }

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name or '<unnamed>'}"
