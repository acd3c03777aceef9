"""Placement cases taken from the test suites of Kueue TAS and KAI-Scheduler (each case names its
source test), plus GPU fractions, preemption and the what-ifs."""

from __future__ import annotations

from feasibility_helpers import RACK, gang, node, run, running, shape

from waslint.feasibility.analysis import WhatIf
from waslint.feasibility.model import Gang

KUEUE_BLOCK = "cloud.com/topology-block"
KUEUE_RACK = "cloud.com/topology-rack"
KAI_RACK = "k8s.io/rack"
KAI_SPINE = "k8s.io/spine"


def kueue_node(name: str, block: str, rack: str, cpu: str, pods: int = 10) -> dict[str, object]:
    return node(name, cpu=cpu, memory="1Gi", pods=pods, labels={KUEUE_BLOCK: block, KUEUE_RACK: rack})


def test_kueue_choose_the_node_that_can_accommodate_all_pods() -> None:
    # kueue pkg/cache/tas_cache_test.go TestFindTopologyAssignment
    # "choose the node that can accommodate all Pods": x1:2, x2:1, x3:1 CPUs, 2 pods of 1 CPU,
    # block required -> both pods on x1.
    nodes = [kueue_node("x1", "b1", "r1", "2"), kueue_node("x2", "b1", "r1", "1"), kueue_node("x3", "b1", "r1", "1")]
    verdict = run(nodes, [gang("ps", shape(cpu="1"), 2, key=KUEUE_BLOCK)]).verdicts[0]
    assert verdict.feasible
    assert verdict.placement == {"x1": 2}


def test_kueue_rack_requirement_picks_the_only_rack_with_room() -> None:
    # kueue TestFindTopologyAssignment "minimize the number of used racks before optimizing the
    # number of nodes; BestFit", asked at the rack level: r1 and r2 hold 2 pods each, r3 holds 4
    # (x3..x6 with 1 CPU each), so 4 pods in one rack go to r3, one per node.
    nodes = [
        kueue_node("x1", "b1", "r1", "2"),
        kueue_node("x2", "b1", "r2", "2", pods=20),
        *(kueue_node(f"x{n}", "b1", "r3", "1") for n in range(3, 7)),
    ]
    verdict = run(nodes, [gang("ps", shape(cpu="1"), 4, key=KUEUE_RACK)]).verdicts[0]
    assert verdict.domain == "r3"
    assert verdict.placement == {"x3": 1, "x4": 1, "x5": 1, "x6": 1}
    assert verdict.fitting_domains == ["r3"]


def test_kueue_block_too_small_reports_k_of_n_and_the_exclusions() -> None:
    # kueue TestFindTopologyAssignment default tree (b1: x1..x4 with 1 CPU, b2: x5 with 1, x6 with 2)
    # asked for 5 one-CPU pods in one block: b1 fits 4 ("allows to fit only 4 out of 5 pod(s)").
    nodes = [
        kueue_node("x1", "b1", "r1", "1"),
        kueue_node("x2", "b1", "r2", "1"),
        kueue_node("x3", "b1", "r2", "1"),
        kueue_node("x4", "b1", "r2", "1"),
        kueue_node("x5", "b2", "r1", "1"),
        kueue_node("x6", "b2", "r2", "2", pods=40),
    ]
    verdict = run(nodes, [gang("ps", shape(cpu="1"), 5, key=KUEUE_BLOCK)]).verdicts[0]
    assert not verdict.feasible
    assert (verdict.domain, verdict.placeable) == ("b1", 4)
    assert verdict.limiting_resource == "cpu"


def kai_node(name: str, gpus: int, **labels: str) -> dict[str, object]:
    return node(name, gpu=gpus, labels=labels)


def test_kai_required_rack_schedules_all_tasks_on_the_same_rack() -> None:
    # KAI pkg/scheduler/actions/allocate/allocateTopology_test.go
    # "Required topology level - schedule all tasks on the same rack": node0 (busy) and node1 in
    # rack1, node2 and node3 in rack2, 1 GPU each; 2 tasks of 1 GPU -> node2 and node3.
    nodes = [kai_node(f"node{n}", 1, **{KAI_RACK: "rack1" if n < 2 else "rack2"}) for n in range(4)]
    busy = [running("running_job0-0", "node0", gpu=1)]
    verdict = run(nodes, [gang("pending_job0", shape(gpu=1), 2, key=KAI_RACK)], pods=busy).verdicts[0]
    assert verdict.domain == "rack2"
    assert verdict.placement == {"node2": 1, "node3": 1}


