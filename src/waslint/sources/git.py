"""The one git runner of the inputs that read a repository (`--base`, `--changed-since`): git is
asked, never a library; a missing git, a timeout or an OS error becomes a GitError worded for the
option that needed git."""

from __future__ import annotations

import subprocess

GIT_TIMEOUT = 120


class GitError(Exception):
    """git could not be run for an option (not installed, too slow, refused by the OS)."""


def run_git(cwd: str, *args: str, option: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """`git -C cwd args...` with its output captured; a failing git is for the caller to word."""
    try:
        return subprocess.run(
            ["git", "-C", cwd, *args], input=stdin, capture_output=True, timeout=GIT_TIMEOUT, check=False
        )
    except FileNotFoundError:
        raise GitError(f"{option} needs git, and git is not installed (not on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"{option}: git {args[0]} in {cwd} took longer than {GIT_TIMEOUT}s") from None
    except OSError as err:
        raise GitError(f"{option}: git {args[0]} failed: {err}") from None
