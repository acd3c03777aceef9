"""All-or-nothing placement of gangs on a `ClusterState`.

- A gang needs `required` pods (its minimum) in one domain of its topology key (every node with one
  value of that label); without a key the whole cluster is one domain. Every domain is tried.
- Homogeneous gangs (one pod shape) are exact: the pods of one shape fit in a domain iff the sum
  of the per-node counts reaches `required`. The tightest fitting domain is chosen (Kueue's
  BestFit: the fewest pods of room that still fit, ties by label value); inside it nodes are
  filled largest first and the last node is the best fit.
- Heterogeneous gangs (several shapes): pods largest first, each shape filled like above. This is
  a heuristic (bin packing); when it finds nothing and the input is small, an exhaustive search
  decides, so a small gang is only reported infeasible when no placement exists at all.
- Gangs with a choice (more members than the minimum, of several shapes, or per-shape minimums
  such as Volcano's minTaskMember): which members are placed is decided by where they can run,
  as the schedulers do (they try every member and start the gang once enough are placed): each
  shape's minimum first, then the other members, the smallest shape first (`_place_choice`).
- Composite groups: each domain of the parent's key, then the children inside it, each child at
  its minimum, until `min_groups` children are placed; otherwise roll back and try the next domain.
- A run places gangs in priority order (then file order); each placed gang consumes capacity.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from waslint.feasibility.capacity import ClusterState
from waslint.feasibility.model import Gang
from waslint.objects.shapes import PodShape

EXACT_SEARCH_PODS = 10  # exhaustive search only below these sizes: it is exponential
EXACT_SEARCH_NODES = 12
EXACT_SEARCH_STEPS = 200_000
FITTING_SHOWN = 20  # fitting domains listed per gang (the tightest ones)


@dataclass
class Attempt:
    """The outcome of placing one gang: where (or the best partial attempt), and what it saw."""

    gang: Gang
    feasible: bool
    domain: str | None = None  # the chosen domain value, or the best domain of a failed attempt
    placement: dict[int, int] = field(default_factory=dict)  # node position -> pods
    placeable: int = 0  # pods (composite: child groups) that fit in the best domain
    fitting: list[str] = field(default_factory=list)  # domains that fit, tightest first (up to FITTING_SHOWN)
    room: dict[str, int] = field(default_factory=dict)  # domain -> pods of the main shape that fit
    heuristic: bool = False  # infeasible by the largest-first heuristic only (no exhaustive proof)
    searched: bool = False  # an exhaustive search decided
    children: list[Attempt] = field(default_factory=list)
    restrict: list[int] | None = None
    assigned: list[tuple[int, PodShape, int]] = field(default_factory=list)  # (node, shape, pods) consumed


def main_shape(gang: Gang) -> PodShape | None:
    shapes = gang.shapes_to_place()
    return shapes[0][0] if shapes else None


def place(state: ClusterState, gang: Gang, restrict: list[int] | None = None, keep: bool = True) -> Attempt:
    """Place the gang (inside `restrict` nodes when given). With keep=False the state is left as it was."""
    restrict = fixed_restrict(state, gang, restrict)
    mark = state.checkpoint()
    try:
        attempt = _place(state, gang, restrict)
    except BaseException:
        state.rollback(mark)
        raise
    if keep and attempt.feasible:
        state.commit(mark)
    else:
        state.rollback(mark)
    attempt.restrict = restrict
    return attempt


def fixed_restrict(state: ClusterState, gang: Gang, restrict: list[int] | None) -> list[int] | None:
    """Bound members fix the domain: the nodes of that domain (inside `restrict`)."""
    if gang.fixed_domain is None:
        return restrict
    return domain_nodes(state, gang.domain_key, restrict).get(gang.fixed_domain, [])


def _place(state: ClusterState, gang: Gang, restrict: list[int] | None) -> Attempt:
    if gang.problems:  # never placed; `placeable` still says how many of its pods would fit
        mark = state.checkpoint()
        try:
            tried = _place_members(state, gang, restrict)
        finally:
            state.rollback(mark)
        return Attempt(gang, False, tried.domain, placeable=tried.placeable, room=tried.room)
    return _place_members(state, gang, restrict)


def _place_members(state: ClusterState, gang: Gang, restrict: list[int] | None) -> Attempt:
    if gang.composite:
        return _place_composite(state, gang, restrict)
    if gang.has_choice:
        return _place_choice(state, gang, restrict)
    groups = gang.shapes_to_place()  # (shape, pods): the work follows the shapes and nodes, not the pods
    if not groups:  # nothing left to place: its bound members already meet the minimum
        return Attempt(gang, True, gang.fixed_domain, placeable=0)
    if len(groups) == 1:
        return _place_homogeneous(state, gang, groups[0][0], groups[0][1], restrict)
    return _place_mixed(state, gang, groups, restrict)


def domain_nodes(state: ClusterState, key: str | None, restrict: list[int] | None) -> dict[str, list[int]]:
    if restrict is None:
        return state.domains(key)
    values = state.label_values(key)
    found: dict[str, list[int]] = {}
    for position in restrict:
        value = values[position]
        if value is not None:
            found.setdefault(value, []).append(position)
    return found


def room_per_domain(
    state: ClusterState, shape: PodShape, key: str | None, restrict: list[int] | None
) -> dict[str, int]:
    view = state.view(shape)
    if restrict is None:
        return view.sums(key)
    counts = view.counts
    return {value: sum(counts[p] for p in nodes) for value, nodes in domain_nodes(state, key, restrict).items()}


def tightest(room: dict[str, int], need: int) -> list[str]:
    """Domains with room for `need` pods, the tightest first (BestFit), ties by label value."""
    return sorted((value for value, pods in room.items() if pods >= need), key=lambda value: (room[value], value))


def best_partial(room: dict[str, int]) -> str | None:
    """The domain with the most room (ties: the first label value)."""
    if not room:
        return None
    return min(room, key=lambda value: (-room[value], value))


def best_domain(
    state: ClusterState, shape: PodShape, key: str | None, restrict: list[int] | None, best: str | None
) -> str | None:
    """`best` (the roomiest domain) unless it has no room at all: then the domain with the most
    nodes that pass the filters, never one whose nodes are all excluded (None when every node
    is)."""
    room = room_per_domain(state, shape, key, restrict) if best is not None else {}
    if best is not None and room.get(best, 0) > 0:
        return best
    view = state.view(shape)
    if restrict is None:
        eligible = view.eligible(key)
    else:
        excluded = view.excluded
        eligible = {
            value: sum(1 for p in nodes if excluded[p] is None)
            for value, nodes in domain_nodes(state, key, restrict).items()
        }
    candidates = [value for value, count in eligible.items() if count > 0]
    if not candidates:
        return None
    return min(candidates, key=lambda value: (-eligible[value], value))


def fill(counts: list[int], nodes: list[int], need: int) -> dict[int, int]:
    """Pods per node for `need` pods over `nodes` (their counts must cover it): the largest nodes
    first, the last one by best fit, so the big nodes of a domain stay whole when possible."""
    candidates = [(counts[p], p) for p in nodes if counts[p] > 0]
    if len(candidates) > 4 * need:
        ordered = heapq.nlargest(need, candidates, key=lambda item: (item[0], -item[1]))
    else:
        ordered = sorted(candidates, key=lambda item: (-item[0], item[1]))
    placement: dict[int, int] = {}
    left = need
    for count, position in ordered:
        if left <= 0:
            break
        if count >= left:
            fitting = [(c, p) for c, p in candidates if c >= left and p not in placement]
            _, chosen = min(fitting, key=lambda item: (item[0], item[1]))
            placement[chosen] = left
            left = 0
            break
        placement[position] = count
        left -= count
    return placement if left <= 0 else {}


def _place_homogeneous(
    state: ClusterState, gang: Gang, shape: PodShape, need: int, restrict: list[int] | None
) -> Attempt:
    room = room_per_domain(state, shape, gang.domain_key, restrict)
    if restrict is None:  # the kept-up-to-date ranking: no scan of every domain per gang
        ranked = state.view(shape).ranked(gang.domain_key)
        fitting = ranked.at_least(need, FITTING_SHOWN)
        roomiest = ranked.largest(1)
        best = roomiest[0] if roomiest else None
    else:
        fitting = tightest(room, need)[:FITTING_SHOWN]
        best = best_partial(room)
    if not fitting:
        best = best_domain(state, shape, gang.domain_key, restrict, best)
        return Attempt(gang, False, best, placeable=room.get(best, 0) if best else 0, room=room)
    chosen = fitting[0]
    nodes = domain_nodes(state, gang.domain_key, restrict)[chosen]
    placement = fill(state.view(shape).counts, nodes, need)
    for position, pods in placement.items():
        state.consume(position, shape, pods)
    assigned = [(position, shape, pods) for position, pods in placement.items()]
    return Attempt(gang, True, chosen, placement, need, fitting, room, assigned=assigned)


def _place_mixed(
    state: ClusterState, gang: Gang, groups: list[tuple[PodShape, int]], restrict: list[int] | None
) -> Attempt:
    total = sum(count for _, count in groups)  # groups are largest shape first
    main = groups[0][0]
    domains = domain_nodes(state, gang.domain_key, restrict)
    per_shape = {shape: room_per_domain(state, shape, gang.domain_key, restrict) for shape, _ in groups}
    room = per_shape[main]
    candidates = [value for value in domains if all(per_shape[shape].get(value, 0) >= n for shape, n in groups)]
    candidates.sort(key=lambda value: (room.get(value, 0), value))

    def fill(nodes: list[int]) -> tuple[int, Assigned, bool]:
        placed, assigned = _fill_groups(state, groups, nodes)
        return placed, assigned, placed == total

    chosen, fitting, best_value, best_placed = _try_domains(state, candidates, domains, fill, best_partial(room))
    if chosen is not None:
        return Attempt(gang, True, chosen[0], _per_node(chosen[1]), total, fitting, room, assigned=chosen[1])
    if not best_placed:
        best_value = best_domain(state, main, gang.domain_key, restrict, best_value)
    attempt = Attempt(gang, False, best_value, placeable=best_placed, room=room, heuristic=bool(candidates))
    small = [value for value in candidates if len(domains[value]) <= EXACT_SEARCH_NODES]
    if candidates and total <= EXACT_SEARCH_PODS and len(small) == len(candidates):
        pods = [shape for shape, count in groups for _ in range(count)]
        for value in candidates:
            found = exact_search(state, pods, domains[value])
            if found is not None:
                return _searched(state, gang, value, found, total, room)
        attempt.heuristic, attempt.searched = False, True
    return attempt


Assigned = list[tuple[int, PodShape, int]]  # (node position, shape, pods) of one placement


def _try_domains(
    state: ClusterState,
    candidates: list[str],
    domains: dict[str, list[int]],
    fill: Callable[[list[int]], tuple[int, Assigned, bool]],
    best_value: str | None,
    stop_after: int | None = None,
) -> tuple[tuple[str, Assigned] | None, list[str], str | None, int]:
    """Each candidate domain tried in order, the state rolled back after each but the first that
    holds the gang (`fill` says placed pods, their assignment and whether complete): the chosen
    domain, the fitting ones (up to `stop_after` once one is chosen), and the best partial one."""
    best_placed = 0
    fitting: list[str] = []
    chosen: tuple[str, Assigned] | None = None
    for value in candidates:
        mark = state.checkpoint()
        placed, assigned, complete = fill(domains[value])
        if complete:
            fitting.append(value)
            if chosen is None:
                chosen = (value, assigned)
                state.commit(mark)
                continue
        elif placed > best_placed:
            best_value, best_placed = value, placed
        state.rollback(mark)
        if stop_after is not None and chosen is not None and len(fitting) >= stop_after:
            break
    return chosen, fitting, best_value, best_placed


def _searched(
    state: ClusterState, gang: Gang, value: str, pods: list[tuple[int, PodShape]], need: int, room: dict[str, int]
) -> Attempt:
    """The exact search's placement, consumed: one pod per (node, shape) entry."""
    assigned = [(position, shape, 1) for position, shape in pods]
    for position, shape, _ in assigned:
        state.consume(position, shape, 1)
    return Attempt(gang, True, value, _per_node(assigned), need, [value], room, searched=True, assigned=assigned)


