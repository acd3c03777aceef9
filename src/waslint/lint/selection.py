"""Which files a run reads and which it reports on.

`--lookup DIR` reads DIR as well (for cross-object lookups: a PodGroup in another file), while
findings are reported only for the PATH arguments: the pre-commit hook passes the staged files
and reads the repository. `--changed-since REF` reports only the files changed since a git ref
while reading every PATH. A named file inside a context folder that the folder's own walk skips
(excluded by config, not a manifest) is neither read nor reported.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import field

from waslint.core.records import dataclass
from waslint.io.discover import discover_all
from waslint.io.helmtext import CHART_FILE
from waslint.sources.kustomize import is_kustomization

Excluder = list[str] | Callable[[str], bool]  # patterns, or Config.excludes


@dataclass
class ReadPlan:
    """The files a run reads, the ones it reports on, and what the walks left out."""

    files: list[str]
    reported: set[str] | None = None  # real paths (and "-") whose findings are shown; None: all
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason) the walks left out

    def reports(self, path: str) -> bool:
        if self.reported is None:
            return True
        return path in self.reported or _real(path) in self.reported


def plan_reading(
    paths: Iterable[str],
    exclude: Excluder,
    context: Iterable[str] = (),
    changed: set[str] | None = None,
) -> tuple[ReadPlan, list[str]]:
    found = discover_all(paths, exclude)
    named, errors = found.files, found.errors
    context = list(context)
    if not context:
        plan = ReadPlan(named)
    else:
        plan, context_errors = _with_context(named, context, exclude)
        errors += context_errors
    plan.skipped = found.skipped
    if changed is not None:
        reported = plan.reported if plan.reported is not None else {_real(path) for path in plan.files}
        plan.reported = {path for path in reported if path in changed}
    return plan, errors


def _with_context(named: list[str], context: list[str], exclude: Excluder) -> tuple[ReadPlan, list[str]]:
    walked = discover_all(context, exclude)
    tree, errors = walked.files, walked.errors
    tree_real = {_real(path) for path in tree}
    folders = [os.path.realpath(folder) for folder in context if os.path.isdir(folder)]
    files: list[str] = []
    seen: set[str] = set()
    for path in named:
        real = _real(path)
        if real in seen or (real not in tree_real and _inside(real, folders)):
            continue  # skipped by the folder's walk (excluded): neither read nor reported
        seen.add(real)
        files.append(path)
    reported = set(seen)
    for path in tree:
        real = _real(path)
        if real not in seen:
            seen.add(real)
            files.append(path)
    return ReadPlan(files, reported), errors


def _inside(real: str, folders: list[str]) -> bool:
    return any(real == folder or real.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders)


def _real(path: str) -> str:
    return path if path == "-" else os.path.realpath(path)


def may_need_layout(paths: Iterable[str]) -> bool:
    """Whether the run holds a kustomization or a `Chart.yaml`: only then does it read the
    repository's structure (lint/gitops.py, imported only then)."""
    return any(is_kustomization(path) or os.path.basename(path) == CHART_FILE for path in paths)
