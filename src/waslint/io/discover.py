"""Discovery: PATH arguments (files, folders, `-` for stdin) to the manifest files to read."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from fnmatch import fnmatch

from waslint.io.loader import MANIFEST_SUFFIXES, SKIPPED_DIRS
from waslint.io.reading import kind_of

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
            continue
        try:
            mode = os.stat(arg).st_mode
        except FileNotFoundError:
            errors.append(f"{arg}: no such file or directory")
            continue
        except OSError as err:
            errors.append(f"{arg}: cannot read: {err.strerror or err}")
            continue
        if stat.S_ISDIR(mode):
            if arg in (".", "./") or not excluded(arg):
                files.extend(_walk(arg, excluded, errors))
        elif excluded(arg):
            continue
        elif stat.S_ISREG(mode):
            files.append(arg)
        else:  # a FIFO, socket or device would block or never end
            errors.append(f"{arg}: not a regular file ({kind_of(mode)})")
    return files, errors


def _walk(top: str, excluded: Callable[[str], bool], errors: list[str]) -> Iterator[str]:
    def unreadable(err: OSError) -> None:  # os.walk drops these silently: a gap must fail the run
        errors.append(f"{err.filename}: cannot read folder: {err.strerror or err}")

    for root, dirs, names in os.walk(top, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not excluded(os.path.join(root, d)))
        for name in sorted(names):
            full = os.path.join(root, name)
            if top == "." and full.startswith("./"):
                full = full[2:]  # `waslint lint` in a repo: paths as git and editors show them
            if name.endswith(MANIFEST_SUFFIXES) and not excluded(full) and _regular(full):
                yield full


def _regular(path: str) -> bool:
    """Folder walks read regular files only: a FIFO named *.yaml would block the run forever."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # the read reports it


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