def _per_node(assigned: Assigned) -> dict[int, int]:
    placement: dict[int, int] = {}
    for position, _, pods in assigned:
        placement[position] = placement.get(position, 0) + pods
    return placement


def _fill_groups(
    state: ClusterState, groups: list[tuple[PodShape, int]], nodes: list[int]
) -> tuple[int, list[tuple[int, PodShape, int]]]:
    placed, assigned = 0, []
    for shape, need in groups:
        counts = state.view(shape).counts
        have = sum(counts[p] for p in nodes)
        take = fill(counts, nodes, min(need, have)) if have else {}
        for position, pods in take.items():
            state.consume(position, shape, pods)
            assigned.append((position, shape, pods))
        placed += sum(take.values())
        if have < need:
            break
    return placed, assigned


def _place_choice(state: ClusterState, gang: Gang, restrict: list[int] | None) -> Attempt:
    """A gang whose members are chosen by where they can run (volcano-sh/volcano
    pkg/scheduler/actions/allocate: every task is tried, the job is ready once minAvailable are
    placed and each task has its minTaskMember; allocate_test.go "prepredicate failed and tasks are
    not used up, continue on until min member meet"). Domains the tightest first."""
    need = max(0, gang.required - gang.bound)
    merged: dict[PodShape, int] = {}
    for shape, count in gang.members:
        merged[shape] = merged.get(shape, 0) + max(0, count)
    floors = {shape: min(count, merged.get(shape, 0)) for shape, count in gang.minimums if count > 0}
    mandatory = sorted(floors.items(), key=lambda item: item[0].size, reverse=True)
    optional = sorted(
        ((shape, count - floors.get(shape, 0)) for shape, count in merged.items() if count > floors.get(shape, 0)),
        key=lambda item: item[0].size,
    )
    main = main_shape(gang) or next(iter(merged))
    room = room_per_domain(state, main, gang.domain_key, restrict)
    domains = domain_nodes(state, gang.domain_key, restrict)
    per_shape = {shape: room_per_domain(state, shape, gang.domain_key, restrict) for shape in merged}

    def may_fit(value: str) -> bool:  # each shape alone: its minimum fits, and all of them reach `need`
        if any(per_shape[shape].get(value, 0) < floor for shape, floor in floors.items()):
            return False
        return sum(min(per_shape[shape].get(value, 0), count) for shape, count in merged.items()) >= need

    candidates = [value for value in sorted(domains, key=lambda value: (room.get(value, 0), value)) if may_fit(value)]
    chosen, fitting, best_value, best_placed = _try_domains(
        state,
        candidates,
        domains,
        lambda nodes: _fill_choice(state, mandatory, optional, need, nodes),
        best_partial(room),
        stop_after=FITTING_SHOWN,
    )
    if chosen is not None:
        return Attempt(gang, True, chosen[0], _per_node(chosen[1]), need, fitting, room, assigned=chosen[1])
    if not best_placed and best_value in domains:  # every domain was ruled out: what the roomiest takes
        mark = state.checkpoint()
        best_placed = _fill_choice(state, mandatory, optional, need, domains[best_value])[0]
        state.rollback(mark)
    if not best_placed:
        best_value = best_domain(state, main, gang.domain_key, restrict, best_value)
    attempt = Attempt(gang, False, best_value, placeable=best_placed, room=room, heuristic=len(merged) > 1)
    small = all(len(nodes) <= EXACT_SEARCH_NODES for nodes in domains.values())
    if sum(merged.values()) <= EXACT_SEARCH_PODS and small:
        found = _search_choice(state, merged, floors, need, domains)
        if found is not None:
            value, pods = found
            return _searched(state, gang, value, pods, need, room)
        attempt.heuristic, attempt.searched = False, True
    return attempt