def test_kai_affinity_of_one_task_moves_the_gang_to_the_next_domain() -> None:
    # KAI allocateTopology_test.go "Required topology level - could not schedule on first domain
    # due to affinity, goes to next": one task needs a label only rack2 carries.
    nodes = [
        kai_node("node0", 1, **{KAI_RACK: "rack1"}),
        kai_node("node1", 1, **{KAI_RACK: "rack1"}),
        kai_node("node2", 1, **{KAI_RACK: "rack2", "affinity": "affinity1"}),
        kai_node("node3", 1, **{KAI_RACK: "rack2", "affinity": "affinity1"}),
    ]
    picky = shape(gpu=1, nodeSelector={"affinity": "affinity1"})
    mixed = Gang("PodGroup", "default", "pending_job0", 2, [(picky, 1), (shape(gpu=1), 1)], KAI_RACK)
    verdict = run(nodes, [mixed]).verdicts[0]
    assert verdict.feasible
    assert verdict.domain == "rack2"
    assert verdict.placement == {"node2": 1, "node3": 1}


def test_kai_required_spine_takes_the_spine_with_room() -> None:
    # KAI allocateTopology_test.go "Required topology with multiple levels - schedule all tasks on
    # the same spine": node0 (spine1, 1 of 2 GPUs busy), node1 (spine2); 2 tasks -> node1.
    nodes = [
        kai_node("node0", 2, **{KAI_RACK: "rack1", KAI_SPINE: "spine1"}),
        kai_node("node1", 2, **{KAI_RACK: "rack1", KAI_SPINE: "spine2"}),
    ]
    busy = [running("running_job0-0", "node0", gpu=1)]
    verdict = run(nodes, [gang("pending_job0", shape(gpu=1), 2, key=KAI_SPINE)], pods=busy).verdicts[0]
    assert (verdict.domain, verdict.placement) == ("spine2", {"node1": 2})


def test_kai_required_rack_four_tasks_go_to_the_free_rack() -> None:
    # KAI allocateTopology_test.go "Required topology with multiple levels - schedule all tasks on
    # the same rack": 4 nodes of 2 GPUs, node0 partly busy; 4 tasks in one rack -> rack2.
    labels = [("rack1", "spine1"), ("rack1", "spine2"), ("rack2", "spine1"), ("rack2", "spine2")]
    nodes = [kai_node(f"node{n}", 2, **{KAI_RACK: r, KAI_SPINE: s}) for n, (r, s) in enumerate(labels)]
    busy = [running("running_job0-0", "node0", gpu=1)]
    verdict = run(nodes, [gang("pending_job0", shape(gpu=1), 4, key=KAI_RACK)], pods=busy).verdicts[0]
    assert (verdict.domain, verdict.placement) == ("rack2", {"node2": 2, "node3": 2})


def test_kai_partially_occupied_rack_still_fits() -> None:
    # KAI allocateTopology_test.go "... schedule all tasks on the same partially occupied rack":
    # KAI puts one task on each node (bin packing order); the verdict and the rack agree.
    nodes = [kai_node("node0", 2, **{KAI_RACK: "rack1"}), kai_node("node1", 2, **{KAI_RACK: "rack1"})]
    busy = [running("running_job0-0", "node0", gpu=1)]
    verdict = run(nodes, [gang("pending_job0", shape(gpu=1), 2, key=KAI_RACK)], pods=busy).verdicts[0]
    assert verdict.feasible and verdict.domain == "rack1"
    assert sum(verdict.placement.values()) == 2


def test_kai_allocate_two_gpu_tasks_on_a_four_gpu_node() -> None:
    # KAI actions/integration_tests/allocate/allocate_test.go: two pending jobs of one 2-GPU task
    # each on node0 with 4 GPUs both fit (the queue limits that test adds are out of scope).
    nodes = [node("node0", gpu=4)]
    verdicts = run(
        nodes, [gang("pending_job0", shape(gpu=2), 1), gang("pending_job1", shape(gpu=2), 1, order=1)]
    ).verdicts
    assert [v.feasible for v in verdicts] == [True, True]
    third = run(nodes, [gang(f"j{n}", shape(gpu=2), 1, order=n) for n in range(3)]).verdicts[2]
    assert not third.feasible


