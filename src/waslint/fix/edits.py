"""Operations -> minimal text edits at libyaml node positions.

Every edit replaces a range of the original text that lies inside the nodes an operation
changes; everything else (comments, quoting, indentation, blank lines, separators, other
documents, line endings) is left byte for byte. New text is written in the style of the place it
goes: block or flow, the document's indentation step, JSON quoting in JSON files, the file's
line break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from waslint.core.model import Path
from waslint.fix.yamltext import (
    Located,
    Unfixable,
    comment_in,
    comments_between,
    content_end,
    in_flow,
    json_string,
    line_end,
    line_start,
    locate,
    next_line_start,
    path_nodes,
    plain_or_quoted,
    render_scalar,
    scalar_spans,
    split_properties,
)
from waslint.lint.fixers.ops import DeleteKey, Hoist, Op, RenameKey, ReplaceValue, SetScalar


@dataclass(frozen=True, order=True)
class Edit:
    start: int
    end: int
    text: str
    seq: int = 0  # keeps insertions at one offset in the order they were made


class EditConflict(Exception):
    """Two edits overlap: a planner bug."""


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits (duplicates are merged)."""
    unique = sorted(set(edits), key=lambda e: (e.start, e.end, e.seq))
    out: list[str] = []
    cursor = 0
    for edit in unique:
        if edit.start < cursor:
            raise EditConflict(f"overlapping edits at offset {edit.start}")
        out.append(text[cursor : edit.start])
        out.append(edit.text)
        cursor = edit.end
    out.append(text[cursor:])
    return "".join(out)


@dataclass
class DocText:
    """What the edit builders need to know about one document."""

    text: str
    root: yaml.Node
    json_mode: bool
    eol: str
    step: int
    shared: set[yaml.Node] = field(default_factory=set)


def edits_for(op: Op, doc: DocText) -> list[Edit]:
    nodes = path_nodes(doc.root, op.path)
    if isinstance(op, RenameKey):
        nodes = nodes[:-1]  # renaming a key leaves its (perhaps aliased) value alone
    if any(node in doc.shared for node in nodes):
        raise Unfixable("the value is shared through a YAML anchor and alias: fix it by hand")
    found = locate(doc.root, op.path)
    if isinstance(op, SetScalar):
        return [_set_scalar(found.value, op.value, doc)]
    if isinstance(op, RenameKey):
        if found.key is None:
            raise Unfixable("not a mapping key")
        return [_set_scalar(found.key, op.new, doc)]
    if isinstance(op, ReplaceValue):
        return _replace_value(found, op.path, op.value, doc)
    if isinstance(op, DeleteKey):
        return _delete_key(found, doc)
    if isinstance(op, Hoist):
        return _hoist(found, op.child, doc)
    raise Unfixable(f"unknown operation {op!r}")


# --------------------------------------------------------------------------- scalars


def _set_scalar(node: yaml.Node, value: str, doc: DocText) -> Edit:
    if not isinstance(node, yaml.ScalarNode):
        raise Unfixable("expected a scalar")
    start = node.start_mark.index
    end = content_end(node, doc.text)
    prefix, body = split_properties(doc.text[start:end])
    if body[:1] in ("|", ">"):
        body = '"'  # a block scalar becomes a double-quoted one
    return Edit(start, end, prefix + render_scalar(value, body, doc.json_mode))


# --------------------------------------------------------------------------- new values


def flow_text(value: Any, json_mode: bool) -> str:
    """`{all: {}}` (YAML) or `{"all": {}}` (JSON)."""
    if isinstance(value, dict):
        key = json_string if json_mode else plain_or_quoted
        parts = [f"{key(str(k))}: {flow_text(v, json_mode)}" for k, v in value.items()]
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow_text(v, json_mode) for v in value) + "]"
    return _scalar_text(value, json_mode)


def _scalar_text(value: Any, json_mode: bool) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json_string(str(value)) if json_mode else plain_or_quoted(str(value))


