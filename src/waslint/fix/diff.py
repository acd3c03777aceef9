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


def unified_diff(path: str, before: str, after: str, context: int = 3) -> str:
    if before == after:
        return ""
    shown = display_path(path)
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    out: list[str] = []
    for line in difflib.unified_diff(old, new, f"a/{shown}", f"b/{shown}", n=context, lineterm="\n"):
        if line.startswith(("---", "+++")) and not line.endswith("\n"):
            line += "\n"
        if line.endswith("\n"):
            out.append(line)
        else:  # the last line of a file without a final line break
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)
