"""Text for a terminal or a log: control characters are shown, never sent.

A name or a Status message from a server may hold newlines (a forged second line), ANSI CSI and
OSC sequences (cursor moves, window titles, hyperlinks, clipboard writes) or bidi overrides
(text that reads differently from what it is). Each becomes a visible escape (`\\n`, `\\x1b`,
`\\u202e`).
"""

from __future__ import annotations

# C0 controls, DEL, C1 controls, and the Unicode bidi embeddings, overrides and isolates, and the
# line and paragraph separators; each to its escape. (A table for str.translate: a regular
# expression of these ranges costs start-up some 0.3 ms to compile.)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_CONTROLS = [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029]
_CONTROL = {code: _NAMED.get(chr(code), f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _CONTROLS}
_KEEP_LAYOUT = {code: shown for code, shown in _CONTROL.items() if chr(code) not in "\n\t"}


def printable(text: str) -> str:
    """One line: every control character (newline and tab too) shown as an escape."""
    return text.translate(_CONTROL)


def printable_block(text: str) -> str:
    """Several lines: newlines and tabs kept, every other control character shown as an escape."""
    return text.translate(_KEEP_LAYOUT)