def block_lines(value: dict[str, Any], step: int) -> list[str]:
    """A mapping as block lines, relative to column 0; empty or scalar values stay inline."""
    lines: list[str] = []
    for key, item in value.items():
        name = plain_or_quoted(str(key))
        if isinstance(item, dict) and item:
            lines.append(f"{name}:")
            lines.extend(" " * step + line for line in block_lines(item, step))
        elif isinstance(item, list) and item:
            lines.append(f"{name}:")
            for element in item:
                if isinstance(element, dict) and element:
                    sub = block_lines(element, step)
                    lines.append("- " + sub[0])
                    lines.extend("  " + line for line in sub[1:])
                else:
                    lines.append("- " + flow_text(element, False))
        else:
            lines.append(f"{name}: {flow_text(item, False)}")
    return lines


def _replace_value(found: Located, path: Path, value: Any, doc: DocText) -> list[Edit]:
    old = found.value
    key = found.key
    text = doc.text
    start = old.start_mark.index
    end = content_end(old, text)
    flow = doc.json_mode or in_flow(doc.root, path)
    if isinstance(old, (yaml.MappingNode, yaml.SequenceNode)) and old.flow_style:
        flow = True
    if flow or not isinstance(value, dict) or not value:
        return [Edit(start, end, flow_text(value, doc.json_mode))]
    if key is None:
        raise Unfixable("cannot replace a list item in block style")
    if isinstance(old, yaml.MappingNode) and old.value and old.start_mark.line > key.start_mark.line:
        # A block mapping on its own lines: write the new one at the same column, keeping the
        # comments that were inside the old one above the new content.
        column = old.start_mark.column
        comments = comments_between(text, start, end, scalar_spans(old))
        lines = comments + block_lines(value, doc.step)
        joiner = doc.eol + " " * column
        return [Edit(start, end, joiner.join(lines))]
    gap = text[key.end_mark.index : start]
    if "\n" in gap:
        # The value sits on a line of its own: the new mapping goes at its column.
        column = old.start_mark.column
        joiner = doc.eol + " " * column
        return [Edit(start, end, joiner.join(block_lines(value, doc.step)))]
    if not re.fullmatch(r"[ \t]*:[ \t]*", gap):
        raise Unfixable("unusual text between the key and its value")
    column = key.start_mark.column + doc.step
    lines = block_lines(value, doc.step)
    new = ":" + "".join(doc.eol + " " * column + line for line in lines)
    return [Edit(key.end_mark.index, end, new)]


# --------------------------------------------------------------------------- deletion


def _delete_key(found: Located, doc: DocText) -> list[Edit]:
    parent = found.parent
    key = found.key
    if key is None or not isinstance(parent, yaml.MappingNode):
        raise Unfixable("not a mapping key")
    text = doc.text
    pairs = parent.value
    position = next(i for i, (k, _) in enumerate(pairs) if k is key)
    value_end = content_end(found.value, text)
    nxt = pairs[position + 1][0] if position + 1 < len(pairs) else None
    if parent.flow_style or doc.json_mode:
        if nxt is not None:
            start, end = key.start_mark.index, nxt.start_mark.index
        elif position == 0:
            raise Unfixable("cannot remove the only key of a mapping")
        else:
            start, end = content_end(pairs[position - 1][1], text), value_end
        if comment_in(text[value_end:end]) or comment_in(text[start : key.start_mark.index]):
            raise Unfixable("a comment sits inside the flow mapping next to the field")
        return [Edit(start, end, "")]
    begin = line_start(text, key.start_mark.index)
    if text[begin : key.start_mark.index].strip() == "":
        # The pair owns whole lines: remove them (with their trailing comment).
        end = next_line_start(text, value_end)
        if end == len(text) and not text.endswith("\n") and begin > 0:
            # The last line of a file without a final line break: the break before it goes
            # (with blank lines just before it), so the file still ends without one.
            while begin > 0:
                previous = line_start(text, begin - 1)
                if text[previous:begin].strip() or previous == 0:
                    break
                begin = previous
            begin -= 2 if text[begin - 2 : begin] == "\r\n" else 1
        return [Edit(begin, end, "")]
    if nxt is None:
        raise Unfixable("cannot remove the only key of a list item")
    # `- priority: 7` starting a list item: the next key moves up behind the dash, unless
    # comments or blank lines sit between them; then the dash stays alone on its line.
    after = next_line_start(text, value_end)
    if after <= nxt.start_mark.index and not text[after : nxt.start_mark.index].strip(" "):
        return [Edit(key.start_mark.index, nxt.start_mark.index, "")]
    begin = key.start_mark.index
    while begin > 0 and text[begin - 1] == " ":
        begin -= 1
    return [Edit(begin, line_end(text, value_end), "")]


