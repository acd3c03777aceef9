"""Helm chart templates read at their source positions.

Every template action (`{{ ... }}`, `{{- ... -}}`, comments `{{/* */}}`) is masked into a
placeholder of the same length before parsing, so each node keeps the line and column it has
in the template file. A line that holds nothing but actions (`{{- if .Values.x }}`, `{{ end }}`,
`{{ if .a -}} {{ if .b -}}`, `{{- include "labels" . | nindent 4 }}`) becomes blank, so control
flow does not break the YAML structure; inside a block scalar (`config.yaml: |`) it becomes a
line of the block's content instead (a blank line more indented than the content would set the
block's indentation). An action glued to a key's colon (`issuerRef:{{ include ... }}`) reads as
the key's value. The body of a `define` is not output where it stands, so it reads as blank.
The placeholder character (U+E000, a private-use character YAML reads as text) lets later stages
know a value came from a template: findings that point at one are not reported, and `fix`
declines edits that would touch or copy one.

The branches of one `if`/`with`/`range` ... `else` ... `end` are alternatives, never written
together: `apart(a, b)` tells the loader that two keys of one mapping at offsets a and b are not
always rendered together (alternatives, or one inside a block the other is not in), so not a
certain duplicate key. `construct_at` names the action whose block holds an
offset, for the wording of a WAS001 the masked text still has.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import field

import yaml

from waslint.core.records import dataclass
from waslint.io.helmtext import CHART_FILE, PLACEHOLDER

# An action may span lines (Go allows newlines inside actions), but never holds another `{{`.
_ACTION = re.compile(r"\{\{(?:(?!\{\{).)*?\}\}", re.DOTALL)
_OPENERS = frozenset({"if", "with", "range", "define", "block"})
_SILENT = frozenset({"if", "with", "range", "define", "block", "else", "end", "break", "continue"})
_WORD = re.compile(r"[A-Za-z_]+")
_ASSIGNMENT = re.compile(r"^\$[\w]*\s*:?=")
# A line that opens a block scalar: `key: |`, `- |-`, `- key: >+`, with an anchor or tag, a comment.
_KEY = re.compile(r"^[ ]*(?:-[ ]+)*[A-Za-z_][\w./-]*$")
_ITEM_ACTION = re.compile("^[ ]*- [ ]*" + PLACEHOLDER + "+[ ]*$")
_KEY_LINE = re.compile(r"^[ ]*[^\s#-][^:#]*:(?:[ ]|$)")
_BLOCK_SCALAR = re.compile(
    r"^(?P<lead>[ ]*(?:-[ ]+)*)(?:(?P<key>[^\s#][^#]*?):[ ]+)?(?:[&!]\S*[ ]+)*[|>][1-9+-]{0,2}[ ]*(?:#.*)?$"
)


@dataclass(frozen=True)
class Branch:
    """One alternative of an `if`/`with`/`range` block: [start, end) offsets in the template."""

    start: int
    end: int
    construct: int  # which block (its position among the template's blocks)
    number: int  # 0 for the first branch, 1 after the first `else`, ...


@dataclass(frozen=True)
class MaskedTemplate:
    text: str  # the masked text: same length, same line breaks as the template
    ranges: tuple[tuple[int, int], ...]  # [start, end) offsets of the actions in the template
    _line_starts: list[int] = field(default_factory=list, compare=False, repr=False)
    branches: tuple[Branch, ...] = ()
    # (start offset of the opening action, its text) of each block, by construct number
    openers: tuple[tuple[int, str], ...] = ()
    # 1-based lines that held only actions writing output (`include`, `toYaml`, `.Values.x`),
    # each with its indentation: text a mapping may get there that the masked view cannot see
    writers: tuple[tuple[int, int], ...] = ()
    source: str = field(default="", compare=False, repr=False)

    def offset(self, line: int, column: int) -> int:
        """Offset of a 1-based line and column."""
        starts = self._line_starts
        index = min(max(line - 1, 0), len(starts) - 1)
        return starts[index] + column - 1

    def touches(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps an action (an empty range: whether it lies inside one)."""
        position = bisect.bisect_right(self.ranges, (start, len(self.text) + 1)) - 1
        for action_start, action_end in self.ranges[max(position, 0) : position + 2]:
            if action_start < max(end, start + 1) and start < action_end:
                return True
        return False

    def _path(self, offset: int) -> dict[int, int]:
        return {branch.construct: branch.number for branch in self.branches if branch.start <= offset < branch.end}

    def apart(self, first: int, second: int) -> bool:
        """Whether the offsets are not always rendered together: they lie in different branches
        of one block (alternatives), or one lies in a block (an `if`, a `with`) the other is not in.
        A key written at both is a duplicate only on some renders, if any: not a certain one."""
        return self._path(first) != self._path(second)

    def construct_at(self, offset: int) -> str | None:
        """Where `offset` stands among the template's actions, in words: inside the innermost
        block that holds it, else at (or after) the last action before it on its line or the
        line above; None when there is none."""
        holding = [branch for branch in self.branches if branch.start <= offset < branch.end]
        if holding:
            start, text = self.openers[max(holding, key=lambda branch: branch.start).construct]
            return f"inside `{_one_line(text)}` (line {self._line_of(start)})"
        line = self._line_of(offset)
        before = [(start, end) for start, end in self.ranges if start < offset and self._line_of(start) >= line - 1]
        if not before:
            return None
        start, end = before[-1]
        action = _one_line(self.source[start:end])
        at = self._line_of(start)
        return f"at `{action}`" if at == line else f"after `{action}` (line {at})"

    def writes_below(self, line: int, column: int) -> bool:
        """Whether an action that writes output stands on a line of its own inside the block of
        the key at (line, column): the mapping there may hold keys the masked view cannot see."""
        indent = column - 1
        below = [(at, depth) for at, depth in self.writers if at > line and depth > indent]
        if not below:
            return False
        lines = self.text.splitlines()
        for number in range(line + 1, min(max(at for at, _ in below), len(lines)) + 1):
            body = lines[number - 1]
            if body.strip() and _indent(body) <= indent:
                return False  # the key's block ended before the action
            if any(at == number for at, _ in below):
                return True
        return False

    def _line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._line_starts, offset)


