"""Helpers for the fix tests (imported by them), checked here on small examples.

They are independent of the fixer's own position code: the lines a fix may touch are derived
from a structural diff of the parsed input and output, mapped to the input's libyaml nodes.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

import kubernetes_validate
import yaml

Path = tuple[Any, ...]
WAS_GROUP = "scheduling.k8s.io"


def decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    return data.decode("utf-8-sig")


def readable(text: str) -> str:
    """A Helm template as YAML: its actions masked (same offsets, see io/helm.py)."""
    from waslint.io.helm import mask_template

    masked = mask_template(text) if "{{" in text else None
    return masked.text if masked is not None else text


def documents(data: bytes) -> list[Any]:
    text = readable(decode(data))
    if text.lstrip().startswith(("{", "[")):
        return [json.loads(text)]
    return [doc for doc in yaml.load_all(text, Loader=yaml.CSafeLoader) if doc is not None]


def objects(docs: list[Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        if str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            found.extend(item for item in doc["items"] if isinstance(item, dict))
        else:
            found.append(doc)
    return found


def strict_problems(after: bytes, before: bytes, exempt: set[str] = frozenset()) -> list[str]:
    """kubernetes-validate 1.37 strict errors of the objects the fix changed or added."""
    old = objects(documents(before))
    problems = []
    for obj in objects(documents(after)):
        if obj in old:
            continue
        name = (obj.get("metadata") or {}).get("name")
        if name in exempt:
            continue
        try:
            kubernetes_validate.validate(obj, "1.37.0", strict=True)
        except kubernetes_validate.ValidationError as err:
            problems.append(f"{obj.get('kind')} {name}: {err.message}")
    return problems


def changed_input_lines(before: bytes, after: bytes) -> set[int]:
    """1-based lines of the input that a line diff shows as changed or removed."""
    old = decode(before).splitlines(keepends=True)
    new = decode(after).splitlines(keepends=True)
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(i1 + 1, i2 + 1))
    return changed


def _diff_paths(a: Any, b: Any, path: Path) -> list[Path]:
    if isinstance(a, dict) and isinstance(b, dict):
        found: list[Path] = []
        for key in a:
            if key not in b:
                found.append((*path, key))
            else:
                found.extend(_diff_paths(a[key], b[key], (*path, key)))
        if list(k for k in a if k in b) != list(k for k in b if k in a):
            found.append(path)  # keys reordered: the whole mapping
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _diff_paths(x, y, (*path, i))]
    if type(a) is not type(b) or a != b:
        return [path]
    return []


def _last_line(node: yaml.Node) -> int:
    """0-based line of the node's last content character."""
    if isinstance(node, yaml.ScalarNode):
        end = node.end_mark
        return end.line - 1 if end.column == 0 and end.line > node.start_mark.line else end.line
    if node.flow_style or not node.value:
        return node.end_mark.line
    last = node.value[-1]
    return _last_line(last[1] if isinstance(node, yaml.MappingNode) else last)


def _lines_at(root: yaml.Node, path: Path) -> set[int]:
    node = root
    start = root.start_mark.line
    for step in path:
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if k.value == str(step)), None)
            if pair is None:
                break
            start, node = pair[0].start_mark.line, pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            node = node.value[step]
            start = node.start_mark.line
        else:
            break
    return set(range(start + 1, _last_line(node) + 2))


def node_lines_of_changes(before: bytes, after: bytes) -> set[int]:
    """1-based input lines of the nodes whose value differs between input and output."""
    text = readable(decode(before))
    roots = [n for n in yaml.compose_all(text, Loader=yaml.CSafeLoader) if n is not None]
    old_docs = [yaml.load(yaml.serialize(n), Loader=yaml.CSafeLoader) for n in roots]
    new_docs = documents(after)
    # Align the documents: the fix may add documents (WAS105), never removes or reorders them.
    keys_old = [_identity(d) for d in old_docs]
    keys_new = [_identity(d) for d in new_docs]
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(a=keys_old, b=keys_new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                for path in _diff_paths(old_docs[i], new_docs[j], ()):
                    lines |= _lines_at(roots[i], path)
        elif tag in ("replace", "delete"):
            raise AssertionError(f"documents replaced or removed: {keys_old[i1:i2]}")
    return lines


def _identity(doc: Any) -> tuple[str, str]:
    if not isinstance(doc, dict):
        return ("", repr(doc)[:40])
    return (str(doc.get("kind")), str((doc.get("metadata") or {}).get("name")))


# --------------------------------------------------------------------------- the helpers' own tests


def test_changed_lines_and_node_lines() -> None:
    before = b"a: 1\nb:\n  c: Pod  # x\n  d: 2\n"
    after = b"a: 1\nb:\n  c:\n    single: {}  # x\n  d: 2\n"
    assert changed_input_lines(before, after) == {3}
    assert node_lines_of_changes(before, after) == {3}


def test_strict_problems_reports_invalid_changed_objects() -> None:
    before = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
    after = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nbogus: 1\n"
    assert strict_problems(after, before)
    assert strict_problems(before, before) == []