# --------------------------------------------------------------------------- hoisting


def _hoist(found: Located, child_key: str, doc: DocText) -> list[Edit]:
    """`ref: {workload: X}` -> `ref: X`, in block style by removing the `workload:` line and
    dedenting X's lines, so comments inside X stay where they are."""
    outer = found.value
    key = found.key
    text = doc.text
    if key is None or not isinstance(outer, yaml.MappingNode) or len(outer.value) != 1:
        raise Unfixable(f"expected a mapping holding only {child_key!r}")
    inner_key, inner = outer.value[0]
    if not isinstance(inner_key, yaml.ScalarNode) or inner_key.value != child_key:
        raise Unfixable(f"expected a mapping holding only {child_key!r}")
    if not isinstance(inner, yaml.MappingNode):
        raise Unfixable(f"{child_key!r} is not a mapping")
    inner_start = inner.start_mark.index
    inner_end = content_end(inner, text)
    outer_end = content_end(outer, text)
    if outer.flow_style or doc.json_mode:
        before = text[outer.start_mark.index : inner_start]
        after = text[inner_end:outer_end]
        if "#" in before or "#" in after:
            raise Unfixable("comments inside a flow mapping")
        return [Edit(outer.start_mark.index, inner_start, ""), Edit(inner_end, outer_end, "")]
    key_gap = text[key.end_mark.index : outer.start_mark.index]
    inner_gap = text[inner_key.end_mark.index : inner_start]
    if inner.flow_style:
        # ref:\n  workload: {a: 1}  ->  ref: {a: 1}
        if comment_in(key_gap) or comment_in(inner_gap) or ":" not in key_gap:
            return [Edit(outer.start_mark.index, inner_start, "")]
        return [Edit(key.end_mark.index, inner_start, ": ")]
    if outer.start_mark.line <= key.start_mark.line:
        raise Unfixable("unexpected layout")
    delta = inner.start_mark.column - outer.start_mark.column
    if delta <= 0:
        raise Unfixable("unexpected indentation")
    edits: list[Edit] = []
    # The `workload:` line goes; a comment on it stays as a line of its own.
    head_start = line_start(text, inner_key.start_mark.index)
    if text[head_start : inner_key.start_mark.index].strip():
        raise Unfixable("unexpected layout")
    head_end = next_line_start(text, inner_key.end_mark.index)
    head_comment = comment_in(text[inner_key.end_mark.index : head_end])
    replacement = ""
    if head_comment:
        replacement = " " * outer.start_mark.column + head_comment + doc.eol
    edits.append(Edit(head_start, head_end, replacement))
    # Dedent every following line up to the end of the inner mapping.
    cursor = head_end
    while cursor < inner_end:
        stop = next_line_start(text, cursor)
        line = text[cursor:stop]
        body = line.rstrip("\r\n")
        leading = len(body) - len(body.lstrip(" "))
        if body.strip() == "":
            pass
        elif leading >= delta:
            edits.append(Edit(cursor, cursor + delta, ""))
        elif not body.lstrip(" ").startswith("#"):
            raise Unfixable("a line is indented less than the mapping it belongs to")
        cursor = stop
    return edits
