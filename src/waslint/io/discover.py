"""Discovery: PATH arguments (files, folders, `-` for stdin) to the manifest files to read."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from fnmatch import fnmatch

from waslint.io.loader import MANIFEST_SUFFIXES, SKIPPED_DIRS

# --------------------------------------------------------------------------- discovery


def discover(paths: Iterable[str], exclude: Iterable[str] | Callable[[str], bool] = ()) -> tuple[list[str], list[str]]:
    """Expand PATH arguments to manifest files. Returns (files, errors for unreadable paths).

    `exclude` is a list of patterns or a predicate (Config.excludes); it drops files named on the
    command line too, as pre-commit names them."""
    if callable(exclude):
        excluded = exclude
    else:
        patterns = list(exclude)

        def excluded(path: str) -> bool:
            return is_excluded(path, patterns)

    files: list[str] = []
    errors: list[str] = []
    for arg in paths:
        if arg == "-":
            files.append("-")
        elif os.path.isdir(arg):
            if arg in (".", "./") or not excluded(arg):
                files.extend(_walk(arg, excluded))
        elif os.path.exists(arg):
            if not excluded(arg):
                files.append(arg)
        else:
            errors.append(f"{arg}: no such file or directory")
    return files, errors


def _walk(top: str, excluded: Callable[[str], bool]) -> Iterator[str]:
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not excluded(os.path.join(root, d)))
        for name in sorted(names):
            full = os.path.join(root, name)
            if top == "." and full.startswith("./"):
                full = full[2:]  # `waslint lint` in a repo: paths as git and editors show them
            if name.endswith(MANIFEST_SUFFIXES) and not excluded(full):
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