def test_gpu_fractions_share_devices_counted_per_device() -> None:
    # KAI gpu-fraction: 0.4 of a device; two fit on one device, a third needs another device.
    nodes = [node("gpu-a", gpu=1)]
    fraction = shape(annotations={"gpu-fraction": "0.4"})
    assert run(nodes, [gang("g", fraction, 2)]).verdicts[0].feasible
    verdict = run(nodes, [gang("g", fraction, 3)]).verdicts[0]
    assert (verdict.feasible, verdict.placeable) == (False, 2)  # summing fractions (1.2) would say "no" too late
    two_devices = [node("gpu-b", gpu=2)]
    assert run(two_devices, [gang("g", fraction, 4)]).verdicts[0].feasible
    assert not run(two_devices, [gang("g", fraction, 5)]).verdicts[0].feasible
    # a running fractional pod occupies part of a device
    busy = [running("half", "gpu-a", annotations={"gpu-fraction": "0.5"})]
    verdict = run(nodes, [gang("g", fraction, 2)], pods=busy).verdicts[0]
    assert (verdict.feasible, verdict.placeable) == (False, 1)


def test_gpu_memory_is_sized_against_the_device() -> None:
    nodes = [node("gpu-a", gpu=1, labels={"nvidia.com/gpu.memory": "40000"})]
    quarter = shape(annotations={"gpu-memory": "10000"})
    assert run(nodes, [gang("g", quarter, 4)]).verdicts[0].feasible
    assert not run(nodes, [gang("g", quarter, 5)]).verdicts[0].feasible


def test_preempt_finds_the_cheapest_victims_by_gpu_count() -> None:
    nodes = [node("a", gpu=4, labels={RACK: "r1"}), node("b", gpu=4, labels={RACK: "r2"})]
    busy = [
        running("low-big", "a", gpu=4, priority=10),
        running("low-small", "b", gpu=2, priority=10),
        running("high", "b", gpu=2, priority=1000),
    ]
    wanted = gang("urgent", shape(gpu=2), 2, key=RACK, priority=100)
    verdict = run(nodes, [wanted], pods=busy, preempt=True).verdicts[0]
    assert not verdict.feasible
    # r2 cannot: its other 2 GPUs belong to a higher priority; r1 after evicting low-big (4 GPUs)
    assert verdict.what_if == [
        "--preempt: fits in topology.kubernetes.io/rack=r1 after evicting 1 pod(s) holding 4 GPU(s): pod default/low-big"
    ]


def test_preempt_evicts_an_all_group_whole() -> None:
    from feasibility_helpers import cluster

    from waslint.feasibility.analysis import analyse, build_cluster

    nodes = [node("a", gpu=2), node("b", gpu=2)]
    busy = [running("m0", "a", gpu=2, priority=1, group="job"), running("m1", "b", gpu=2, priority=1, group="job")]
    wanted = gang("urgent", shape(gpu=2), 1, priority=100)
    single = analyse(cluster(nodes, busy), [wanted], preempt=True).verdicts[0]
    assert "evicting 1 pod(s)" in single.what_if[0]
    whole = build_cluster(nodes, busy, [], None, {("default", "job")})
    verdict = analyse(whole, [wanted], preempt=True).verdicts[0]
    assert "evicting 2 pod(s) holding 4 GPU(s): group default/job (disruptionMode all)" in verdict.what_if[0]


def test_drain_and_add_nodes_answer_the_autoscaler_question() -> None:
    nodes = [node("gpu-a", gpu=8, labels={RACK: "rack-3"}), node("gpu-b", gpu=8, labels={RACK: "rack-3"})]
    train = gang("train", shape(gpu=8), 4, key=RACK)
    assert not run(nodes, [train]).verdicts[0].feasible
    grown = WhatIf(add_nodes=2, like="gpu-a", labels={RACK: "rack-3"})
    verdict = run(nodes, [train], what_if=grown).verdicts[0]
    assert verdict.feasible
    assert set(verdict.placement) == {"gpu-a", "gpu-b", "gpu-a-new-1", "gpu-a-new-2"}
    elsewhere = WhatIf(add_nodes=2, like="gpu-a", labels={RACK: "rack-4"})
    assert not run(nodes, [train], what_if=elsewhere).verdicts[0].feasible
    drained = run(nodes, [gang("two", shape(gpu=8), 2, key=RACK)], what_if=WhatIf(drain=["gpu-b"])).verdicts[0]
    assert not drained.feasible
    assert drained.exclusions["drained (--drain)"] == 1