def _search_choice(
    state: ClusterState,
    merged: dict[PodShape, int],
    floors: dict[PodShape, int],
    need: int,
    domains: dict[str, list[int]],
) -> tuple[str, list[tuple[int, PodShape]]] | None:
    """A small gang the greedy choice did not place: every selection of `need` members that keeps
    the per-shape minimums, each searched exhaustively in every domain."""
    shapes = sorted(merged, key=lambda shape: shape.size)
    for selection in _selections(shapes, merged, floors, need):
        pods = [shape for shape, count in zip(shapes, selection, strict=True) for _ in range(count)]
        pods.sort(key=lambda shape: shape.size, reverse=True)
        for value in sorted(domains):
            found = exact_search(state, pods, domains[value])
            if found is not None:
                return value, found
    return None


def _selections(
    shapes: list[PodShape], merged: dict[PodShape, int], floors: dict[PodShape, int], need: int
) -> list[tuple[int, ...]]:
    """Pods per shape, each between its minimum and its members, `need` in all."""
    found: list[tuple[int, ...]] = []

    def pick(position: int, left: int, chosen: tuple[int, ...]) -> None:
        if position == len(shapes):
            if left == 0:
                found.append(chosen)
            return
        shape = shapes[position]
        for count in range(floors.get(shape, 0), min(merged[shape], left) + 1):
            pick(position + 1, left - count, (*chosen, count))

    pick(0, need, ())
    return found


