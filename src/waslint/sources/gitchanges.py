"""`--changed-since REF`: the files that differ from a git revision (committed since, staged,
unstaged or untracked), as real paths, so any spelling of a linted path can be matched."""

from __future__ import annotations

import os
import subprocess

GIT_TIMEOUT = 120


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
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise GitChangesError("--changed-since needs git, which is not installed") from None
    except (OSError, subprocess.TimeoutExpired) as err:
        raise GitChangesError(f"--changed-since: git {args[0]} failed: {err}") from None
    if done.returncode != 0:
        detail = what or done.stderr.strip().splitlines()[-1:] or [f"git {args[0]} failed"]
        message = detail if isinstance(detail, str) else detail[0]
        raise GitChangesError(f"--changed-since: {message}")
    return done.stdout
