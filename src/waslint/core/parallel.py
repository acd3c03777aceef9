"""`--jobs N`: run a task over items in forked worker processes, results in item order.

Workers are forked, so they inherit everything the parent holds (the parsed set, the index, the
rules) without copying it through a pipe: only each task's result travels back, pickled. Where
`fork` is not available the caller runs serially (the output is the same either way).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_TASK: Callable[[Any], Any] | None = None
_ITEMS: Sequence[Any] = ()


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    import multiprocessing  # only runs that may fork pay for it

    return "fork" in multiprocessing.get_all_start_methods()


def _call(position: int) -> Any:
    assert _TASK is not None
    return _TASK(_ITEMS[position])


def fork_map(
    task: Callable[[T], R],
    items: Sequence[T],
    jobs: int,
    meanwhile: Callable[[], None] | None = None,
    in_parent: int = 0,
) -> list[R]:
    """[task(item) for item in items] in forked workers; `meanwhile` runs in the parent while they
    work. With `in_parent` > 0 the parent takes the last `in_parent` items itself (their results
    need no pickling) and `jobs - 1` workers take the rest. Items are inherited by the fork,
    never pickled."""
    global _TASK, _ITEMS
    in_parent = min(in_parent, len(items) - 1) if jobs > 1 else 0
    shipped = items[: len(items) - in_parent] if in_parent > 0 else items
    workers = jobs - 1 if in_parent > 0 else jobs
    _TASK, _ITEMS = task, shipped
    try:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        with context.Pool(max(1, min(workers, len(shipped)))) as pool:
            pending = pool.map_async(_call, range(len(shipped)), chunksize=1)
            local = [task(item) for item in items[len(shipped) :]]
            if meanwhile is not None:
                meanwhile()
            results: list[R] = pending.get()
        return results + local
    finally:
        _TASK, _ITEMS = None, ()


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