# How the branches of if/else blocks are read: all of them at once (the union: findings in every
# branch), else, when that is not YAML (the branches continue the structure in ways that do not
# fit together), only the first branch of each block, else only the last one. A block without an
# `else` is read in every view: an error inside it is an error whenever it renders.
VIEWS = ("union", "first", "last")


def mask_template(text: str, view: str = "union") -> MaskedTemplate | None:
    """The masked text, or None when `text` holds no template action."""
    ranges = tuple((match.start(), match.end()) for match in _ACTION.finditer(text))
    if not ranges:
        return None
    blocks = _Blocks(text, ranges)
    chars = list(text)
    for start, end in [*ranges, *blocks.hidden, *blocks.left_out(view)]:
        line_start = False
        for position in range(start, end):
            char = chars[position]
            if char in "\r\n":
                line_start = True
            elif line_start and char in " \t":
                chars[position] = " "  # an action's lines keep their indentation
            else:
                line_start = False
                chars[position] = PLACEHOLDER
    for start, end in ranges:  # `key:{{ include ... | nindent 4 }}`: the action is the key's value
        if start > 0 and text[start - 1] == ":" and chars[start] == PLACEHOLDER and _glued_value(text, start, end):
            chars[start] = " "
    masked = "".join(chars)
    lines = masked.splitlines(keepends=True)
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line)
    if not starts or masked.endswith("\n"):
        starts.append(offset)
    hidden = [*blocks.hidden, *blocks.left_out(view)]
    shown_ranges = tuple(r for r in ranges if not any(start <= r[0] < end for start, end in hidden))
    out, writers = _blank_action_lines(lines, starts, shown_ranges, text)
    return MaskedTemplate(
        "".join(out), ranges, starts, tuple(blocks.branches), tuple(blocks.openers), tuple(writers), text
    )


def _one_line(action: str) -> str:
    return " ".join(action.split())


