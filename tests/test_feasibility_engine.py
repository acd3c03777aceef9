"""Worked examples of known answer for the placement engine (the Bar of issue 9)."""

from __future__ import annotations

from feasibility_helpers import RACK, ZONE, gang, node, rack_nodes, run, running, shape

from waslint.feasibility.model import Gang

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_four_free_gpus_three_pods_of_two_is_two_of_three() -> None:
    verdict = run([node("gpu-a", gpu=4)], [gang("train", shape(gpu=2), 3)]).verdicts[0]
    assert not verdict.feasible
    assert (verdict.placeable, verdict.required) == (2, 3)
    assert verdict.limiting_resource == "nvidia.com/gpu"
    assert "Resources were found for 2 pods while 3 are required for gang scheduling" in verdict.reasons


def test_running_pods_hold_capacity_so_the_same_gang_fits_one_less() -> None:
    nodes = [node("gpu-a", gpu=8)]
    assert run(nodes, [gang("train", shape(gpu=2), 4)]).verdicts[0].feasible
    busy = [running("old", "gpu-a", gpu=1)]
    verdict = run(nodes, [gang("train", shape(gpu=2), 4)], pods=busy).verdicts[0]
    assert (verdict.feasible, verdict.placeable) == (False, 3)


def test_finished_pods_hold_nothing_and_pending_bound_pods_do() -> None:
    nodes = [node("gpu-a", gpu=2)]
    done = [running("done", "gpu-a", gpu=2, phase="Succeeded"), running("failed", "gpu-a", gpu=2, phase="Failed")]
    assert run(nodes, [gang("g", shape(gpu=1), 2)], pods=done).verdicts[0].feasible
    pending = [running("bound", "gpu-a", gpu=2, phase="Pending")]
    assert not run(nodes, [gang("g", shape(gpu=1), 2)], pods=pending).verdicts[0].feasible


def test_rack_constraint_two_racks_of_four_cannot_hold_eight() -> None:
    nodes = rack_nodes({"rack-1": [2, 2], "rack-2": [2, 2]})
    constrained = run(nodes, [gang("train", shape(gpu=1), 8, key=RACK)]).verdicts[0]
    assert not constrained.feasible
    assert (constrained.placeable, constrained.required) == (4, 8)
    assert constrained.domain == "rack-1"  # best attempt: the first of two equal racks
    fragmentation = [r for r in constrained.reasons if "at most" in r]
    assert fragmentation == [
        "room for 8 pods on eligible nodes in all (8 nvidia.com/gpu free, 1 per pod), at most 4 in one rack"
        " (topology.kubernetes.io/rack=rack-1); the gang needs 8 in one rack"
    ]
    free = run(nodes, [gang("train", shape(gpu=1), 8)]).verdicts[0]
    assert free.feasible
    assert sum(free.placement.values()) == 8
    assert free.domain is None


def test_taint_only_some_nodes_carry() -> None:
    nodes = [
        node("gpu-a", gpu=4, taints=[GPU_TAINT]),
        node("gpu-b", gpu=4, taints=[GPU_TAINT]),
        node("gpu-c", gpu=4),
    ]
    intolerant = run(nodes, [gang("g", shape(gpu=4), 2)]).verdicts[0]
    assert not intolerant.feasible
    assert intolerant.placeable == 1
    assert intolerant.exclusions == {'taint "nvidia.com/gpu=true:NoSchedule" not tolerated': 2}
    assert any('2 nodes: taint "nvidia.com/gpu=true:NoSchedule" not tolerated' in r for r in intolerant.reasons)
    tolerant = run(nodes, [gang("g", shape(gpu=4, tolerations=TOLERATE_GPU), 2)]).verdicts[0]
    assert tolerant.feasible
    assert tolerant.placement == {"gpu-a": 1, "gpu-b": 1}  # tightest fit: the first equal nodes


def composite(key: str | None) -> Gang:
    children = [
        gang("child-a", shape(gpu=4), 1, key=RACK),
        gang("child-b", shape(gpu=4, nodeSelector={"pool": "b"}), 1, key=RACK),
    ]
    return Gang("CompositePodGroup", "default", "parent", 2, [], key, children=children, min_groups=2)


def test_composite_children_fit_only_in_different_zones() -> None:
    nodes = [
        node("a1", gpu=4, labels={ZONE: "zone-a", RACK: "ra"}),
        node("b1", gpu=4, labels={ZONE: "zone-b", RACK: "rb", "pool": "b"}),
    ]
    one_zone = run(nodes, [composite(ZONE)]).verdicts[0]
    assert not one_zone.feasible
    assert (one_zone.placeable, one_zone.required) == (1, 2)
    assert one_zone.domain == "zone-a"
    assert any("1 of 2 required child groups fit in one zone" in r for r in one_zone.reasons)
    anywhere = run(nodes, [composite(None)]).verdicts[0]
    assert anywhere.feasible
    assert anywhere.placement == {"a1": 1, "b1": 1}


def test_second_gang_fits_only_if_the_first_takes_the_tight_rack() -> None:
    # rack-small has 4 free GPUs, rack-big 8: best fit puts the first (4-GPU) gang into rack-small,
    # which leaves rack-big whole for the second (8-GPU) gang; largest-first would block it.
    nodes = rack_nodes({"rack-big": [4, 4], "rack-small": [4]})
    first = gang("first", shape(gpu=4), 1, key=RACK, order=0)
    second = gang("second", shape(gpu=4), 2, key=RACK, order=1)
    result = run(nodes, [first, second])
    assert [v.feasible for v in result.verdicts] == [True, True]
    assert result.verdicts[0].domain == "rack-small"
    assert result.verdicts[1].domain == "rack-big"


def test_blocked_gang_names_the_earlier_gang() -> None:
    nodes = rack_nodes({"rack-1": [4, 4]})
    first = gang("first", shape(gpu=4), 2, key=RACK, order=0)
    second = gang("second", shape(gpu=4), 2, key=RACK, order=1)
    verdicts = run(nodes, [first, second]).verdicts
    assert verdicts[0].feasible and not verdicts[1].feasible
    assert verdicts[1].blocked_by == [first]
    assert any(r.startswith("blocked by PodGroup default/first") for r in verdicts[1].reasons)


def test_priority_order_beats_file_order() -> None:
    nodes = rack_nodes({"rack-1": [4, 4]})
    low = gang("low", shape(gpu=4), 2, key=RACK, priority=10, order=0)
    high = gang("high", shape(gpu=4), 2, key=RACK, priority=1000, order=1)
    result = run(nodes, [low, high])
    assert [g.name for g in result.order] == ["high", "low"]
    assert [v.feasible for v in result.verdicts] == [False, True]
    assert result.verdicts[0].blocked_by == [high]


def test_required_is_the_minimum_not_the_member_count() -> None:
    nodes = [node("gpu-a", gpu=4)]
    verdict = run(nodes, [gang("elastic", shape(gpu=1), 8, required=4)]).verdicts[0]
    assert verdict.feasible
    assert (verdict.required, sum(verdict.placement.values())) == (4, 4)
