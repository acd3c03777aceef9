"""Markdown (GitHub's): text from a finding or a server in a table cell or a code span.

In a cell (or a list item), the punctuation that opens inline structure is backslash-escaped
(CommonMark: escaped ASCII punctuation is literal): backslash, backtick, `*`, `_`, `[`, `]`,
`<`, `>`, `&`, `~`, `$` (GitHub's math) and `|`, so a value can open no code span, emphasis,
link, image, raw HTML, entity or math, and cannot split the row. A code span takes a backtick
fence longer than any run of backticks inside it. Control characters are shown (`terminal`).
"""

from __future__ import annotations

import re

from waslint.escape.terminal import printable

_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~$])")
_BACKTICKS = re.compile("`+")


def cell(text: str) -> str:
    """Plain text for a table cell or a list item: one line, nothing interpreted."""
    return _SPECIAL.sub(r"\\\1", printable(" ".join(text.split())))


def code(text: str) -> str:
    """A code span for a table cell: nothing inside is interpreted, `|` still escaped for the table."""
    body = printable(" ".join(text.split())).replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * (longest + 1)
    if body.startswith(("`", " ")) or body.endswith(("`", " ")):
        body = f" {body} "
    return f"{fence}{body}{fence}"
