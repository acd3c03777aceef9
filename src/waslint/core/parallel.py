"""`--jobs N`: run a task over items in forked worker processes, results in item order.

Workers are forked, so they inherit everything the parent holds (the parsed set, the index, the
rules) without copying it through a pipe: only each task's result travels back, pickled. The
parent and `jobs - 1` workers take items in turn from one queue (a pipe of item numbers: a read
of a few bytes from a pipe is atomic), so a slow item or the parent's own `meanwhile` work never
leaves a core idle. Where `fork` is not available the caller runs serially (the output is the
same either way).
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from waslint.core.failure import RunFailure

T = TypeVar("T")
R = TypeVar("R")

_NUMBER = struct.Struct("=I")
MAX_ITEMS = 4096  # item numbers in the queue pipe: 16 KB, well under a pipe's buffer


JOBS_PER_CORE = 4  # --jobs above this many per core is capped: workers past it only contend


def max_jobs() -> int:
    return JOBS_PER_CORE * default_jobs()


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32"


class WorkerError(RuntimeError):
    """A worker process raised: the last line of its traceback (`detail` holds all of it)."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


def _ended(status: int) -> RunFailure:
    """A worker that sent nothing: killed by a signal (the OOM killer sends SIGKILL), or exited."""
    import signal

    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        hint = " (out of memory? try fewer --jobs)" if number == signal.SIGKILL else ""
        return RunFailure(f"a --jobs worker was killed by {name}{hint}; no report was written")
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return RunFailure(f"a --jobs worker ended with status {code} without a result; no report was written")


def fork_map(
    task: Callable[[T], R],
    items: Sequence[T],
    jobs: int,
    meanwhile: Callable[[], None] | None = None,
) -> list[R]:
    """[task(item) for item in items], shared by the parent and `jobs - 1` forked workers that
    take items from one queue; `meanwhile` runs in the parent first. The items an item's task
    returns in the parent are not pickled (a task may tell by os.getpid())."""
    if len(items) > MAX_ITEMS:
        raise ValueError(f"fork_map takes at most {MAX_ITEMS} items (shards), not {len(items)}")
    if jobs <= 1 or len(items) <= 1:
        if meanwhile is not None:
            meanwhile()
        return [task(item) for item in items]
    queue_read, queue_write = os.pipe()
    os.write(queue_write, b"".join(_NUMBER.pack(number) for number in range(len(items))))
    os.close(queue_write)  # an empty queue then reads as the end
    workers = [_start_worker(task, items, queue_read) for _ in range(min(jobs, len(items)) - 1)]
    try:
        if meanwhile is not None:
            meanwhile()
        results: dict[int, Any] = _take_items(task, items, queue_read)
        while workers:
            pid, result_read = workers.pop(0)
            results.update(_collect(pid, result_read))
    except BaseException:
        _stop(workers)
        raise
    finally:
        os.close(queue_read)
    return [results[number] for number in range(len(items))]


def _stop(workers: list[tuple[int, int]]) -> None:
    """The parent failed: end the workers it will not collect."""
    import signal

    for pid, result_read in workers:
        os.close(result_read)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass


def _take_items(task: Callable[[T], R], items: Sequence[T], queue: int) -> dict[int, R]:
    done: dict[int, R] = {}
    while True:
        taken = os.read(queue, _NUMBER.size)
        if len(taken) < _NUMBER.size:
            return done
        number = _NUMBER.unpack(taken)[0]
        done[number] = task(items[number])


def _start_worker(task: Callable[[T], R], items: Sequence[T], queue: int) -> tuple[int, int]:
    import pickle  # only runs that fork pay for it
    import traceback

    result_read, result_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: take items, send the results, leave without running exit handlers
        status = 0
        try:
            os.close(result_read)
            payload = pickle.dumps((True, _take_items(task, items, queue)), pickle.HIGHEST_PROTOCOL)
        except BaseException:
            payload = pickle.dumps((False, traceback.format_exc()), pickle.HIGHEST_PROTOCOL)
            status = 1
        try:
            with os.fdopen(result_write, "wb") as out:
                out.write(payload)
        finally:
            os._exit(status)
    os.close(result_write)
    return pid, result_read


def _collect(pid: int, result_read: int) -> dict[int, Any]:
    import pickle

    with os.fdopen(result_read, "rb") as source:
        payload = source.read()
    _, status = os.waitpid(pid, 0)
    if not payload:
        raise _ended(status)
    ok, value = pickle.loads(payload)
    if not ok:
        last = str(value).strip().splitlines()[-1] if str(value).strip() else "no traceback"
        raise WorkerError(f"a --jobs worker failed: {last}", str(value))
    results: dict[int, Any] = value
    return results


def split_evenly(weights: Sequence[int], parts: int) -> list[range]:
    """Contiguous index ranges of about equal total weight (order kept, none empty)."""
    total = sum(weights)
    if not weights:
        return []
    target = max(total / max(parts, 1), 1)
    ranges: list[range] = []
    start = 0
    running = 0
    for position, weight in enumerate(weights):
        running += weight
        if running >= target * (len(ranges) + 1) and len(ranges) < parts - 1:
            ranges.append(range(start, position + 1))
            start = position + 1
    if start < len(weights):
        ranges.append(range(start, len(weights)))
    return ranges
