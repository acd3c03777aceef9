"""Unified diffs of fixed files, `a/` and `b/` paths like `git diff`, line endings kept."""

from __future__ import annotations

import difflib
import os


def display_path(path: str) -> str:
    """The path under `a/` and `b/`: relative to the current folder when it is inside it."""
    if path == "-":
        return "-"
    normal = os.path.normpath(path)
    if os.path.isabs(normal):
        relative = os.path.relpath(normal)
        normal = relative if not relative.startswith("..") else normal.lstrip(os.sep)
    return normal.replace(os.sep, "/")


def quote_path(path: str) -> str:
    """A header path as git writes it: in double quotes with C escapes when it holds a control
    character, a double quote or a backslash (a line break would end the header line)."""
    if not any(char in '"\\' or ord(char) < 0x20 or ord(char) == 0x7F for char in path):
        return path
    escaped = []
    for char in path:
        if char in _ESCAPES:
            escaped.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\{ord(char):03o}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


_ESCAPES = {
    "\n": "\\n",
    "\t": "\\t",
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\r": "\\r",
    "\v": "\\v",
}


def _lines(text: str) -> list[str]:
    """Lines ended by LF only, as git splits them (str.splitlines would also split at a form
    feed, U+2028 and the like, and the patch would no longer apply)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def unified_diff(path: str, before: str, after: str, context: int = 3) -> str:
    if before == after:
        return ""
    shown = display_path(path)
    old = _lines(before)
    new = _lines(after)
    out: list[str] = []
    headers = (quote_path(f"a/{shown}"), quote_path(f"b/{shown}"))
    for line in difflib.unified_diff(old, new, *headers, n=context, lineterm="\n"):
        if line.startswith(("---", "+++")) and not line.endswith("\n"):
            line += "\n"
        if line.endswith("\n"):
            out.append(line)
        else:  # the last line of a file without a final line break
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)
