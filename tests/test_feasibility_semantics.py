"""Upstream semantics the verdicts rest on (issue 17 items 6, 7 and 9): bound members of a gang,
PodGroups that do not exist, `basic` groups, workload-aware preemption, shared DRA claims, and
the caveats a verdict carries when it rests on something waslint does not model. Each case names
the upstream test or source it is translated from."""

from __future__ import annotations

from feasibility_helpers import RACK, cluster, node, running

from waslint.feasibility.analysis import analyse
from waslint.feasibility.gangs import collect
from waslint.feasibility.model import Gang
from waslint.io.loader import parse_bytes
from waslint.objects.index import ObjectIndex


def gangs_of(text: str) -> list[Gang]:
    index = ObjectIndex.build([parse_bytes("set.yaml", text.encode())], "default")
    return collect(index, {}, 0).gangs


def pod_group(name: str, min_count: int, extra: str = "") -> str:
    return (
        f"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: {name}\n"
        f"spec:\n  schedulingPolicy:\n    gang:\n      minCount: {min_count}\n{extra}"
    )


def member(name: str, group: str, gpus: int = 8, extra: str = "") -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  schedulingGroup: {{podGroupName: {group}}}\n"
        f"  containers:\n  - name: c\n    image: x\n    resources: {{requests: {{nvidia.com/gpu: {gpus}}}}}\n{extra}"
    )


RACK_CONSTRAINT = "  schedulingConstraints:\n    topology:\n    - key: topology.kubernetes.io/rack\n"


def racks() -> list[dict[str, object]]:
    """rack-1: three 8-GPU nodes; rack-2: two."""
    nodes = [node(f"r1-{n}", gpu=8, labels={RACK: "rack-1"}) for n in range(3)]
    return nodes + [node(f"r2-{n}", gpu=8, labels={RACK: "rack-2"}) for n in range(2)]


# --------------------------------------------------------------------------- bound members (item 6)


def test_bound_members_count_toward_min_count_and_fix_the_domain() -> None:
    # kubernetes pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go: PreEnqueue
    # counts AllPodsCount (bound Pods included) against minCount, and PlacementFeasible passes
    # once `scheduled` (the group's Pods already placed) plus the new ones reach it. Here minCount
    # 3, one member already runs on r2-0 (rack-2; gangscheduling_test.go Test_isSchedulableAfterPodAdded
    # "add a newPod with NodeName set which matches the pod's scheduling group": a bound Pod counts
    # for its group), two more are pending: they must join it in
    # rack-2 (room for one more), although rack-1 alone would hold all three.
    text = "---\n".join([pod_group("train", 3, RACK_CONSTRAINT), member("w1", "train"), member("w2", "train")])
    (gang,) = gangs_of(text)
    assert gang.problems  # two members in the set for a minimum of three
    bound = [running("w0", "r2-0", gpu=8, group="train")]
    (verdict,) = analyse(cluster(racks(), bound), [gang]).verdicts
    assert not gang.problems  # the bound member completes the count
    assert gang.fixed_domain == "rack-2"
    assert not verdict.feasible
    assert (verdict.domain, verdict.placeable, verdict.required) == ("rack-2", 2, 3)
    assert any("bound members run in topology.kubernetes.io/rack=rack-2" in note for note in verdict.reasons)


def test_bound_members_leave_fewer_pods_to_place() -> None:
    # The same group with room in rack-2 for both pending members: feasible there, 2 placed.
    text = "---\n".join([pod_group("train", 3, RACK_CONSTRAINT), member("w1", "train"), member("w2", "train")])
    (gang,) = gangs_of(text)
    nodes = [*racks(), node("r2-2", gpu=8, labels={RACK: "rack-2"})]
    (verdict,) = analyse(cluster(nodes, [running("w0", "r2-0", gpu=8, group="train")]), [gang]).verdicts
    assert verdict.feasible
    assert verdict.domain == "rack-2"
    assert sum(verdict.placement.values()) == 2
    assert verdict.placeable == 3
    assert verdict.to_json(None, None)["bound"] == 1


