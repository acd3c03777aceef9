"""Cycles in a parent relation (CompositePodGroups naming each other as parent).

A hierarchy whose parent chain comes back to itself is no tree: no group of it can be placed.
The groups are then no one's child and no one's parent here, so each is reported with its cycle
and nothing walks round it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def cycles(parent_of: Mapping[K, K | None]) -> list[list[K]]:
    """Each cycle once, as the keys in parent order starting from the first key met; linear."""
    state: dict[K, int] = {}  # 1: on the current path, 2: done
    found: list[list[K]] = []
    for start in parent_of:
        path: list[K] = []
        key: K | None = start
        while key is not None and key in parent_of and state.get(key) is None:
            state[key] = 1
            path.append(key)
            key = parent_of[key]
        if key is not None and state.get(key) == 1:
            found.append(path[path.index(key) :])
        for visited in path:
            state[visited] = 2
    return found
