"""A finding: what a rule reports, located in its file; what the reporters receive."""

from __future__ import annotations

from dataclasses import field

from waslint.core.model import ObjectId, Path, Severity, Span
from waslint.core.records import dataclass
from waslint.io.loader import Document


@dataclass(eq=False)
class Finding:
    """One finding is one report: compared and hashed by identity (the fix pipeline and lint's
    fix preview key their notes on it). Built with keywords."""

    code: str
    name: str
    severity: Severity
    message: str
    path: str
    document: int | None
    span: Span
    object_id: ObjectId | None = None
    fixable: bool = False
    # Where in the document the finding points (for suppression and fixes); not reported.
    field_path: Path = ()
    doc: Document | None = field(default=None, repr=False, compare=False)
    # The config scope (cluster folder) the finding was linted in; None without scopes.
    scope: str | None = None
    # Why `fix` would decline its rule's fix for this finding (then not fixable); None otherwise.
    declined: str | None = None
    # The kustomize build roots whose render holds the object (lint/gitops.py); () for a file.
    rendered_by: tuple[str, ...] = ()

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)