def test_composite_group_with_a_bound_child_member_completes_only_in_its_rack() -> None:
    # kubernetes pkg/scheduler/framework/plugins/gangscheduling (CompositePodGroup hierarchy,
    # hierarchy_tracker.go) with KEP-6012: a CompositePodGroup places its children inside one
    # domain of its key; child `a` already has a member bound in rack-2, so the parent can
    # complete only in rack-2, where child `b` (two 8-GPU pods) finds one free node.
    composite = (
        "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata:\n  name: parent\n"
        "spec:\n  schedulingPolicy:\n    gang:\n      minGroupCount: 2\n" + RACK_CONSTRAINT
    )
    child = "  parentCompositePodGroupName: parent\n"
    parts = [composite, pod_group("a", 1, child), pod_group("b", 2, child)]
    parts += [member("a-0", "a"), member("b-0", "b"), member("b-1", "b")]
    (gang,) = gangs_of("---\n".join(parts))
    assert analyse(cluster(racks()), [gang]).verdicts[0].feasible  # rack-1 holds a and b
    (gang,) = gangs_of("---\n".join(parts))
    bound = [running("a-0", "r2-0", gpu=8, group="a")]
    (verdict,) = analyse(cluster(racks(), bound), [gang]).verdicts
    assert gang.fixed_domain == "rack-2"
    assert not verdict.feasible
    assert verdict.domain == "rack-2"


def test_bound_members_in_two_racks_can_never_satisfy_the_constraint() -> None:
    (gang,) = gangs_of("---\n".join([pod_group("train", 3, RACK_CONSTRAINT), member("w2", "train")]))
    bound = [running("w0", "r1-0", gpu=8, group="train"), running("w1", "r2-0", gpu=8, group="train")]
    (verdict,) = analyse(cluster(racks(), bound), [gang]).verdicts
    assert not verdict.feasible
    assert any("more than one topology.kubernetes.io/rack domain (rack-1, rack-2)" in r for r in verdict.reasons)


# --------------------------------------------------------------------------- missing PodGroups, basic groups (item 6)


def read(text: str) -> list[Gang]:
    from waslint.feasibility.analysis import read_upstream
    from waslint.objects.keys import PODGROUP

    index = ObjectIndex.build([parse_bytes("set.yaml", text.encode())], "default")
    gangs = collect(index, {}, 0).gangs
    read_upstream(gangs, lambda namespace, name: index.get(*PODGROUP, namespace, name) is not None)
    return gangs


def test_pods_naming_a_pod_group_that_does_not_exist_wait_forever() -> None:
    # kubernetes pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go PreEnqueue:
    # "waiting for pod's pod group %q to appear in scheduling queue" (UnschedulableAndUnresolvable)
    # while the PodGroup object does not exist (gangscheduling_test.go Test_isSchedulableAfterPodGroupAdded:
    # only the PodGroup's creation requeues the Pod).
    (gang,) = read(member("lonely", "ghost", gpus=1))
    (verdict,) = analyse(cluster(racks()), [gang]).verdicts
    assert not verdict.feasible  # room for it everywhere, yet it never starts
    assert verdict.placeable == 1
    assert 'waiting for pod\'s pod group "ghost" to appear in scheduling queue' in verdict.reasons[0]
    assert "wait forever" in verdict.reasons[0]


def test_a_basic_pod_group_is_explained_per_pod_not_as_a_gang() -> None:
    # kubernetes gangscheduling.go isPGReady: a Basic policy is ready at once (no minCount), and
    # getMinCount is 1: every Pod of a basic group is scheduled on its own.
    basic = (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: svc\n"
        "spec:\n  schedulingPolicy:\n    basic: {}\n"
    )
    text = "---\n".join([basic, *(member(f"s{n}", "svc") for n in range(7))])
    (gang,) = read(text)
    assert not gang.is_gang
    (verdict,) = analyse(cluster(racks()), [gang]).verdicts
    assert not verdict.feasible
    assert verdict.placeable == 5
    said = " ".join(verdict.reasons)
    assert "for gang scheduling" not in said
    assert "each Pod is scheduled on its own, so 5 of 7 can start now and 2 stay Pending" in said


