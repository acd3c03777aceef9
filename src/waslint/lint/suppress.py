"""Suppressions: object annotations and `# waslint:` comments, and which of them were used."""

from __future__ import annotations

from dataclasses import field

from waslint.core.codes import matches
from waslint.core.model import Path, Span
from waslint.core.patterns import LazyPattern
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.io.loader import SourceFile
from waslint.objects.kobject import IGNORE_ANNOTATION, KObject

_COMMENT = LazyPattern(r"#\s*waslint:\s*(ignore-file|ignore)\b(?:\[([^\]]*)\])?")


@dataclass(eq=False)
class Suppression:
    """One inline suppression (a comment or an annotation) and whether it was used."""

    kind: str  # "line", "file", "annotation"
    codes: tuple[str, ...]  # empty = every code
    source: SourceFile
    span: Span
    document: int | None
    lines: frozenset[int] = frozenset()  # "line": the lines it covers
    obj: KObject | None = None
    field_path: Path = ()
    used: bool = False

    def covers_code(self, code: str) -> bool:
        return not self.codes or matches(code, self.codes)

    @property
    def label(self) -> str:
        what = ",".join(self.codes) if self.codes else "all"
        if self.kind == "annotation":
            return f"annotation {IGNORE_ANNOTATION}: {what}"
        return f"comment waslint: {'ignore-file' if self.kind == 'file' else 'ignore'}[{what}]"


@dataclass
class SuppressionSet:
    """The suppressions of a set of files, by file and by object."""

    by_file: dict[str, list[Suppression]] = field(default_factory=dict)  # by the file's path
    by_object: dict[KObject, Suppression] = field(default_factory=dict)

    def all(self) -> list[Suppression]:
        found = [s for group in self.by_file.values() for s in group]
        return found + list(self.by_object.values())

    def add_file(self, source: SourceFile) -> None:
        if not source.mentions("waslint:"):  # an audited object answers without writing its text
            return
        comments = list(_comments(source))
        if comments:
            self.by_file[source.path] = comments

    def add_object(self, obj: KObject) -> None:
        value = obj.annotations.get(IGNORE_ANNOTATION)
        if value is None:
            return
        path = obj.full_path(("metadata", "annotations", IGNORE_ANNOTATION))
        codes = _parse_codes(str(value))
        self.by_object[obj] = Suppression(
            "annotation", codes, obj.file, obj.doc.locate(path), obj.doc.index, obj=obj, field_path=path
        )

    def suppressing(self, finding: Finding, obj: KObject | None) -> Suppression | None:
        if obj is not None:
            annotation = self.by_object.get(obj)
            if annotation is not None and annotation.covers_code(finding.code):
                return annotation
        if finding.doc is None:
            return None  # a file that does not parse (WAS001): its comments are not read as such
        return self._by_comment(finding)

    def _by_comment(self, finding: Finding) -> Suppression | None:
        """A comment of the file the finding points at (a rendered object's finding may point at
        a patch or a kustomization, not the file of its document)."""
        candidates = self.by_file.get(finding.path)
        if not candidates:
            return None
        for item in candidates:
            if not item.covers_code(finding.code):
                continue
            if item.kind == "line" and finding.span.line in item.lines:
                return item
            if item.kind == "file" and (item.document is None or item.document == finding.document):
                return item
        return None


def _parse_codes(text: str) -> tuple[str, ...]:
    codes = tuple(part.strip().upper() for part in text.split(",") if part.strip())
    return () if not codes or "ALL" in codes else codes


def _comments(source: SourceFile) -> list[Suppression]:
    found: list[Suppression] = []
    for number, line in enumerate(source.text.splitlines(), start=1):
        if "waslint:" not in line:
            continue
        match = _COMMENT.search(line)
        if match is None or not _is_comment(line, match.start()):
            continue
        kind = "file" if match.group(1) == "ignore-file" else "line"
        codes = _parse_codes(match.group(2) or "")
        span = Span(number, match.start() + 1, number, match.end() + 1)
        alone = not line[: match.start()].strip()
        lines = frozenset({number, number + 1}) if alone else frozenset({number})
        document = _document_at(source, number) if kind == "file" else None
        found.append(Suppression(kind, codes, source, span, document, lines))
    return found


def _is_comment(line: str, position: int) -> bool:
    """A '#' that starts a YAML comment: at the line start or after white space, outside quotes."""
    before = line[:position]
    if before and not before[-1].isspace():
        return False
    return before.count('"') % 2 == 0 and before.count("'") % 2 == 0


def _document_at(source: SourceFile, line: int) -> int | None:
    for doc in source.documents:
        if doc.first_line <= line <= doc.last_line:
            return doc.index
    if source.documents and line > source.documents[-1].last_line:
        return source.documents[-1].index
    return None