def _glued_value(text: str, start: int, end: int) -> bool:
    """Whether an action right after a colon writes that key's value on new lines (`issuerRef:{{
    include "x" . | nindent 4 }}` renders `issuerRef:` then the lines): the action ends its line,
    starts its output with a newline (`nindent`), and the colon ends a key (`issuerRef`, not
    `- --addr=:{{ .port }}` or `image: {{ .repo }}:{{ .tag }}`, which render one string)."""
    line_end = text.find("\n", end)
    if text[end : len(text) if line_end < 0 else line_end].strip() or "nindent" not in text[start:end]:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    return _KEY.match(text[line_start : start - 1]) is not None


def _only_actions(body: str) -> bool:
    content = body.strip()
    return bool(content) and PLACEHOLDER in content and not content.replace(PLACEHOLDER, "").strip()


def _indent(body: str) -> int:
    return len(body) - len(body.lstrip(" "))


def _blank_action_lines(
    lines: list[str], starts: list[int], ranges: tuple[tuple[int, int], ...], text: str
) -> tuple[list[str], list[tuple[int, int]]]:
    """Lines of actions only read as blank, or as content inside a block scalar; the lines of
    actions that write output, with their indentation."""
    bodies = [line.rstrip("\r\n") for line in lines]
    out = list(lines)
    writers: list[tuple[int, int]] = []
    number = 0
    while number < len(bodies):
        body = bodies[number]
        if _only_actions(body):
            if _writes(text, starts[number], starts[number] + len(body), ranges):
                writers.append((number + 1, _indent(body)))
            out[number] = " " * len(body) + lines[number][len(body) :]
            number += 1
            continue
        if _ITEM_ACTION.match(body) and _mapping_follows(bodies, number + 1, body.index("-") + 2):
            last = body.rindex(PLACEHOLDER)  # `- {{ toYaml $x | nindent 8 }}` then its keys: a mapping
            out[number] = out[number][:last] + ":" + out[number][last + 1 :]
        opened = _BLOCK_SCALAR.match(body)
        number += 1
        if opened is not None:
            number = _block_content(bodies, lines, out, number, _parent_indent(opened, body))
    return out, writers


def _mapping_follows(bodies: list[str], first: int, indent: int) -> bool:
    """Whether the next line of content (lines of actions skipped) is a mapping key at `indent`."""
    for body in bodies[first:]:
        if not body.strip() or _only_actions(body):
            continue
        return _indent(body) == indent and _KEY_LINE.match(body) is not None
    return False


def _parent_indent(opened: re.Match[str], body: str) -> int:
    """The indentation a block scalar's content must exceed: its key's column, else its dash's."""
    lead = opened.group("lead")
    if opened.group("key") is not None:
        return len(lead)
    if "-" in lead:
        return len(lead.rstrip(" ")) - 1
    return _indent(body) - 1


def _block_content(bodies: list[str], lines: list[str], out: list[str], first: int, parent: int) -> int:
    """A block scalar's lines from `first`: its lines of actions become content at the block's
    indentation (the least of its other lines); returns the line after the block."""
    end = first
    while end < len(bodies):
        body = bodies[end]
        if body.strip() and not _only_actions(body) and _indent(body) <= parent:
            break
        end += 1
    content = [_indent(bodies[n]) for n in range(first, end) if bodies[n].strip() and not _only_actions(bodies[n])]
    actions = [
        _indent(bodies[n]) for n in range(first, end) if _only_actions(bodies[n]) and _indent(bodies[n]) > parent
    ]
    indent = min(content) if content else min(actions) if actions else None
    for number in range(first, end):
        body = bodies[number]
        if not _only_actions(body):
            continue
        if indent is None or len(body) <= indent:
            out[number] = " " * len(body) + lines[number][len(body) :]
        else:
            out[number] = " " * indent + PLACEHOLDER * (len(body) - indent) + lines[number][len(body) :]
    return end


