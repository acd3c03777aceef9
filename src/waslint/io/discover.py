"""Discovery: PATH arguments (files, folders, `-` for stdin) to the manifest files to read.

Folder walks take regular files only, and follow a symbolic link only when it leads to a place
inside one of the PATH arguments (as git, which stores links as links, never reads outside the
tree): a link out of the tree, a broken link and a FIFO, socket or device named `*.yaml` are
skipped and listed (`Discovery.skipped`). A folder that cannot be read is an error, never a silent
gap. A PATH named on the command line is read as given, but it must be a regular file or a folder.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import field
from fnmatch import fnmatch

from waslint.core.records import dataclass
from waslint.io.loader import CONFIG_NAMES, MANIFEST_NAMES, MANIFEST_SUFFIXES, SKIPPED_DIRS
from waslint.io.reading import kind_of

Excluded = Callable[[str], bool]

# --------------------------------------------------------------------------- discovery


@dataclass
class Discovery:
    """The files a walk of the path arguments found, the paths it could not use and what it skipped."""

    files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # unreadable or unusable paths: exit status 2
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason), for the summary


def discover(paths: Iterable[str], exclude: Iterable[str] | Excluded = ()) -> tuple[list[str], list[str]]:
    """Expand PATH arguments to manifest files. Returns (files, errors for unreadable paths).

    `exclude` is a list of patterns or a predicate (Config.excludes); it drops files named on the
    command line too, as pre-commit names them."""
    found = discover_all(paths, exclude)
    return found.files, found.errors


def discover_all(paths: Iterable[str], exclude: Iterable[str] | Excluded = ()) -> Discovery:
    """Expand PATH arguments to manifest files, with the errors and the skipped entries."""
    excluded = _predicate(exclude)
    arguments = list(paths)
    roots = [os.path.realpath(arg) for arg in arguments if arg != "-"]
    found = Discovery()
    for arg in arguments:
        if arg == "-":
            if "-" not in found.files:  # stdin can be read once
                found.files.append("-")
            continue
        try:
            mode = os.stat(arg).st_mode
        except FileNotFoundError:
            found.errors.append(f"{arg}: no such file or directory")
            continue
        except OSError as err:
            found.errors.append(f"{arg}: cannot read: {err.strerror or err}")
            continue
        if stat.S_ISDIR(mode):
            if arg in (".", "./") or not excluded(arg):
                _walk(arg, excluded, roots, found)
        elif excluded(arg) or os.path.basename(arg) in CONFIG_NAMES:
            continue  # pre-commit names a staged .waslint.yaml too: it is config, not a manifest
        elif stat.S_ISREG(mode):
            found.files.append(arg)
        else:  # a FIFO, socket or device would block or never end
            found.errors.append(f"{arg}: not a regular file ({kind_of(mode)})")
    return found


def _predicate(exclude: Iterable[str] | Excluded) -> Excluded:
    if callable(exclude):
        return exclude
    patterns = list(exclude)

    def excluded(path: str) -> bool:
        return is_excluded(path, patterns)

    return excluded


def _walk(top: str, excluded: Excluded, roots: list[str], found: Discovery) -> None:
    try:
        with os.scandir(top) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError as err:
        found.errors.append(f"{top}: cannot read folder: {err.strerror or err}")
        return
    folders: list[str] = []
    for entry in entries:
        full = os.path.join(top, entry.name)
        if top == "." and full.startswith("./"):
            full = full[2:]  # `waslint lint` in a repo: paths as git and editors show them
        _visit(entry, full, excluded, roots, found, folders)
    for folder in folders:
        _walk(folder, excluded, roots, found)


def _visit(
    entry: os.DirEntry[str], full: str, excluded: Excluded, roots: list[str], found: Discovery, folders: list[str]
) -> None:
    try:
        is_link = entry.is_symlink()
        is_dir = entry.is_dir(follow_symlinks=False)
    except OSError as err:
        found.errors.append(f"{full}: cannot read: {err.strerror or err}")
        return
    if is_dir:
        if entry.name not in SKIPPED_DIRS and not excluded(full):
            folders.append(full)
        return
    if not _manifest(entry.name) and not is_link:
        return
    if entry.name in SKIPPED_DIRS or entry.name in CONFIG_NAMES or excluded(full):
        return
    if is_link:
        _visit_link(entry, full, roots, found)
        return
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError as err:
        found.errors.append(f"{full}: cannot read: {err.strerror or err}")
        return
    if stat.S_ISREG(mode):
        found.files.append(full)
    else:
        found.skipped.append((full, f"not a regular file ({kind_of(mode)})"))


def _manifest(name: str) -> bool:
    return name.endswith(MANIFEST_SUFFIXES) or name in MANIFEST_NAMES


def _visit_link(entry: os.DirEntry[str], full: str, roots: list[str], found: Discovery) -> None:
    """A link inside the tree: a file link to a place inside a root is read; a folder link is not
    walked (what it leads to inside the roots is walked anyway, and loops are impossible)."""
    target = os.path.realpath(full)
    try:
        mode = os.stat(full).st_mode
    except OSError:
        if _manifest(entry.name):
            found.skipped.append((full, "broken symbolic link"))
        return
    if stat.S_ISDIR(mode):
        if not inside(target, roots):
            found.skipped.append((full, "symbolic link to a folder outside the given paths"))
        return
    if not _manifest(entry.name):
        return
    if not inside(target, roots):
        found.skipped.append((full, "symbolic link to a file outside the given paths"))
    elif not stat.S_ISREG(mode):
        found.skipped.append((full, f"not a regular file ({kind_of(mode)})"))
    else:
        found.files.append(full)


def inside(target: str, roots: list[str]) -> bool:
    """Whether the real path `target` is one of `roots` or below one of them."""
    return any(target == root or target.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


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