def _fill_choice(
    state: ClusterState,
    mandatory: list[tuple[PodShape, int]],
    optional: list[tuple[PodShape, int]],
    need: int,
    nodes: list[int],
) -> tuple[int, list[tuple[int, PodShape, int]], bool]:
    """(pods placed, what was consumed, whether the gang is complete) in one domain."""
    placed, assigned = 0, []
    for phase, shapes in ((True, mandatory), (False, optional)):
        for shape, count in shapes:
            take = count if phase else min(count, need - placed)
            if take <= 0:
                break
            counts = state.view(shape).counts
            have = sum(counts[p] for p in nodes)
            chosen = fill(counts, nodes, min(take, have)) if have else {}
            for position, pods in chosen.items():
                state.consume(position, shape, pods)
                assigned.append((position, shape, pods))
            placed += sum(chosen.values())
            if phase and have < take:
                return placed, assigned, False
    return placed, assigned, placed >= need


def exact_search(state: ClusterState, pods: list[PodShape], nodes: list[int]) -> list[tuple[int, PodShape]] | None:
    """Every assignment of the pods to the nodes (equal pods in non-decreasing node order), on a
    private copy of the nodes' free capacity; the first that fits, or None."""
    free = {p: dict(state.free[p]) for p in nodes}
    allowed = {shape: [p for p in nodes if state.view(shape).excluded[p] is None] for shape in set(pods)}
    if any(shape.gpu_fraction or shape.gpu_memory_mib for shape in pods):
        return None  # device-level sharing is not modelled in the search
    steps = 0
    chosen: list[tuple[int, PodShape]] = []

    def fits(position: int, shape: PodShape) -> bool:
        have = free[position]
        return all(have.get(name, 0) >= amount for name, amount in shape.requests)

    def search(k: int, floor: int) -> bool:
        nonlocal steps
        if k == len(pods):
            return True
        steps += 1
        if steps > EXACT_SEARCH_STEPS:
            return False
        shape = pods[k]
        for position in allowed[shape]:
            if position < floor or not fits(position, shape):
                continue
            for name, amount in shape.requests:
                free[position][name] -= amount
            chosen.append((position, shape))
            next_floor = position if k + 1 < len(pods) and pods[k + 1] == shape else -1
            if search(k + 1, next_floor):
                return True
            chosen.pop()
            for name, amount in shape.requests:
                free[position][name] += amount
        return False

    return list(chosen) if search(0, -1) else None