# --------------------------------------------------------------------------- --preempt (item 6)


def bare(name: str, pods: int = 1, priority: int = 100) -> Gang:
    from feasibility_helpers import gang, shape

    return gang(name, shape(), pods, priority=priority)


def victim(
    name: str, priority: int, gpu: int = 0, group: str | None = None, start: int | None = None
) -> dict[str, object]:
    pod = running(name, "node1", gpu=gpu, priority=priority, group=group)
    if start is not None:
        pod["status"] = {"phase": "Running", "startTime": f"1970-01-01T00:00:0{start}Z"}
    return pod


def test_preempt_prefers_the_lower_priority_victim_over_the_cheaper_one() -> None:
    # kubernetes pkg/scheduler/framework/preemption/podgrouppreemption_test.go
    # TestPodGroupEvaluator_Preempt_Victims "Priority: Prefer lower priority victim": the lowest
    # priority goes first, whatever it holds (here 2 GPUs against the mid-priority pod's 1).
    nodes = [node("node1", gpu=3, pods=2)]
    busy = [victim("p1", 1, gpu=2), victim("p2", 50, gpu=1)]
    (verdict,) = analyse(cluster(nodes, busy), [bare("preemptor")], preempt=True).verdicts
    assert verdict.what_if == ["--preempt: fits after evicting 1 pod(s) holding 2 GPU(s): pod default/p1"]


def test_preempt_takes_a_pod_in_no_group_before_a_group_member() -> None:
    # podgrouppreemption_test.go "Priority: mix of no groups and pod groups": p1 (no group) is
    # less important than p2 (a member of pod group pg1) at the same priority.
    busy = [victim("p2", 1, group="pg1"), victim("p1", 1)]
    (verdict,) = analyse(cluster([node("node1", pods=2)], busy), [bare("preemptor")], preempt=True).verdicts
    assert verdict.what_if == ["--preempt: fits after evicting 1 pod(s) holding 0 GPU(s): pod default/p1"]


def test_preempt_takes_the_later_started_pod_first() -> None:
    # podgrouppreemption_test.go "Priority: StartTime of pods from same group with disruption mode
    # single": the Pod started later is the less important one (names swapped so that the label
    # order alone would pick the other).
    busy = [victim("b-newer", 1, group="pg1", start=1), victim("a-older", 1, group="pg1", start=0)]
    (verdict,) = analyse(cluster([node("node1", pods=2)], busy), [bare("preemptor")], preempt=True).verdicts
    assert verdict.what_if == ["--preempt: fits after evicting 1 pod(s) holding 0 GPU(s): pod default/b-newer"]


def test_no_workload_aware_preemption_for_a_pod_group_with_a_topology_constraint() -> None:
    # kubernetes pkg/scheduler/schedule_one_podgroup.go runWorkloadAwarePreemption: "workload aware
    # preemption is not supported for pod groups with scheduling constraints" (Unschedulable).
    text = "---\n".join([pod_group("train", 2, RACK_CONSTRAINT), member("w0", "train"), member("w1", "train")])
    (gang,) = gangs_of(text)
    gang.priority = 1000
    nodes = [node("r1-0", gpu=8, labels={RACK: "rack-1"}), node("r1-1", gpu=8, labels={RACK: "rack-1"})]
    busy = [running("low", "r1-0", gpu=8, priority=1)]
    (verdict,) = analyse(cluster(nodes, busy), [gang], preempt=True).verdicts
    assert not verdict.feasible
    assert verdict.what_if[0].startswith("--preempt: kube-scheduler 1.37 runs no workload-aware preemption")


