"""`--base GIT_REF`: the objects of the files being linted, as they were at another revision.

Read straight from git, without a checkout: the repository of each linted file is found by its
`.git` (confirmed with `git rev-parse --show-toplevel`), the ref is resolved once per repository
(`git rev-parse --verify REF^{commit}`), and every file's blob at that commit is read in one
`git cat-file --batch` per repository. The blobs are parsed with the same loader as the working
files and indexed like the set, so WAS604 can look an object up by group, kind, namespace, name.

A file that did not exist at the base revision simply has no base objects. A ref that does not
name a commit, or a run where no linted file is inside a git work tree, is a GitBaseError
(exit status 2).
"""

from __future__ import annotations

import os
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field

from waslint.io.loader import SourceFile, parse_bytes
from waslint.objects.index import ObjectIndex
from waslint.sources.git import GitError, run_git


class GitBaseError(Exception):
    """--base cannot be used: not a commit, not a git work tree, git missing or failing."""


@dataclass
class BaseSet:
    ref: str
    commits: dict[str, str]  # repository top -> commit the ref names there
    index: ObjectIndex
    sources: list[SourceFile] = field(default_factory=list)
    # lint path -> "REF:repo/path" for files read at the base; None when new since the base
    origins: dict[str, str | None] = field(default_factory=dict)

    def short(self, top: str | None = None) -> str:
        commits = list(self.commits.values()) if top is None else [self.commits[top]]
        if len(set(commits)) == 1 and commits[0][:12] != self.ref[:12]:
            return f"{self.ref} ({commits[0][:12]})"
        return self.ref


def load_base(ref: str, files: list[SourceFile], namespace: str) -> BaseSet:
    if not ref or ref.startswith("-") or "\n" in ref:
        raise GitBaseError(f"--base {ref!r}: not a valid git revision")
    by_repo: dict[str, list[tuple[str, str]]] = defaultdict(list)  # top -> [(lint path, repo path)]
    outside: list[str] = []
    tops: dict[str, str | None] = {}
    for source in files:
        if source.path == "-":
            continue
        located = _repo_path(source.path, tops)
        if located is None:
            outside.append(source.path)
            continue
        top, relative = located
        by_repo[top].append((source.path, relative))
    if not by_repo:
        if not files or all(source.path == "-" for source in files):
            raise GitBaseError("--base compares files with a git revision; stdin has no revision to compare with")
        raise GitBaseError(f"--base {ref}: {outside[0]} is not inside a git work tree")
    commits: dict[str, str] = {}
    sources: list[SourceFile] = []
    origins: dict[str, str | None] = {}
    for top, entries in by_repo.items():
        commit = _resolve(top, ref)
        commits[top] = commit
        blobs = _read_blobs(top, commit, [relative for _, relative in entries])
        for lint_path, relative in entries:
            raw = blobs.get(relative)
            if raw is None:
                origins[lint_path] = None
                continue
            origins[lint_path] = f"{ref}:{relative}"
            sources.append(parse_bytes(f"{ref}:{relative}", raw))
    return BaseSet(ref, commits, ObjectIndex.build(sources, namespace), sources, origins)


def _git(top: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return run_git(top, *args, option="--base", stdin=stdin)
    except GitError as err:
        raise GitBaseError(str(err)) from None


def _repo_path(path: str, tops: dict[str, str | None]) -> tuple[str, str] | None:
    """(repository top, path inside it with / separators) for a file in a git work tree."""
    real = os.path.realpath(path)
    directory = os.path.dirname(real)
    top = _find_top(directory, tops)
    if top is None:
        return None
    relative = os.path.relpath(real, top)
    if relative.startswith(".." + os.sep) or relative == ".." or "\n" in relative:
        return None
    return top, relative.replace(os.sep, "/")


def _find_top(directory: str, tops: dict[str, str | None]) -> str | None:
    """Walk up to the folder holding `.git` (a folder, or a file for worktrees and submodules),
    then let git confirm it; one `git rev-parse` per repository, not per folder."""
    probe = directory
    while True:
        if probe in tops:
            return tops[probe]
        if os.path.exists(os.path.join(probe, ".git")):
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            probe = directory  # no .git above: ask git (GIT_DIR, unusual layouts)
            break
        probe = parent
    result = _git(probe, "rev-parse", "--show-toplevel")
    top = os.path.realpath(result.stdout.decode("utf-8", "replace").strip()) if result.returncode == 0 else None
    if result.returncode != 0 and os.path.exists(os.path.join(probe, ".git")):
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = lines[-1] if lines else "failed"
        raise GitBaseError(f"--base: git cannot read the repository at {probe}: {detail}")
    tops[probe] = top
    tops[directory] = top
    return top


def _resolve(top: str, ref: str) -> str:
    result = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    commit = result.stdout.decode("ascii", "replace").strip()
    if result.returncode != 0 or not commit:
        raise GitBaseError(f"--base {ref}: not a commit in the git repository {top}")
    return commit


def _read_blobs(top: str, commit: str, paths: list[str]) -> dict[str, bytes]:
    """Blob contents of `commit:path` for each path; paths missing at that commit are left out."""
    wanted = list(dict.fromkeys(paths))
    request = "".join(f"{commit}:{path}\n" for path in wanted).encode("utf-8")
    result = _git(top, "cat-file", "--batch", stdin=request)
    if result.returncode != 0:
        detail = result.stderr.decode("utf-8", "replace").strip()
        raise GitBaseError(f"--base: git cat-file failed in {top}: {detail or 'unknown error'}")
    out = result.stdout
    blobs: dict[str, bytes] = {}
    position = 0
    for path in wanted:
        end = out.find(b"\n", position)
        if end < 0:
            break
        header = out[position:end].split()
        position = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            if header[1] == b"blob":
                blobs[path] = out[position : position + size]
            position += size + 1  # content and its trailing newline
        # "<name> missing" / "ambiguous": nothing follows the header
    return blobs