def _place_composite(state: ClusterState, gang: Gang, restrict: list[int] | None) -> Attempt:
    """Parent domain first, then `min_groups` children inside it, each at its minimum; the
    largest children first. Tries every parent domain, the tightest (least room) first."""
    domains = domain_nodes(state, gang.domain_key, restrict)
    need = gang.min_groups
    children = sorted(gang.children, key=lambda child: _gang_size(child), reverse=True)
    shape = _first_shape(gang)
    room = room_per_domain(state, shape, gang.domain_key, restrict) if shape is not None else {}
    order = sorted(domains, key=lambda value: (room.get(value, 0), value))
    best: Attempt | None = None
    fitting: list[str] = []
    kept: Attempt | None = None
    for value in order:
        mark = state.checkpoint()
        results: list[Attempt] = []
        placed = 0
        for child in children:
            result = place(state, child, domains[value], keep=True)
            results.append(result)
            placed += result.feasible
            if placed >= need:
                break
        if placed >= need:
            fitting.append(value)
            if kept is None:
                assigned = [item for result in results for item in result.assigned]
                kept = Attempt(
                    gang, True, value, _per_node(assigned), placed, fitting, room, children=results, assigned=assigned
                )
                state.commit(mark)
                continue
        elif best is None or (placed, room.get(value, 0)) > (best.placeable, room.get(best.domain or "", 0)):
            best = Attempt(gang, False, value, placeable=placed, room=room, children=results)
        state.rollback(mark)
    if kept is not None:
        return kept
    return best or Attempt(gang, False, None, room=room)


def _gang_size(gang: Gang) -> tuple[int, ...]:
    shape = _first_shape(gang)
    size = shape.size if shape is not None else (0,)
    return (gang.required * (size[0] or 1), *size)


def _first_shape(gang: Gang) -> PodShape | None:
    if gang.children:
        return _first_shape(gang.children[0])
    return main_shape(gang)


# --------------------------------------------------------------------------- runs


def run_order(gangs: list[Gang]) -> list[Gang]:
    return sorted(gangs, key=lambda gang: (-gang.priority, gang.order))


def node_set(attempt: Attempt) -> set[int]:
    found = set(attempt.placement)
    for child in attempt.children:
        found |= node_set(child)
    return found
