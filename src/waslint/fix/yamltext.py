"""Reading a YAML text through its libyaml nodes: lookups by path, exact spans, styles, comments.

Every position here is a `mark.index` of the text the loader parsed: a code-point offset (CRLF
counts two), the same offsets Python string slicing uses. Block collections end (in libyaml) at
the next token, after any trailing comments, so `content_end` walks to the last scalar or flow
collection instead.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import yaml

from waslint.core.model import Path

MERGE_TAG = "tag:yaml.org,2002:merge"
_PROPERTY = re.compile(r"(?:[&!][^\s]*\s+)+")
_PLAIN_SAFE = re.compile(r"^[A-Za-z_][A-Za-z0-9._/-]*$")
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", ".nan", ".inf"})


class Unfixable(Exception):
    """The text cannot be edited safely at this place; the message says why (for the user)."""


@dataclass(frozen=True)
class Located:
    """A field found by path: its key node (None for a list item), its value, its parent."""

    key: yaml.Node | None
    value: yaml.Node
    parent: yaml.Node


def child(node: yaml.Node, step: str | int) -> tuple[yaml.Node | None, yaml.Node] | None:
    """The direct child of a mapping (by key) or sequence (by index). Merge keys are not followed."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(step):
                return key_node, value_node
        return None
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
        return None, node.value[step]
    return None


def locate(root: yaml.Node, path: Path) -> Located:
    """The node at `path`, following only keys written in the mapping itself."""
    if not path:
        raise Unfixable("empty path")
    node = root
    found: tuple[yaml.Node | None, yaml.Node] | None = None
    parent = root
    for step in path:
        parent = node
        found = child(node, step)
        if found is None:
            if isinstance(node, yaml.MappingNode) and any(k.tag == MERGE_TAG for k, _ in node.value):
                raise Unfixable("the field comes from a YAML merge key (<<); fix it by hand")
            raise Unfixable(f"field {step!r} not found in the text")
        node = found[1]
    assert found is not None
    return Located(found[0], found[1], parent)


def shared_nodes(root: yaml.Node) -> set[yaml.Node]:
    """The nodes reachable more than once (YAML anchors used by aliases), with descendants."""
    visits: Counter[yaml.Node] = Counter()
    repeated: list[yaml.Node] = []

    def walk(node: yaml.Node) -> None:
        visits[node] += 1
        if visits[node] > 1:
            if visits[node] == 2:
                repeated.append(node)
            return
        for sub in _children(node):
            walk(sub)

    walk(root)
    shared: set[yaml.Node] = set()
    stack = list(repeated)
    while stack:
        node = stack.pop()
        if node not in shared:
            shared.add(node)
            stack.extend(_children(node))
    return shared


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def path_nodes(root: yaml.Node, path: Path) -> list[yaml.Node]:
    """Every node from the root to the value at `path` (keys included)."""
    nodes = [root]
    node = root
    for step in path:
        found = child(node, step)
        if found is None:
            break
        if found[0] is not None:
            nodes.append(found[0])
        node = found[1]
        nodes.append(node)
    return nodes


# --------------------------------------------------------------------------- spans


def content_end(node: yaml.Node, text: str) -> int:
    """Offset just after the node's last character of content (not its trailing comments)."""
    if isinstance(node, yaml.ScalarNode):
        end: int = node.end_mark.index
        if node.style in ("|", ">"):
            while end > node.start_mark.index and text[end - 1] in "\r\n \t":
                end -= 1
        return end
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        if node.flow_style or not node.value:
            flow_end: int = node.end_mark.index
            return flow_end
        last = node.value[-1]
        if isinstance(node, yaml.MappingNode):
            last = last[1]
            key_end = content_end(node.value[-1][0], text)
            if isinstance(last, yaml.ScalarNode) and last.end_mark.index <= key_end:
                return key_end  # `key:` with an empty value
        return content_end(last, text)
    raise Unfixable(f"unexpected node {type(node).__name__}")


