"""`--changed-since REF`: the files that differ from a git revision (committed since, staged,
unstaged or untracked), as real paths, so any spelling of a linted path can be matched."""

from __future__ import annotations

import os

from waslint.sources.git import GitError, run_git


class GitChangesError(Exception):
    """--changed-since cannot be used: not a commit, not a git work tree, git missing or failing."""


def changed_files(ref: str, near: str) -> set[str]:
    """Real paths of the files changed since `ref` in the git work tree holding `near`."""
    if not ref or ref.startswith("-") or "\n" in ref:
        raise GitChangesError(f"--changed-since {ref!r}: not a valid git revision")
    folder = near if os.path.isdir(near) else os.path.dirname(os.path.abspath(near))
    top = _git(folder, "rev-parse", "--show-toplevel").strip()
    if not top:
        raise GitChangesError(f"--changed-since: {near} is not inside a git work tree")
    commit = _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", what=f"{ref!r} names no commit")
    names = _git(top, "diff", "--name-only", "--no-renames", "-z", commit.strip(), "--").split("\0")
    names += _git(top, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    return {os.path.realpath(os.path.join(top, name)) for name in names if name}


def _git(cwd: str, *args: str, what: str | None = None) -> str:
    try:
        done = run_git(cwd, *args, option="--changed-since")
    except GitError as err:
        raise GitChangesError(str(err)) from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitChangesError(f"--changed-since: {what or (lines[-1] if lines else f'git {args[0]} failed')}")
    return done.stdout.decode("utf-8", "surrogateescape")