# --------------------------------------------------------------------------- domains are paths (issue 17 item 3)


def kueue_tree() -> list[dict[str, object]]:
    """kueue pkg/cache/scheduler/tas_cache_test.go TestFindTopologyAssignments `defaultNodes`:
    b1 { r1: x3, r2: x5 x1 x6 }, b2 { r1: x2, r2: x4 }; every node 1 CPU but x4 (2 CPU, 40 pods)."""
    return [
        kueue_node("b1-r1-x3", "b1", "r1", "1"),
        kueue_node("b1-r2-x5", "b1", "r2", "1"),
        kueue_node("b1-r2-x1", "b1", "r2", "1"),
        kueue_node("b1-r2-x6", "b1", "r2", "1"),
        kueue_node("b2-r2-x2", "b2", "r1", "1"),
        kueue_node("b2-r2-x4", "b2", "r2", "2", pods=40),
    ]


def path_gang(name: str, pods: int) -> Gang:
    found = gang(name, shape(cpu="1"), pods, key=KUEUE_RACK)
    found.domain_levels = (KUEUE_BLOCK,)
    return found


def test_kueue_rack_r1_of_two_blocks_are_two_racks() -> None:
    # kueue tas_cache_test.go TestFindTopologyAssignments "rack required; single Pod fits in a
    # rack; BestFit": levels [block, rack], 1 pod of 1 CPU -> domain [b1, r1] (x3). Merged by the
    # rack value alone, "r1" would hold x3 and x2 (of block b2) and look like room for 2.
    verdict = run(kueue_tree(), [path_gang("ps", 1)]).verdicts[0]
    assert verdict.feasible
    assert verdict.domain == "b1/r1"
    assert verdict.placement == {"b1-r1-x3": 1}
    assert verdict.to_json(None, None)["domain"]["levels"] == [
        {"key": KUEUE_BLOCK, "value": "b1"},
        {"key": KUEUE_RACK, "value": "r1"},
    ]


def test_kueue_rack_required_multiple_pods_stay_inside_one_block() -> None:
    # kueue tas_cache_test.go TestFindTopologyAssignments "rack required; multiple Pods fit in a
    # rack; BestFit": 3 pods of 1 CPU -> [b1, r2] (x5, x1, x6). Merged, "r2" would be 5 CPUs over
    # both blocks and the fill would start on x4 in block b2.
    verdict = run(kueue_tree(), [path_gang("ps", 3)]).verdicts[0]
    assert verdict.domain == "b1/r2"
    assert verdict.placement == {"b1-r2-x5": 1, "b1-r2-x1": 1, "b1-r2-x6": 1}


def test_rack_of_one_block_cannot_borrow_from_the_same_name_in_another() -> None:
    # the same tree, 4 pods in one rack: no path rack holds 4 (b1/r2 holds 3), while the merged
    # "r2" (x5, x1, x6, x4: 5 CPUs) would say it fits.
    verdict = run(kueue_tree(), [path_gang("ps", 4)]).verdicts[0]
    assert not verdict.feasible
    assert (verdict.domain, verdict.placeable) == ("b1/r2", 3)
    plain = run(kueue_tree(), [gang("ps", shape(cpu="1"), 4, key=KUEUE_RACK)]).verdicts[0]
    assert plain.feasible  # upstream TopologyPlacement groups by the value alone: WAS gangs keep that


# --------------------------------------------------------------------------- explanations (issue 17 item 8)