def line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def next_line_start(text: str, offset: int) -> int:
    """Offset of the line after the one holding `offset` (len(text) on the last line)."""
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def line_end(text: str, offset: int) -> int:
    """Offset of the line break (or end of text) of the line holding `offset`."""
    newline = text.find("\n", offset)
    if newline < 0:
        return len(text)
    return newline - 1 if newline > 0 and text[newline - 1] == "\r" else newline


def eol_of(text: str) -> str:
    """The dominant line break of a text: CRLF when most lines end with it."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"


def comment_in(fragment: str) -> str | None:
    """The `# ...` comment in a text between tokens (no quotes there), or None."""
    match = re.search(r"(?:^|[ \t])(#.*)$", fragment, re.MULTILINE)
    return match.group(1).rstrip("\r") if match else None


def comments_between(text: str, start: int, end: int, scalars: list[tuple[int, int]]) -> list[str]:
    """Comments written in text[start:end], outside the given scalar spans (sorted, disjoint)."""
    found: list[str] = []
    cursor = start
    for s, e in [*scalars, (end, end)]:
        if s > cursor:
            gap = text[cursor : min(s, end)]
            for line in gap.split("\n"):
                comment = comment_in(line)
                if comment:
                    found.append(comment)
        cursor = max(cursor, e)
        if cursor >= end:
            break
    return found


def scalar_spans(node: yaml.Node) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []

    def walk(item: yaml.Node) -> None:
        if isinstance(item, yaml.ScalarNode):
            spans.append((item.start_mark.index, item.end_mark.index))
        elif isinstance(item, yaml.MappingNode):
            for key_node, value_node in item.value:
                walk(key_node)
                walk(value_node)
        elif isinstance(item, yaml.SequenceNode):
            for sub in item.value:
                walk(sub)

    walk(node)
    spans.sort()
    return spans


def in_flow(root: yaml.Node, path: Path) -> bool:
    """Whether the value at `path` sits inside a flow collection ({...} or [...])."""
    node = root
    for step in path:
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.flow_style:
            return True
        found = child(node, step)
        if found is None:
            return False
        node = found[1]
    return False


def indent_step(root: yaml.Node) -> int:
    """The document's indentation step: how far a nested block mapping sits under its key."""
    steps: Counter[int] = Counter()
    stack = [root]
    while stack and sum(steps.values()) < 64:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if (
                    isinstance(value_node, yaml.MappingNode)
                    and not value_node.flow_style
                    and value_node.value
                    and value_node.start_mark.line > key_node.start_mark.line
                ):
                    diff = value_node.start_mark.column - key_node.start_mark.column
                    if 0 < diff <= 8:
                        steps[diff] += 1
                stack.append(value_node)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return steps.most_common(1)[0][0] if steps else 2


# --------------------------------------------------------------------------- scalars


def split_properties(fragment: str) -> tuple[str, str]:
    """`&a !!str "x"` -> (`&a !!str `, `"x"`): anchors and tags written before a scalar."""
    match = _PROPERTY.match(fragment)
    if match is None:
        return "", fragment
    return fragment[: match.end()], fragment[match.end() :]


def render_scalar(value: str, like: str, json_mode: bool) -> str:
    """`value` written in the quoting style of the scalar text `like` (plain when safe)."""
    if json_mode:
        return json_string(value)
    first = like[:1]
    if first == "'":
        return "'" + value.replace("'", "''") + "'"
    if first == '"':
        return json_string(value)
    return plain_or_quoted(value)


def plain_or_quoted(value: str) -> str:
    if _PLAIN_SAFE.match(value) and value.lower() not in _YAML_WORDS and not _looks_numeric(value):
        return value
    return json_string(value)


def _looks_numeric(value: str) -> bool:
    try:
        float(value.replace("_", ""))
    except ValueError:
        return value.startswith(("0x", "0o", "0b")) or ":" in value
    return True


def json_string(value: str) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)
