"""On small inputs an exhaustive search agrees with the engine: a gang reported infeasible has no
placement at all, and a feasible gang's placement really fits (every node, every resource)."""

from __future__ import annotations

import itertools
from typing import Any

from feasibility_helpers import RACK, cluster, node
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from waslint.feasibility.analysis import analyse
from waslint.feasibility.model import Gang
from waslint.objects.quantity import MILLI
from waslint.objects.shapes import PodShape, shape_from_spec

RESOURCES = ("cpu", "nvidia.com/gpu")


@st.composite
def cases(draw: Any) -> tuple[list[dict[str, Any]], Gang]:
    count = draw(st.integers(1, 4))
    nodes = []
    for number in range(count):
        nodes.append(
            node(
                f"n{number}",
                gpu=draw(st.integers(0, 4)),
                cpu=str(draw(st.integers(0, 6))),
                pods=draw(st.integers(1, 4)),
                labels={RACK: draw(st.sampled_from(["r1", "r2"]))},
            )
        )
    shapes = []
    for _ in range(draw(st.integers(1, 3))):
        requests = {"cpu": str(draw(st.integers(0, 3))), "nvidia.com/gpu": str(draw(st.integers(0, 2)))}
        shape = shape_from_spec({"containers": [{"name": "c", "resources": {"requests": requests}}]})
        shapes.append((shape, draw(st.integers(1, 2))))
    total = sum(n for _, n in shapes)
    key = draw(st.sampled_from([None, RACK]))
    return nodes, Gang("PodGroup", "default", "g", total, shapes, key)


def fits(nodes: list[dict[str, Any]], assignment: list[tuple[int, PodShape]]) -> bool:
    for position, item in enumerate(nodes):
        allocatable = item["status"]["allocatable"]
        free = {name: int(allocatable.get(name, "0")) * MILLI for name in RESOURCES}
        free["pods"] = int(allocatable.get("pods", "110")) * MILLI
        for where, shape in assignment:
            if where == position:
                for name, amount in shape.requests:
                    free[name] = free.get(name, 0) - amount
        if any(value < 0 for value in free.values()):
            return False
    return True


def exhaustive(nodes: list[dict[str, Any]], gang: Gang) -> bool:
    pods = gang.pods_to_place()
    domains: dict[str | None, list[int]] = {}
    for position, item in enumerate(nodes):
        value = item["metadata"]["labels"][RACK] if gang.topology_key else None
        domains.setdefault(value, []).append(position)
    for members in domains.values():
        for choice in itertools.product(members, repeat=len(pods)):
            if fits(nodes, list(zip(choice, pods, strict=True))):
                return True
    return False


@settings(max_examples=examples(150))
@given(cases())
def test_infeasible_means_no_placement_exists(case: tuple[list[dict[str, Any]], Gang]) -> None:
    nodes, gang = case
    verdict = analyse(cluster(nodes), [gang]).verdicts[0]
    assert verdict.feasible == exhaustive(nodes, gang), (verdict.reasons, nodes)
    if verdict.feasible:
        names = {item["metadata"]["name"]: position for position, item in enumerate(nodes)}
        assert sum(verdict.placement.values()) == gang.required
        if gang.topology_key:
            racks = {nodes[names[name]]["metadata"]["labels"][RACK] for name in verdict.placement}
            assert len(racks) == 1


def test_largest_first_misses_a_placement_that_the_exhaustive_search_finds() -> None:
    # The GPU pod goes first (largest) onto the tightest node n0, leaving n0 one CPU short for the
    # 2-CPU pod; the only placement puts the GPU pod on n1. The engine must not call it infeasible.
    nodes = [node("n0", gpu=1, cpu="2"), node("n1", gpu=1, cpu="1")]
    gpu_pod = shape_from_spec(
        {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}}]}
    )
    cpu_pod = shape_from_spec({"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]})
    gang = Gang("PodGroup", "default", "g", 2, [(gpu_pod, 1), (cpu_pod, 1)])
    assert exhaustive(nodes, gang)
    verdict = analyse(cluster(nodes), [gang]).verdicts[0]
    assert verdict.feasible
    assert verdict.placement == {"n0": 1, "n1": 1}


@st.composite
def choice_cases(draw: Any) -> tuple[list[dict[str, Any]], Gang]:
    """A gang with more members than its minimum (and maybe per-shape minimums, as Volcano's
    minTaskMember): the scheduler places whichever members can run."""
    nodes, base = draw(cases())
    members = base.members
    total = sum(count for _, count in members)
    required = draw(st.integers(1, total))
    gang = Gang("PodGroup", "default", "g", required, members, base.topology_key)
    floors = [(shape, draw(st.integers(0, count))) for shape, count in members]
    if sum(count for _, count in floors) <= required:
        gang.minimums = [(shape, count) for shape, count in floors if count]
    return nodes, gang


def exhaustive_choice(nodes: list[dict[str, Any]], gang: Gang) -> bool:
    shapes = [shape for shape, _ in gang.members]
    floors = dict(gang.minimums)
    ranges = [range(floors.get(shape, 0), count + 1) for shape, count in gang.members]
    for selection in itertools.product(*ranges):
        if sum(selection) != gang.required:
            continue
        pods = [shape for shape, count in zip(shapes, selection, strict=True) for _ in range(count)]
        if exhaustive(nodes, Gang("PodGroup", "default", "g", len(pods), [(p, 1) for p in pods], gang.topology_key)):
            return True
    return False


@settings(max_examples=examples(150))
@given(choice_cases())
def test_members_chosen_by_where_they_can_run_agree_with_the_exhaustive_search(
    case: tuple[list[dict[str, Any]], Gang],
) -> None:
    nodes, gang = case
    verdict = analyse(cluster(nodes), [gang]).verdicts[0]
    assert verdict.feasible == exhaustive_choice(nodes, gang), (verdict.reasons, nodes, gang.members, gang.minimums)
    if verdict.feasible:
        assert sum(verdict.placement.values()) == gang.required
