"""The exit-status contract's one place for what is not a finding: exit status 1 means findings and
nothing else, so every failure of the run itself is status 2 with one line on stderr.

`cli.py` routes every command through `internal_error_line` (an exception nobody expected: a
bug, "please report"), and `RunFailure` is a failure with its own words (a `--jobs` worker
killed by a signal, a terminated run). The traceback is printed only when debugging is on
(`--debug` anywhere on the command line, or `WASLINT_DEBUG=1`). SIGTERM becomes `Terminated`, a
`SystemExit`, so every `finally` and `except BaseException` cleanup runs (temporary files of `fix`
and `snapshot capture` are removed).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import signal as _signal
else:
    import _signal  # signal's own functions without its enums (some 0.5 ms at every start)

DEBUG_ENV = "WASLINT_DEBUG"
DEBUG_FLAG = "--debug"
RUN_FAILED = 2
TERMINATED = 128 + _signal.SIGTERM


class RunFailure(Exception):
    """The run failed for a reason that is not a bug of waslint: one line, status 2."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail  # shown with --debug only (a worker's traceback)


class Terminated(SystemExit):
    """SIGTERM: unwinds like an exit, so cleanups run; the status is 128 + 15."""

    def __init__(self) -> None:
        super().__init__(TERMINATED)


def debug_enabled() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


def take_debug_flag(args: list[str]) -> list[str]:
    """`--debug` anywhere before `--` turns debugging on (for this process and its workers)."""
    if DEBUG_FLAG not in args:
        return args
    end = args.index("--") if "--" in args else len(args)
    if DEBUG_FLAG not in args[:end]:
        return args
    os.environ[DEBUG_ENV] = "1"
    return [arg for position, arg in enumerate(args) if position >= end or arg != DEBUG_FLAG]


def one_line(text: str, limit: int = 300) -> str:
    """The first line of a message, shortened: an exception's text may quote a whole input."""
    first = " ".join(text.strip().splitlines()[0].split()) if text.strip() else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def internal_error_line(error: BaseException, command: str) -> str:
    """The one line of an unexpected exception; with debugging on, the traceback goes first."""
    import traceback  # only a failing run pays for it

    from waslint.escape.terminal import printable

    if debug_enabled():
        traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
        inner = getattr(error, "detail", "")
        if isinstance(inner, str) and inner:
            sys.stderr.write(inner.rstrip("\n") + "\n")
    detail = one_line(str(error))
    what = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
    hint = "" if debug_enabled() else f"; run with {DEBUG_FLAG} for the traceback"
    return printable(f"waslint: internal error in `waslint {command}`: {what} (please report this bug{hint})")


def run_failure_line(error: RunFailure) -> str:
    from waslint.escape.terminal import printable

    if debug_enabled() and error.detail:
        sys.stderr.write(error.detail.rstrip("\n") + "\n")
    return printable(f"waslint: error: {one_line(str(error))}")


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


def install_termination_handler() -> None:
    """SIGTERM unwinds the run (see Terminated); only in the main thread of the real entry point."""
    with contextlib.suppress(ValueError, OSError):  # not the main thread, or no such signal
        _signal.signal(_signal.SIGTERM, _terminate)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGTERM and SIGINT back for a few statements (a temporary file created and recorded
    for its cleanup in one step): a signal in between would leave the file behind."""
    import signal

    held = {signal.SIGTERM, signal.SIGINT}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
