"""Discovery: PATH arguments (files, folders, `-` for stdin) to the manifest files to read."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from fnmatch import fnmatch

from waslint.io.loader import MANIFEST_SUFFIXES, SKIPPED_DIRS

# --------------------------------------------------------------------------- discovery


def discover(paths: Iterable[str], exclude: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """Expand PATH arguments to manifest files. Returns (files, errors for unreadable paths)."""
    patterns = list(exclude)
    files: list[str] = []
    errors: list[str] = []
    for arg in paths:
        if arg == "-":
            files.append("-")
        elif os.path.isdir(arg):
            files.extend(_walk(arg, patterns))
        elif os.path.exists(arg):
            files.append(arg)
        else:
            errors.append(f"{arg}: no such file or directory")
    return files, errors


def _walk(top: str, patterns: list[str]) -> Iterator[str]:
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not is_excluded(os.path.join(root, d), patterns))
        for name in sorted(names):
            full = os.path.join(root, name)
            if top == "." and full.startswith("./"):
                full = full[2:]  # `waslint lint` in a repo: paths as git and editors show them
            if name.endswith(MANIFEST_SUFFIXES) and not is_excluded(full, patterns):
                yield full


def is_excluded(path: str, patterns: list[str]) -> bool:
    if not patterns:
        return False
    normal = os.path.normpath(path).replace(os.sep, "/")
    candidates = {normal, normal.removeprefix("./")}
    for pattern in patterns:
        bare = pattern.rstrip("/")
        for candidate in candidates:
            if fnmatch(candidate, bare) or fnmatch(candidate, bare + "/*"):
                return True
            if "/" not in bare and bare in candidate.split("/"):
                return True
    return False