# --------------------------------------------------------------------------- shared ResourceClaims (item 7)

SHARED_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: infer}
spec:
  parallelism: 3
  completions: 3
  completionMode: Indexed
  scheduling:
    schedulingPolicy: {gang: {}}
  template:
    spec:
      restartPolicy: Never
      resourceClaims:
      - {name: gpus, resourceClaimName: shared-gpus}
      containers:
      - name: c
        image: x
        resources: {requests: {cpu: "4"}, claims: [{name: gpus}]}
"""


def test_pods_sharing_a_claim_of_node_local_devices_go_on_one_node() -> None:
    # kubernetes pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go TestPlugin
    # "wrong-topology": a Pod naming an allocated claim is rejected by every node the allocation
    # does not reach ("resourceclaim not available on the node"). The first Pod of the gang
    # allocates `shared-gpus` on one node's devices, so all three must go there: 3 x 4 CPUs on one
    # 8-CPU node cannot; spread over the two nodes they would seem to fit.
    from waslint.feasibility.analysis import co_locate_shared_claims

    nodes = [node("n1", cpu="8"), node("n2", cpu="8")]
    (spread,) = gangs_of(SHARED_JOB)
    assert analyse(cluster(nodes), [spread]).verdicts[0].feasible  # the claim not modelled: fits
    (gang,) = gangs_of(SHARED_JOB)
    co_locate_shared_claims([gang], node_local=True)
    (verdict,) = analyse(cluster(nodes), [gang]).verdicts
    assert not verdict.feasible
    assert verdict.placeable == 2
    assert any("share ResourceClaim shared-gpus" in reason for reason in verdict.reasons)
    (roomy,) = gangs_of(SHARED_JOB)
    co_locate_shared_claims([roomy], node_local=True)
    (verdict,) = analyse(cluster([*nodes, node("big", cpu="16")]), [roomy]).verdicts
    assert verdict.feasible
    assert verdict.placement == {"big": 3}


def test_a_shared_claim_without_resource_slices_is_a_caveat() -> None:
    from waslint.feasibility.analysis import co_locate_shared_claims

    (gang,) = gangs_of(SHARED_JOB)
    co_locate_shared_claims([gang], node_local=False)
    assert gang.topology_key is None
    assert gang.caveats and "where its devices are is not known" in gang.caveats[0]


# --------------------------------------------------------------------------- never confidently wrong (item 9)

ANTI_AFFINE_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: spread}
spec:
  parallelism: 2
  completions: 2
  completionMode: Indexed
  scheduling:
    schedulingPolicy: {gang: {}}
  template:
    metadata:
      labels: {app: spread}
      annotations: {kueue.x-k8s.io/podset-slice-required-topology-constraints: "[]"}
    spec:
      restartPolicy: Never
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: spread}}
            topologyKey: kubernetes.io/hostname
      containers:
      - name: c
        image: x
        resources: {requests: {cpu: "1"}}
"""