def test_kueue_exclusion_stats_count_taints_before_the_node_selector() -> None:
    # kueue pkg/cache/scheduler/tas_cache_test.go TestFindTopologyAssignments "detailed failure
    # message with exclusion stats": x1 tainted key=value:NoSchedule (and without the zone label),
    # x2 and x3 in zone-b, x4 in zone-a with 100m CPU; one 1-CPU pod with nodeSelector zone=zone-a:
    # "excluded: nodeSelector: 2, resource "cpu": 1, taint "key=value:NoSchedule": 1". The taint
    # is judged first (upstream's TaintToleration runs before NodeAffinity), so x1 counts once, as
    # the taint.
    from waslint.objects.keys import HOSTNAME

    taint = [{"key": "key", "value": "value", "effect": "NoSchedule"}]
    nodes = [
        node("x1", cpu="1", pods=10, taints=taint),
        node("x2", cpu="1", pods=10, labels={"zone": "zone-b"}),
        node("x3", cpu="2", pods=10, labels={"zone": "zone-b"}),
        node("x4", cpu="100m", pods=10, labels={"zone": "zone-a"}),
    ]
    pod = shape(cpu="1", nodeSelector={"zone": "zone-a"})
    verdict = run(nodes, [gang("ps", pod, 1, key=HOSTNAME)]).verdicts[0]
    assert not verdict.feasible
    assert verdict.exclusions == {
        "nodeSelector does not match": 2,
        "insufficient cpu": 1,
        'taint "key=value:NoSchedule" not tolerated': 1,
    }


def test_best_domain_is_never_one_whose_nodes_are_all_excluded() -> None:
    # KAI-Scheduler job_filtering.go keeps only domains with AllocatablePods; the best attempt is
    # a domain where the gang's nodes pass the filters. rack-a sorts first but both its nodes are
    # tainted; rack-b's node passes the filters but is full.
    taint = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    nodes = [
        node("a-1", gpu=8, labels={RACK: "rack-a"}, taints=taint),
        node("a-2", gpu=8, labels={RACK: "rack-a"}, taints=taint),
        node("b-1", gpu=8, labels={RACK: "rack-b"}),
    ]
    busy = [running("hog", "b-1", gpu=8)]
    verdict = run(nodes, [gang("train", shape(gpu=8), 2, key=RACK)], pods=busy).verdicts[0]
    assert not verdict.feasible
    assert (verdict.domain, verdict.placeable) == ("rack-b", 0)
    everything = run(nodes[:2], [gang("train", shape(gpu=8), 2, key=RACK)]).verdicts[0]
    assert everything.domain is None  # every node excluded: no best domain at all


def test_summed_free_cpu_is_not_room_the_fragmentation_line_counts_pods() -> None:
    # Volcano issue #665 ("Gang is not working if there's resource fragmentation"): 4 CPUs free,
    # one on each of four nodes, and the gang needs one 4-CPU pod. A summed "4 cpu free, needs 4"
    # would contradict "no pod fits"; the line says room for 0 pods.
    nodes = [node(f"n{i}", cpu="1") for i in range(4)]
    verdict = run(nodes, [gang("big", shape(cpu="4"), 1)]).verdicts[0]
    assert not verdict.feasible
    line = next(reason for reason in verdict.reasons if reason.startswith("room for"))
    assert line == "room for 0 pods on eligible nodes (4 cpu free, 4 per pod); the gang needs 1"


def test_per_domain_counts_are_in_the_json_like_kai_node_group_messages() -> None:
    # KAI-Scheduler topology plugin: "node-group %s can allocate only %d of %d required pods".
    nodes = [node(f"r1-{i}", gpu=8, labels={RACK: "r1"}) for i in range(2)]
    nodes += [node("r2-0", gpu=8, labels={RACK: "r2"})]
    verdict = run(nodes, [gang("train", shape(gpu=8), 4, key=RACK)]).verdicts[0]
    counts = verdict.to_json(None, None)["domain_counts"]
    assert [(row["domain"], row["placeable"], row["required"]) for row in counts] == [("r1", 2, 4), ("r2", 1, 4)]


def test_placeable_counts_what_fits_even_when_the_gang_has_a_reading_problem() -> None:
    # kubernetes pkg/scheduler/framework/plugins/gangscheduling: a gang with fewer pods than
    # minCount waits in PreEnqueue; the verdict says so, and still how many of its pods would fit.
    found = gang("short", shape(gpu=4), 2, required=3)
    found.problems.append("only 2 member Pod(s) in the set while the gang requires 3: it can never start")
    verdict = run([node("a", gpu=8), node("b", gpu=4)], [found]).verdicts[0]
    assert not verdict.feasible
    assert verdict.placeable == 2
