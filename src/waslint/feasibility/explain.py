"""The words of a verdict: how many pods fit against how many are required (KAI's "Resources were
found for 2 pods while 3 are required" is the floor), in which domain, per-reason node counts
(Kueue's exclusion stats), the limiting resource, and the fragmentation view (free in the cluster
against free in the best single domain). Feasible gangs get their domain, pods per node and the
headroom left.

Everything is computed from the state at the moment the gang was placed, before later gangs of
the run consume more.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from waslint.feasibility.capacity import WHOLE, ClusterState, ShapeView
from waslint.feasibility.model import Gang
from waslint.feasibility.placement import Attempt, best_partial, domain_nodes, main_shape, place
from waslint.feasibility.quota import Admission
from waslint.objects.quantity import GPU, MILLI, resource_rank, show_amount
from waslint.objects.shapes import PodShape

BAR_DOMAINS = 8  # domains shown in the per-domain capacity view


@dataclass
class DomainRoom:
    """One row of the per-domain view: free amount of the limiting resource on eligible nodes,
    and pods of the gang's main shape that fit there."""

    value: str
    free: int
    pods: int


@dataclass
class Verdict:
    gang: Gang
    feasible: bool
    required: int
    placeable: int
    key: str | None
    domain: str | None
    fitting_domains: list[str] = field(default_factory=list)
    placement: dict[str, int] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    exclusions: dict[str, int] = field(default_factory=dict)
    limiting_resource: str | None = None
    blocked_by: list[Gang] = field(default_factory=list)
    headroom: dict[str, str] = field(default_factory=dict)
    rooms: list[DomainRoom] = field(default_factory=list)  # the roomiest domains
    domains_total: int = 0
    children: list[Verdict] = field(default_factory=list)
    what_if: list[str] = field(default_factory=list)
    tabled: set[str] = field(default_factory=set)  # reasons the text report shows as table rows
    queue: Admission | None = None  # the gang's admission by its queue (admission.py), None: it names none

    @property
    def over_quota(self) -> bool:
        """Not placed because its queue did not admit it (rather than for want of capacity)."""
        return self.queue is not None and not self.queue.admitted

    def to_json(self, path: str | None, line: int | None) -> dict[str, Any]:
        return {
            **self.gang.identity,
            "path": path,
            "line": line,
            "feasible": self.feasible,
            "required": self.required,
            "placeable": self.placeable,
            "bound": self.gang.bound,
            "domain": self.domain_json(),
            "fitting_domains": self.fitting_domains,
            "placement": self.placement,
            "reasons": self.reasons,
            "exclusions": self.exclusions,
            "limiting_resource": self.limiting_resource,
            "blocked_by": [gang.identity for gang in self.blocked_by],
            "priority": self.gang.priority,
            "headroom": self.headroom,
            "domain_counts": [
                {
                    "domain": row.value,
                    "placeable": row.pods,
                    "required": self.required,
                    "free": show_amount(self.limiting_resource, row.free) if self.limiting_resource else None,
                    "resource": self.limiting_resource,
                }
                for row in self.rooms
            ],
            "children": [child.to_json(None, None) for child in self.children],
            "what_if": self.what_if,
            "queue": self.queue.to_json() if self.queue is not None else None,
            "blocked_by_quota": self.over_quota,
            "caveats": self.gang.caveats,
        }

    def domain_json(self) -> dict[str, Any] | None:
        """The chosen (or best) domain; a path domain (Kueue, KAI) also lists every level's value."""
        if not self.key or not self.domain:
            return None
        found: dict[str, Any] = {"key": self.key, "value": self.domain}
        levels = self.gang.domain_levels
        values = self.domain.split("/")
        if levels and len(values) == len(levels) + 1:
            found["levels"] = [{"key": k, "value": v} for k, v in zip((*levels, self.key), values, strict=True)]
        return found

    def summary_line(self) -> str:
        """One sentence for a lint finding or a table cell."""
        said = "; ".join(self.reasons) if self.reasons else "fits"
        if self.gang.caveats:
            said += f"; the verdict rests on what waslint does not model: {'; '.join(self.gang.caveats)}"
        return said


def pods_word(count: int) -> str:
    return "1 pod" if count == 1 else f"{count} pods"


def nodes_word(count: int) -> str:
    return "1 node" if count == 1 else f"{count} nodes"


def domain_label(key: str | None) -> str:
    return key.rsplit("/", 1)[-1] if key else "cluster"