def _writes(text: str, start: int, end: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    """Whether one of the actions in text[start:end] writes output (not control flow, a comment
    or an assignment)."""
    for action_start, action_end in ranges:
        if start <= action_start < end and _keyword(text[action_start:action_end]) == "":
            return True
    return False


def _keyword(action: str) -> str:
    """The control word of an action (`if`, `else`, `end`, ...), `#` for a comment or an
    assignment, '' for an action that writes output."""
    body = action[2:-2].strip()
    body = body.removeprefix("-").removesuffix("-").strip()
    if body.startswith("/*") or _ASSIGNMENT.match(body):
        return "#"
    word = _WORD.match(body)
    return word.group(0) if word is not None and word.group(0) in _SILENT else ""


class _Blocks:
    """The `if`/`with`/`range`/`define`/`block` ... `end` structure of a template: the branches of
    each block, and the `define` bodies (not output where they stand)."""

    def __init__(self, text: str, ranges: tuple[tuple[int, int], ...]) -> None:
        self.branches: list[Branch] = []
        self.openers: list[tuple[int, str]] = []
        self.hidden: list[tuple[int, int]] = []
        # open blocks: (construct, keyword, start of the current branch, branch number)
        stack: list[tuple[int, str, int, int]] = []
        for start, end in ranges:
            word = _keyword(text[start:end])
            if word in _OPENERS:
                stack.append((len(self.openers), word, end, 0))
                self.openers.append((start, text[start:end]))
            elif word == "else" and stack:
                construct, opener, branch_start, number = stack.pop()
                self.branches.append(Branch(branch_start, start, construct, number))
                stack.append((construct, opener, end, number + 1))
            elif word == "end" and stack:
                construct, opener, branch_start, number = stack.pop()
                if opener == "define":
                    self.hidden.append((branch_start, start))
                else:
                    self.branches.append(Branch(branch_start, start, construct, number))

    def left_out(self, view: str) -> list[tuple[int, int]]:
        """The branches a view does not read: none for the union, the later ones for `first`, the
        earlier ones for `last`."""
        if view == "union":
            return []
        last = {branch.construct: branch.number for branch in self.branches}
        for branch in self.branches:
            last[branch.construct] = max(last[branch.construct], branch.number)
        if view == "first":
            return [(b.start, b.end) for b in self.branches if b.number > 0]
        return [(b.start, b.end) for b in self.branches if b.number < last[b.construct]]


def is_template(path: str, text: str) -> bool:
    """Whether the file is a Helm template, read through its masked text: it lies in a chart's
    `templates/` folder (Helm renders every action there, comments included), or it holds an
    action outside YAML comments. A `{{ }}` in a comment of a plain manifest is only text: the
    file is plain YAML, and `fix` edits it like any other."""
    if "{{" not in text:
        return False
    if in_chart_templates(path):
        return True
    return _action_outside_comments(text)


def in_chart_templates(path: str) -> bool:
    """Whether `path` lies under a `templates` folder beside a `Chart.yaml` (subfolders too)."""
    if "templates" not in path.replace(os.sep, "/").split("/")[:-1]:
        return False
    from pathlib import Path  # pathlib (with urllib.parse) costs 3 ms of a start: only for template paths

    location = Path(path)
    return any(folder.name == "templates" and (folder.parent / CHART_FILE).is_file() for folder in location.parents)


def _action_outside_comments(text: str) -> bool:
    starts = [match.start() for match in _ACTION.finditer(text)]
    for start in starts:  # cheap first: an action with no `#` before it on its line is no comment
        if "#" not in text[text.rfind("\n", 0, start) + 1 : start]:
            return True
    if not starts:
        return False
    # Every action follows a `#` on its line (in a comment, or in a quoted or block scalar):
    # YAML's own scanner tells them apart, as a comment is the only text no token covers.
    try:
        spans = [
            (token.start_mark.index, token.end_mark.index)
            for token in yaml.scan(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            if token.end_mark.index > token.start_mark.index
        ]
    except yaml.YAMLError:
        return True  # not plain YAML either: read it as a template, as Helm would
    position = 0
    for start in starts:
        while position < len(spans) and spans[position][1] <= start:
            position += 1
        if position < len(spans) and spans[position][0] <= start:
            return True
    return False