def test_a_verdict_resting_on_unmodelled_terms_says_so_in_text_and_json() -> None:
    # kubernetes pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go
    # TestRequiredAffinitySingleNode: a Pod whose required podAntiAffinity matches a Pod already on
    # the node does not fit there. waslint does not model it: the two anti-affine Pods seem to fit on
    # the one node, and the verdict must say it rests on that. Kueue's multi-layer slice
    # constraints (kueue.x-k8s.io/podset-slice-required-topology-constraints,
    # keps/2724-topology-aware-scheduling) are not read either.
    from waslint.feasibility.caveats import add_caveats
    from waslint.feasibility.render import Located, to_json, to_text

    (gang,) = gangs_of(ANTI_AFFINE_JOB)
    add_caveats([gang])
    assert gang.caveats == [
        "Kueue key kueue.x-k8s.io/podset-slice-required-topology-constraints is not read: the verdict does"
        " not apply it",
        "required podAntiAffinity (InterPodAffinity) is not modelled",
    ]
    (verdict,) = analyse(cluster([node("only", cpu="8")]), [gang]).verdicts
    assert verdict.feasible
    assert verdict.to_json(None, None)["caveats"] == gang.caveats
    snapshot = {"path": "snap", "nodes": 1, "ready_nodes": 1, "running_pods": 0}
    text = to_text(snapshot, [Located(verdict, "job.yaml", 1)], [], color=False)
    assert "Job default/spread (job.yaml:1): feasible (not certain: see the caveats)" in text
    assert "caveat    | required podAntiAffinity (InterPodAffinity) is not modelled" in text
    assert "feasible*" in text
    assert '"caveats": ["Kueue key' in to_json(snapshot, [Located(verdict, "job.yaml", 1)], [])
    assert "rests on what waslint does not model" in verdict.summary_line()


def test_a_verdict_on_what_is_modelled_carries_no_caveat() -> None:
    from waslint.feasibility.caveats import add_caveats

    plain = ANTI_AFFINE_JOB.replace("kueue.x-k8s.io/podset-slice-required-topology-constraints", "example.com/note")
    plain = plain.split("      affinity:")[0] + "      containers:" + plain.split("      containers:")[1]
    (gang,) = gangs_of(plain)
    add_caveats([gang])
    assert gang.caveats == []


def test_reading_bound_members_twice_changes_nothing() -> None:
    text = "---\n".join([pod_group("train", 3, RACK_CONSTRAINT), member("w0", "train"), member("w1", "train")])
    (gang,) = gangs_of(text)
    bound = [running("w0", "r2-0", gpu=8, group="train")]  # w0 is in the set too: one member, not two
    first = analyse(cluster(racks(), bound), [gang]).verdicts[0]
    again = analyse(cluster(racks(), bound), [gang]).verdicts[0]
    assert gang.problems  # w0 and w1 are two members of three, bound or not
    assert (first.placeable, first.reasons) == (again.placeable, again.reasons)


def test_a_kueue_job_with_its_topology_in_the_set_is_placed_in_a_path_domain() -> None:
    # kueue tas_cache_test.go TestFindTopologyAssignments "rack required; multiple Pods fit in a
    # rack; BestFit" through the whole command path: the Kueue Topology (levels block, rack) beside
    # the Job, the Job's podset-required-topology read by gangs.py, the domains joined by path.
    from test_feasibility_upstream import KUEUE_BLOCK as block
    from test_feasibility_upstream import KUEUE_RACK as rack
    from test_feasibility_upstream import kueue_tree

    from waslint.feasibility.command import apply_readings
    from waslint.sources.snapshot import Snapshot

    text = (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: default}\n"
        f"spec:\n  levels:\n  - nodeLabel: {block}\n  - nodeLabel: {rack}\n---\n"
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\n  labels: {kueue.x-k8s.io/queue-name: q}\n"
        "spec:\n  parallelism: 3\n  completions: 3\n  template:\n"
        f"    metadata:\n      annotations: {{kueue.x-k8s.io/podset-required-topology: {rack}}}\n"
        "    spec:\n      containers:\n      - name: c\n        image: x\n        resources: {requests: {cpu: '1'}}\n"
    )
    index = ObjectIndex.build([parse_bytes("set.yaml", text.encode())], "default")
    gangs = collect(index, {}, 0).gangs
    apply_readings(gangs, Snapshot("snap"), index)
    (gang,) = [g for g in gangs if g.kind == "Job"]
    assert gang.domain_levels == (block,)

    nodes = kueue_tree()
    (verdict,) = analyse(cluster(nodes), [gang]).verdicts
    assert verdict.domain == "b1/r2"
    assert sorted(verdict.placement) == ["b1-r2-x1", "b1-r2-x5", "b1-r2-x6"]