def explain(state: ClusterState, attempt: Attempt) -> Verdict:
    gang = attempt.gang
    if gang.composite:
        return _explain_composite(state, attempt)
    verdict = Verdict(
        gang=gang,
        feasible=attempt.feasible,
        required=gang.required,
        placeable=_with_bound(attempt),
        key=gang.topology_key,
        domain=attempt.domain if attempt.domain != WHOLE else None,
    )
    verdict.reasons.extend(gang.problems)
    shape = main_shape(gang)
    if shape is None or gang.problems:
        return verdict
    view = state.view(shape)
    stats = Stats(state, view, gang.domain_key, attempt.restrict)
    verdict.exclusions = stats.exclusions(attempt.placement)
    best_nodes = stats.domains.get(attempt.domain, []) if attempt.domain is not None else []
    verdict.limiting_resource = stats.limiting(best_nodes, attempt.domain, exact=not attempt.feasible)
    verdict.fitting_domains = [value for value in attempt.fitting if value != WHOLE]
    verdict.placement = {state.nodes[p].name: pods for p, pods in sorted(attempt.placement.items())}
    if attempt.feasible:
        _feasible_words(verdict, stats)
    else:
        verdict.rooms = stats.rooms(verdict.limiting_resource, attempt.room)
        verdict.domains_total = len(stats.domains)
        _infeasible_words(verdict, stats, attempt)
    for note in gang.notes:
        verdict.reasons.append(note)
    return verdict


def _with_bound(attempt: Attempt) -> int:
    """Pods that fit, the gang's already bound members included (capped at the minimum when it fails)."""
    found = attempt.placeable + attempt.gang.bound
    return found if attempt.feasible else min(found, attempt.gang.required)


EXACT_LIMIT_NODES = 2000  # above this, the limiting resource is judged from domain sums


