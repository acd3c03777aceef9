"""Helm chart templates read at their source positions.

Every template action (`{{ ... }}`, `{{- ... -}}`, comments `{{/* */}}`) is masked into a
placeholder of the same length before parsing, so each node keeps the line and column it has
in the template file. A line that holds nothing but actions (`{{- if .Values.x }}`, `{{ end }}`,
`{{- include "labels" . | nindent 4 }}`) becomes blank, so control flow does not break the YAML
structure. The placeholder character (U+E000, a private-use character YAML reads as text) lets
later stages know a value came from a template: findings that point at one are not reported,
and `fix` declines edits that would touch or copy one.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

PLACEHOLDER = "\ue000"
# An action may span lines (Go allows newlines inside actions), but never holds another `{{`.
_ACTION = re.compile(r"\{\{(?:(?!\{\{).)*?\}\}", re.DOTALL)
_RUN = re.compile(PLACEHOLDER + "+")
SHOWN_AS = "{{…}}"


@dataclass(frozen=True)
class MaskedTemplate:
    text: str  # the masked text: same length, same line breaks as the template
    ranges: tuple[tuple[int, int], ...]  # [start, end) offsets of the actions in the template
    _line_starts: list[int] = field(default_factory=list, compare=False, repr=False)

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


def mask_template(text: str) -> MaskedTemplate | None:
    """The masked text, or None when `text` holds no template action."""
    ranges = tuple((match.start(), match.end()) for match in _ACTION.finditer(text))
    if not ranges:
        return None
    chars = list(text)
    for start, end in ranges:
        for position in range(start, end):
            if chars[position] not in "\r\n":
                chars[position] = PLACEHOLDER
    masked = "".join(chars)
    lines = masked.splitlines(keepends=True)
    out: list[str] = []
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line)
        body = line.rstrip("\r\n")
        content = body.strip()
        if content and PLACEHOLDER in content and not content.replace(PLACEHOLDER, ""):
            line = " " * len(body) + line[len(body) :]  # a line of actions only: blank
        out.append(line)
    if not starts or masked.endswith("\n"):
        starts.append(offset)
    return MaskedTemplate("".join(out), ranges, starts)


def shown(text: str) -> str:
    """Text read from a masked template, as a person should see it."""
    return _RUN.sub(SHOWN_AS, text) if PLACEHOLDER in text else text


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
    location = Path(path)
    if "templates" not in location.parts[:-1]:
        return False
    return any(folder.name == "templates" and (folder.parent / "Chart.yaml").is_file() for folder in location.parents)


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
