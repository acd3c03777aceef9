"""What one fix pass intends to do: units of operations, new documents, and why some are skipped."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from waslint.core.model import Path
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.lint.fixers.ops import Op


@dataclass(frozen=True)
class Check:
    """A schema check the fixed document must pass.

    kind "object": the WAS object at `path` (its base path in the document);
    kind "fragment": the value at `path` against fragment schema `fragment`.
    Strict: an issue the original already had fails the check too (see fixers/checks.py).
    """

    kind: str
    path: Path
    fragment: str | None = None


@dataclass(eq=False)
class Unit:
    """The fixes planned for one object (or pod template), verified together.

    `parts` pairs each finding with every operation its fix needs: a finding is fixed only when
    all of them can be written. `ops`/`findings` are what remains after that (see run.prepare).
    """

    file: str  # SourceFile.path
    doc: int  # position of the document in SourceFile.documents
    parts: list[tuple[Finding, list[Op]]]
    checks: list[Check]
    label: str
    requires: tuple[str, ...] = ()  # keys of NewDocuments this unit needs
    base: Path = ()  # the object's path in its document (a List item: ("items", n))
    ops: list[Op] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


@dataclass(eq=False)
class NewDocument:
    """A document the fix adds (a PodGroup for WAS105), after document `after` (None: at the end)."""

    key: str
    file: str
    after: int | None
    data: dict[str, Any]
    comments: list[str]
    label: str


@dataclass
class Plan:
    units: list[Unit] = field(default_factory=list)
    documents: list[NewDocument] = field(default_factory=list)
    # why a finding is not fixed in this pass
    reasons: dict[Finding, str] = field(default_factory=dict)
    # file path -> notes (skipped files and the like)
    notes: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, finding: Finding, reason: str) -> None:
        self.reasons.setdefault(finding, reason)