class Stats:
    """What the words need about one shape in one run state: kept-up-to-date sums from the view
    for the whole cluster, a scan of the nodes when the gang is restricted to some (a child of a
    composite group inside its parent's domain)."""

    def __init__(self, state: ClusterState, view: ShapeView, key: str | None, restrict: list[int] | None) -> None:
        self.state, self.view, self.key, self.restrict = state, view, key, restrict
        self.domains = domain_nodes(state, key, restrict)

    @property
    def considered(self) -> int:
        return len(self.state.nodes) if self.restrict is None else len(self.restrict)

    def exclusions(self, placed: dict[int, int]) -> dict[str, int]:
        """Nodes by the first reason they take no pod of the shape: a filter, no topology label,
        then the limiting resource; the nodes this gang was just placed on had room before it."""
        view, key = self.view, self.key
        found: Counter[str] = Counter()
        if self.restrict is not None:
            values = self.state.label_values(key)
            for position in self.restrict:
                reason = view.excluded[position]
                if reason is None and key is not None and values[position] is None:
                    reason = f"no {key} label"
                if reason is None and view.counts[position] == 0 and position not in placed:
                    reason = f"insufficient {view.limits[position]}"
                if reason is not None:
                    found[reason] += 1
        else:
            found.update(view.static)
            zero = Counter(view.zero)
            if key is not None:
                unlabelled = view.unlabelled(key)
                if unlabelled:
                    found[f"no {key} label"] = len(unlabelled)
                for position in unlabelled:
                    if view.counts[position] == 0:
                        zero[view.limits[position]] -= 1
            for position in placed:
                if view.excluded[position] is None and view.counts[position] == 0:
                    zero[view.limits[position]] -= 1
            for limit, count in zero.items():
                if count > 0:
                    found[f"insufficient {limit}"] += count
        return dict(sorted(found.items(), key=lambda item: (-item[1], item[0])))

    def free(self, resource: str) -> dict[str, int]:
        """Domain -> free amount of the resource on its eligible nodes."""
        if self.restrict is None:
            return self.view.free_sums(self.key, resource)
        free, excluded = self.state.free, self.view.excluded
        return {
            value: sum(free[p].get(resource, 0) for p in nodes if excluded[p] is None)
            for value, nodes in self.domains.items()
        }

    def room(self) -> dict[str, int]:
        if self.restrict is None:
            return self.view.sums(self.key)
        counts = self.view.counts
        return {value: sum(counts[p] for p in nodes) for value, nodes in self.domains.items()}

    def limiting(self, nodes: list[int], domain: str | None, exact: bool = True) -> str | None:
        """The requested resource with the least room (in pods) in the best domain (the whole
        considered set when there is none). Not exact: judged from the domain's free sums (for a
        feasible gang, or a domain too large to scan)."""
        view, shape = self.view, self.view.shape
        if not nodes:
            nodes = list(range(len(self.state.nodes))) if self.restrict is None else self.restrict
        if shape.gpu_fraction or shape.gpu_memory_mib:
            limits = Counter(view.limits[p] for p in nodes if view.excluded[p] is None and view.limits[p])
            return limits.most_common(1)[0][0] if limits else GPU
        if (not exact or len(nodes) > EXACT_LIMIT_NODES) and (domain is not None or self.key is None):
            domain = domain if domain is not None else WHOLE
            room = {name: max(0, self.free(name).get(domain, 0)) // amount for name, amount in shape.requests}
        else:
            eligible = [p for p in nodes if view.excluded[p] is None]
            if not eligible:
                return None
            free = self.state.free
            room = {
                name: sum(max(0, free[p].get(name, 0)) // amount for p in eligible) for name, amount in shape.requests
            }
        ordered = sorted(room, key=lambda name: (room[name], resource_rank(name)))
        return ordered[0] if ordered else None

    def rooms(self, resource: str | None, room: dict[str, int]) -> list[DomainRoom]:
        """The roomiest domains (at most BAR_DOMAINS), with the free amount of the resource."""
        free = self.free(resource) if resource else {}
        pods = room or self.room()
        if self.restrict is None:
            values = self.view.ranked(self.key).largest(BAR_DOMAINS)
        else:
            values = sorted(self.domains, key=lambda value: (-pods.get(value, 0), value))[:BAR_DOMAINS]
        rows = [DomainRoom(value, max(0, free.get(value, 0)), pods.get(value, 0)) for value in values]
        return sorted(rows, key=lambda row: (-row.pods, -row.free, row.value))

    def most_free(self, resource: str) -> tuple[str, int] | None:
        """The domain with the most of the resource free on eligible nodes (ties: the first value)."""
        free = self.free(resource)
        if not free:
            return None
        amount = max(free.values())
        return min(value for value, have in free.items() if have == amount), max(0, amount)


def _per_pod(shape: PodShape, resource: str) -> int:
    if resource == GPU and shape.gpu_fraction:
        return shape.gpu_fraction
    return shape.amount(resource)


def _feasible_words(verdict: Verdict, stats: Stats) -> None:
    where = f"{verdict.key}={verdict.domain}" if verdict.key else "the cluster"
    spread = ", ".join(f"{name}: {pods}" for name, pods in verdict.placement.items())
    verdict.reasons.append(f"fits in {where}: {pods_word(sum(verdict.placement.values()))} ({spread})")
    others = [value for value in verdict.fitting_domains if value != verdict.domain]
    if others:
        shown = ", ".join(others[:8]) + (f" and {len(others) - 8} more" if len(others) > 8 else "")
        verdict.reasons.append(f"would also fit in {verdict.key}: {shown}")
        verdict.tabled.add(verdict.reasons[-1])
    resource = verdict.limiting_resource
    domain = verdict.domain if verdict.domain is not None else WHOLE
    if resource is not None and domain in stats.domains:
        left = max(0, stats.free(resource).get(domain, 0))
        more = stats.room().get(domain, 0)
        verdict.headroom = {"resource": resource, "free_after": show_amount(resource, left), "more_pods": str(more)}
        verdict.reasons.append(
            f"headroom in {where} after placement: {show_amount(resource, left)} {resource} free,"
            f" room for {pods_word(more)} more of this shape"
        )
        verdict.tabled.add(verdict.reasons[-1])


def _infeasible_words(verdict: Verdict, stats: Stats, attempt: Attempt) -> None:
    gang, key = verdict.gang, verdict.key
    found, need = verdict.placeable, gang.required
    if key is not None and not stats.domains:
        verdict.reasons.append(f"no node carries the topology label {key}: the gang can never be placed")
    where = f" in one {key} domain (best: {key}={verdict.domain})" if key and verdict.domain else ""
    scheduling = " for gang scheduling" if gang.is_gang else ""
    verdict.reasons.append(
        f"Resources were found for {pods_word(found)} while {need} {'is' if need == 1 else 'are'}"
        f" required{scheduling}{where}"
    )
    if not gang.is_gang and found < need:
        verdict.reasons.append(
            f"no gang: each Pod is scheduled on its own, so {found} of {need} can start now and"
            f" {need - found} stay Pending"
        )
    if verdict.exclusions:
        listed = "; ".join(f"{nodes_word(count)}: {reason}" for reason, count in verdict.exclusions.items())
        verdict.reasons.append(f"{nodes_word(stats.considered)} in all; {listed}")
        verdict.tabled.add(verdict.reasons[-1])
    resource = verdict.limiting_resource
    if resource is not None:
        verdict.reasons.append(_fragmentation(verdict, stats, resource))
        verdict.reasons.append(f"limiting resource: {resource}")
        verdict.tabled.add(verdict.reasons[-1])
    if attempt.heuristic:
        verdict.reasons.append(
            "mixed pod sizes: largest-first placement found no fit; this is a heuristic (bin packing),"
            " an exhaustive search was too large to run"
        )


def _fragmentation(verdict: Verdict, stats: Stats, resource: str) -> str:
    """Free against usable, in pods: a summed "4 cpu free, the gang needs 4" can contradict "no
    pod fits" when the 4 CPUs are spread over nodes, so the line counts whole pods that fit."""
    key, need, shape = verdict.key, verdict.gang.required, stats.view.shape
    free_total = sum(max(0, amount) for amount in stats.free(resource).values())
    if resource == GPU and shape.gpu_fraction:
        state, excluded = stats.state, stats.view.excluded
        free_total += sum(
            sum(state.partial[p]) for nodes in stats.domains.values() for p in nodes if excluded[p] is None
        )
    room = stats.room()
    pods_total = sum(room.values())
    per_pod = show_amount(resource, _per_pod(shape, resource))
    free = f"{show_amount(resource, free_total)} {resource} free, {per_pod} per pod"
    if key is None:
        return f"room for {pods_word(pods_total)} on eligible nodes ({free}); the gang needs {need}"
    label = domain_label(key)
    top = best_partial(room)
    most = f", at most {room[top]} in one {label} ({key}={top})" if top is not None else ""
    return (
        f"room for {pods_word(pods_total)} on eligible nodes in all ({free}){most};"
        f" the gang needs {need} in one {label}"
    )


def _explain_composite(state: ClusterState, attempt: Attempt) -> Verdict:
    gang = attempt.gang
    verdict = Verdict(
        gang=gang,
        feasible=attempt.feasible,
        required=gang.min_groups,
        placeable=attempt.placeable,
        key=gang.topology_key,
        domain=attempt.domain if attempt.domain != WHOLE else None,
        fitting_domains=[value for value in attempt.fitting if value != WHOLE],
    )
    verdict.reasons.extend(gang.problems)
    if gang.problems:
        return verdict
    verdict.placement = {state.nodes[p].name: pods for p, pods in sorted(attempt.placement.items())}
    where = f"{gang.topology_key}={attempt.domain}" if gang.topology_key and attempt.domain else "the cluster"
    verdict.children = _replay_children(state, attempt)
    if attempt.feasible:
        verdict.reasons.append(
            f"fits in {where}: {attempt.placeable} of {len(gang.children)} child groups"
            f" (minGroupCount {gang.min_groups})"
        )
    else:
        if attempt.domain is None and gang.topology_key is not None:
            verdict.reasons.append(
                f"no node carries the topology label {gang.topology_key}: no domain to place the group in"
            )
        inside = (
            f"in one {domain_label(gang.topology_key)} domain (best: {where})"
            if gang.topology_key
            else "in the cluster"
        )
        verdict.reasons.append(
            f"{attempt.placeable} of {gang.min_groups} required child groups fit {inside}, each child at its minimum"
        )
        for child in verdict.children:
            if not child.feasible:
                verdict.reasons.append(f"{child.gang}: {'; '.join(child.reasons[:2])}")
        limits = [child.limiting_resource for child in verdict.children if child.limiting_resource]
        verdict.limiting_resource = Counter(limits).most_common(1)[0][0] if limits else None
    return verdict


def _replay_children(state: ClusterState, attempt: Attempt) -> list[Verdict]:
    """Explain each child as placement saw it inside the chosen (or best) parent domain: earlier
    siblings consume capacity, exactly as in the attempt; the state is left unchanged."""
    if attempt.domain is None:
        return []
    nodes = domain_nodes(state, attempt.gang.domain_key, attempt.restrict).get(attempt.domain, [])
    mark = state.checkpoint()
    if attempt.feasible:  # undo the committed placement of the children first, then replay it
        release(state, attempt)
    verdicts = []
    for child in attempt.children:
        result = place(state, child.gang, nodes, keep=True)
        verdicts.append(explain(state, result))
    state.rollback(mark)
    return verdicts


def release(state: ClusterState, attempt: Attempt) -> None:
    """Give back what a kept attempt consumed."""
    for position, shape, pods in attempt.assigned:
        fraction = state.fraction_of(position, shape) or 0
        for _ in range(pods):
            state.give_back(position, shape.request_map, fraction)


def gpu_units(requests: dict[str, int], fraction: int) -> float:
    return (requests.get(GPU, 0) + fraction) / MILLI
