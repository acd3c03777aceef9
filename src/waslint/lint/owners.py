"""The object a finding is about (a List item, or its document's object): where a suppression
annotation sits, and what a fix rewrites."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from waslint.findings import Finding
from waslint.io.loader import Document
from waslint.objects.kobject import KObject

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
