"""Text for a terminal or a log: control characters are shown, never sent.

A name or a Status message from a server may hold newlines (a forged second line), ANSI CSI and
OSC sequences (cursor moves, window titles, hyperlinks, clipboard writes) or bidi overrides
(text that reads differently from what it is). Each becomes a visible escape (`\\n`, `\\x1b`,
`\\u202e`).
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, and the Unicode bidi embeddings, overrides and isolates.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_KEEP_LAYOUT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """One line: every control character (newline and tab too) shown as an escape."""
    return _CONTROL.sub(_visible, text)


def printable_block(text: str) -> str:
    """Several lines: newlines and tabs kept, every other control character shown as an escape."""
    return _KEEP_LAYOUT.sub(_visible, text)
