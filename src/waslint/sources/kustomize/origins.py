"""Where a field of a rendered object was written: the patch that set it (strategic merge or JSON
6902, in a file or inline in a kustomization), else the resource file it came from (kustomize's
origin annotation names it), else the kustomization line of the transformer that produced the
value (`namePrefix`/`nameSuffix`, `namespace`, `images`, `replicas`, labels, annotations).

A rendered object is a `RenderedDocument`: its data is what the root renders, its file carries
the path and text of the resource file, `locate` answers with the resource file's positions and
`moved` with a patch's or a kustomization's when one of them wrote the field. The rendered text
itself is never what a finding points at.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from waslint.core.model import Path, Span
from waslint.io.loader import Document, SourceFile, parse_bytes
from waslint.objects.kobject import as_map, dig
from waslint.sources.kustomize.graph import BuildGraph, Kustomization, Patch

# List fields merged by key in a strategic merge patch (the keys kubernetes' types declare).
_MERGE_KEYS = ("name", "mountPath", "containerPort", "devicePath", "ip", "topologyKey", "key", "type")
_IDENTITY = {("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "namespace")}
_TRANSFORMED = {
    ("metadata", "name"): ("namePrefix", "nameSuffix"),
    ("metadata", "namespace"): ("namespace",),
    ("spec", "replicas"): ("replicas",),
}


@dataclass
class AppliedPatch:
    """A patch that applies to the object, parsed: its documents and where its text sits."""

    patch: Patch
    file: SourceFile  # the patch file, or the kustomization for an inline patch
    documents: list[Any]  # the patch's values (SMP documents, or one list of operations)
    docs: list[Document | None]  # their positions (None: point at `anchor`)
    anchor: Span  # the patch's entry in its kustomization
    column_shift: int = 0  # an inline patch's indentation in the kustomization
    json6902: bool = False
    selected: list[int] = field(default_factory=list)  # the documents that patch this object


@dataclass
class Placement:
    """What acts on one rendered object of one root."""

    root: Kustomization
    chain: list[Kustomization]  # from the kustomization that lists the resource up to the root
    source_doc: Document | None  # the document of the resource file
    patches: list[AppliedPatch] = field(default_factory=list)  # in application order
    generated_in: Kustomization | None = None  # a generator's object: its kustomization
    origin_file: SourceFile | None = None


class RenderedDocument(Document):
    """A rendered object: its values are the render's, its positions the sources'."""

    placement: Placement
    rendered_text: str

    @property
    def text(self) -> str:
        return self.rendered_text

    @property
    def node(self) -> Any:
        source = self.placement.source_doc
        return source.node if source is not None else None

    def mentions(self, word: str) -> bool:
        return word in self.rendered_text

    def release_data(self) -> None:
        return None  # a render is linted once, as a whole: nothing to drop early

    def locate(self, path: Path, *, key: bool = True) -> Span:
        source = self.placement.source_doc
        if source is None:
            return _entry_span(self.placement.generated_in or self.placement.root, ())
        return source.locate(path, key=key)

    def locate_key(self, path: Path) -> Span:
        source = self.placement.source_doc
        return source.locate_key(path) if source is not None else self.locate(path)

    def moved(self, path: Path, key: bool) -> tuple[SourceFile, int | None, Span] | None:
        """The patch or kustomization that wrote the field at `path`, when not the resource file."""
        placement = self.placement
        for applied in reversed(placement.patches):
            found = _in_patch(applied, self.data, path, key)
            if found is not None:
                return found
        if placement.source_doc is None:
            where = placement.generated_in or placement.root
            return where.source, 0, _entry_span(where, ())
        return _by_transformer(placement, self.data, path)


# --------------------------------------------------------------------------- patches


def applied_patches(
    graph: BuildGraph,
    chain: list[Kustomization],
    data: dict[str, Any],
    source: Any,
    files: dict[str, SourceFile],
    parsed: dict[Patch, AppliedPatch | None],
) -> list[AppliedPatch]:
    """The patches of the chain (components first, then each kustomization's own, innermost
    kustomization first) that select the object; `parsed` keeps each patch read once a run."""
    names, namespaces = _histories(chain, data, source)
    found = []
    for kustomization in chain:
        for owner in [*graph.components_of(kustomization), kustomization]:
            for patch in owner.patches:
                if patch not in parsed:
                    parsed[patch] = _parse_patch(patch, files)
                template = parsed[patch]
                if template is None:
                    continue
                selected = _selected(template, data, names, namespaces)
                if selected:
                    found.append(replace(template, selected=selected))
    return found


def _parse_patch(patch: Patch, files: dict[str, SourceFile]) -> AppliedPatch | None:
    owner = patch.owner
    anchor = _entry_span(owner, patch.path)
    if patch.file is not None:
        source = files.get(patch.file)
        if source is None:
            return None
        values = [doc.data for doc in source.documents]
        docs: list[Document | None] = list(source.documents)
        return AppliedPatch(patch, source, values, docs, anchor, 0, _is_json6902(patch, values))
    assert patch.inline is not None
    shift, first_line = _inline_position(owner, patch.path)
    if first_line is None:
        try:
            values = [value for value in yaml.safe_load_all(patch.inline) if value is not None]
        except yaml.YAMLError:
            return None
        return AppliedPatch(patch, owner.source, values, [None] * len(values), anchor, 0, _is_json6902(patch, values))
    padded = "\n" * (first_line - 1) + patch.inline
    parsed = parse_bytes(owner.source.path, padded.encode("utf-8"))
    values = [doc.data for doc in parsed.documents]
    return AppliedPatch(patch, owner.source, values, list(parsed.documents), anchor, shift, _is_json6902(patch, values))


def _is_json6902(patch: Patch, values: list[Any]) -> bool:
    if patch.json6902 is not None:
        return patch.json6902
    return len(values) == 1 and isinstance(values[0], list)


def _inline_position(owner: Kustomization, path: Path) -> tuple[int, int | None]:
    """(indentation, 1-based first line) of a literal block scalar (`patch: |-`) holding an
    inline patch; (0, None) for another style (positions inside it are not known)."""
    doc = owner.source.documents[0] if owner.source.documents else None
    node = doc.node if doc is not None else None
    for step in path:
        if node is None:
            return 0, None
        node = _child(node, step)
    if not isinstance(node, yaml.ScalarNode) or node.style != "|":
        return 0, None
    first = node.start_mark.line + 1  # 0-based line after the `|` indicator
    lines = owner.source.lines
    for number in range(first, min(len(lines), node.end_mark.line + 1)):
        if lines[number].strip():
            return len(lines[number]) - len(lines[number].lstrip(" ")), first + 1
    return 0, None


def _child(node: Any, step: str | int) -> Any:
    if isinstance(node, yaml.MappingNode):
        return next((value for key, value in node.value if key.value == str(step)), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
        return node.value[step]
    return None


def _histories(chain: list[Kustomization], data: dict[str, Any], source: Any) -> tuple[set[str], set[str | None]]:
    """Every name and namespace the object had along the chain (kustomize matches a patch by any
    of them)."""
    metadata = as_map(as_map(source).get("metadata"))
    name = metadata.get("name")
    namespace = metadata.get("namespace")
    rendered = as_map(data.get("metadata"))
    names = {rendered.get("name")}
    namespaces: set[str | None] = {rendered.get("namespace"), namespace}
    if isinstance(name, str):
        names.add(name)
        for kustomization in chain:
            prefix, suffix = _text(kustomization.data.get("namePrefix")), _text(kustomization.data.get("nameSuffix"))
            name = f"{prefix}{name}{suffix}"
            names.add(name)
            namespaces.add(_text(kustomization.data.get("namespace")) or None)
    return {item for item in names if isinstance(item, str)}, namespaces


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _selected(applied: AppliedPatch, data: dict[str, Any], names: set[str], namespaces: set[str | None]) -> list[int]:
    """The patch's documents that act on the object: all of a targeted patch, else the strategic
    merge documents naming it (a JSON 6902 patch needs a target)."""
    target = applied.patch.target
    if target is not None:
        return list(range(len(applied.documents))) if _target_matches(target, data, names, namespaces) else []
    if applied.json6902:
        return []
    return [n for n, value in enumerate(applied.documents) if _smp_names_object(value, data, names, namespaces)]


def _smp_names_object(patch: Any, data: dict[str, Any], names: set[str], namespaces: set[str | None]) -> bool:
    if not isinstance(patch, dict) or patch.get("kind") != data.get("kind"):
        return False
    metadata = as_map(patch.get("metadata"))
    if metadata.get("name") not in names:
        return False
    return "namespace" not in metadata or metadata.get("namespace") in namespaces


def _target_matches(target: dict[str, Any], data: dict[str, Any], names: set[str], namespaces: set[str | None]) -> bool:
    group, _, version = str(data.get("apiVersion", "")).rpartition("/")
    checks = (
        ("kind", lambda want: want == data.get("kind")),
        ("group", lambda want: want == group),
        ("version", lambda want: want == version),
        ("name", lambda want: any(_regex(want, name) for name in names)),
        ("namespace", lambda want: any(_regex(want, ns or "") for ns in namespaces)),
        ("labelSelector", lambda want: _selector(want, _meta_map(data, "labels"))),
        ("annotationSelector", lambda want: _selector(want, _meta_map(data, "annotations"))),
    )
    return all(check(target[name]) for name, check in checks if isinstance(target.get(name), str) and target[name])


def _regex(pattern: str, value: str) -> bool:
    try:
        return re.fullmatch(pattern, value) is not None
    except re.error:
        return pattern == value


def _meta_map(data: dict[str, Any], name: str) -> dict[str, Any]:
    return as_map(as_map(data.get("metadata")).get(name))


def _selector(text: str, values: dict[str, Any]) -> bool:
    """An equality selector (`a=b,c!=d,e`); a set-based one is taken as matching."""
    for part in (part.strip() for part in text.split(",")):
        if not part:
            continue
        if " in " in part or " notin " in part or "(" in part:
            continue
        if "!=" in part:
            key, _, value = part.partition("!=")
            if str(values.get(key.strip())) == value.strip():
                return False
        elif "=" in part:
            key, _, value = part.replace("==", "=").partition("=")
            if str(values.get(key.strip())) != value.strip():
                return False
        elif part.startswith("!"):
            if part[1:] in values:
                return False
        elif part not in values:
            return False
    return True


def _in_patch(applied: AppliedPatch, data: Any, path: Path, key: bool) -> tuple[SourceFile, int | None, Span] | None:
    if applied.json6902:
        return _in_json6902(applied, data, path, key)
    if tuple(path[:1]) in _IDENTITY or tuple(path[:2]) in _IDENTITY:
        return None  # a strategic merge patch names its target there; it sets nothing
    for number in applied.selected:
        found = _smp_path(applied.documents[number], data, path)
        if found is not None:
            return _at(applied, number, found, key)
    return None


def _smp_path(patch: Any, rendered: Any, path: Path) -> Path | None:
    """The path in a strategic merge patch that writes `path` of the rendered object (list items
    matched by their merge key), or None when the patch does not write it."""
    found: list[str | int] = []
    for step in path:
        if isinstance(step, int):
            if not isinstance(patch, list) or not isinstance(rendered, list) or not 0 <= step < len(rendered):
                return None
            item = rendered[step]
            position = _matching_item(patch, item, step)
            if position is None:
                return None
            found.append(position)
            patch, rendered = patch[position], item
        else:
            if not isinstance(patch, dict) or step not in patch:
                return None
            found.append(step)
            patch = patch[step]
            rendered = rendered.get(step) if isinstance(rendered, dict) else None
    return tuple(found)


def _matching_item(items: list[Any], wanted: Any, position: int) -> int | None:
    if isinstance(wanted, dict):
        for merge_key in _MERGE_KEYS:
            if merge_key in wanted:
                for number, item in enumerate(items):
                    if isinstance(item, dict) and item.get(merge_key) == wanted[merge_key]:
                        return number
                return None
    return position if position < len(items) else None


def _in_json6902(applied: AppliedPatch, data: Any, path: Path, key: bool) -> tuple[SourceFile, int | None, Span] | None:
    operations = applied.documents[0] if applied.documents and isinstance(applied.documents[0], list) else []
    for number in range(len(operations) - 1, -1, -1):
        operation = operations[number]
        if not isinstance(operation, dict) or not isinstance(operation.get("path"), str):
            continue
        steps = _pointer(operation["path"], data)
        if steps is None or tuple(path[: len(steps)]) != steps:
            continue
        op = operation.get("op")
        if op in ("add", "replace") and "value" in operation:
            inner = _smp_path(operation["value"], dig(data, *steps), path[len(steps) :])
            where: Path = (number, "value", *(inner or ()))
            return _at(applied, 0, where, key)
        if op in ("copy", "move", "remove") or steps == tuple(path):
            return _at(applied, 0, (number, "path"), True)
    return None


def _pointer(pointer: str, data: Any) -> tuple[str | int, ...] | None:
    """A JSON pointer as a field path (`-`, the end of a list, is its last item once rendered)."""
    if not pointer.startswith("/"):
        return None
    steps: list[str | int] = []
    current = data
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, list):
            index = len(current) - 1 if part == "-" else int(part) if part.isdigit() else None
            if index is None:
                return None
            steps.append(index)
            current = current[index] if 0 <= index < len(current) else None
        else:
            steps.append(part)
            current = current.get(part) if isinstance(current, dict) else None
    return tuple(steps)


def _at(applied: AppliedPatch, number: int, path: Path, key: bool) -> tuple[SourceFile, int | None, Span]:
    doc = applied.docs[number] if number < len(applied.docs) else None
    if doc is None:
        return applied.file, 0, applied.anchor
    span = doc.locate(path, key=key)
    if applied.column_shift:
        shift = applied.column_shift
        span = Span(span.line, span.column + shift, span.end_line, span.end_column + shift)
    return applied.file, (doc.index if applied.patch.file is not None else 0), span


# --------------------------------------------------------------------------- transformers


def _by_transformer(placement: Placement, data: Any, path: Path) -> tuple[SourceFile, int | None, Span] | None:
    source = placement.source_doc.data if placement.source_doc is not None else None
    rendered = dig(data, *path)
    original = dig(source, *path)
    if rendered == original:
        return None
    fields = _TRANSFORMED.get((str(path[0]), str(path[1]))) if len(path) == 2 else None
    if fields is None and path and path[-1] == "image":
        fields = ("images",)
    elif fields is None and len(path) >= 2 and path[-2] == "labels":
        fields = ("labels", "commonLabels")
    elif fields is None and len(path) >= 2 and path[-2] == "annotations":
        fields = ("commonAnnotations",)
    elif fields is None and isinstance(rendered, str) and isinstance(original, str) and original in rendered:
        fields = ("namePrefix", "nameSuffix")  # a name reference renamed with its target
    if fields is None:
        return None
    for kustomization in reversed(placement.chain):  # the last to act wrote the value
        for name in fields:
            if name in kustomization.data:
                return kustomization.source, 0, _entry_span(kustomization, (name,))
    return None


def _entry_span(kustomization: Kustomization, path: Path) -> Span:
    doc = kustomization.source.documents[0] if kustomization.source.documents else None
    return doc.locate(path) if doc is not None else Span(1, 1, 1, 1)


def display_path(real: str, run_paths: dict[str, str]) -> str:
    """A file as the run names it: its path among the run's files, else relative to the current
    folder (absolute when outside it)."""
    if real in run_paths:
        return run_paths[real]
    relative = os.path.relpath(real)
    return real if relative.startswith("..") else relative
