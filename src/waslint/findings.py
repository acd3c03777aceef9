"""A finding: what a rule reports, located in its file; what the reporters receive. And the object
a finding is about (`owner_of`), for suppressions and fixes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from waslint.core.model import ObjectId, Path, Severity, Span
from waslint.io.loader import Document
from waslint.objects.kobject import KObject


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

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.code)


Owners = dict[tuple[Document, tuple[Any, ...]], KObject]  # (document, base path) -> object


def owners_of(objects: Iterable[KObject]) -> Owners:
    """The objects by where they sit, for `owner_of`."""
    return {(obj.doc, obj.base_path): obj for obj in objects}


def owner_of(finding: Finding, owners: Owners) -> KObject | None:
    """The object a finding is about (a List item, or the document's object)."""
    if finding.doc is None:
        return None
    path = finding.field_path
    if len(path) >= 2 and path[0] == "items":
        owner = owners.get((finding.doc, tuple(path[:2])))
        if owner is not None:
            return owner
    return owners.get((finding.doc, ()))
