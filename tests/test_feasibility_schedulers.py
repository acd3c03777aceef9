"""The gangs of third-party schedulers read as each scheduler reads them, and placed as it places
them (issue 17 items 2, 4 and 5). Each case is translated from the scheduler's own code or tests,
cited by repository, file and test name:

- Kueue (kubernetes-sigs/kueue): PodSet topology annotations, plain-Pod groups, partial admission;
- KAI-Scheduler (kai-scheduler/KAI-Scheduler): the sub-group tree, the topology annotations the
  pod-grouper copies from a Job to its PodGroup;
- Volcano (volcano-sh/volcano): minTaskMember, members chosen by where they can run.
"""

from __future__ import annotations

from pathlib import Path

from feasibility_helpers import RACK, ZONE, cluster, node, rack_nodes

from conftest import FIXTURES, run_cli
from waslint.feasibility.analysis import analyse
from waslint.feasibility.gangs import collect
from waslint.feasibility.model import Gang
from waslint.io.loader import parse_bytes
from waslint.objects.groups import kai_subgroup_tree, podset_topology, volcano_enforced_minimums
from waslint.objects.index import ObjectIndex
from waslint.objects.keys import READ_ANNOTATIONS, unread_keys

BLOCK = "cloud.provider.com/topology-block"
SNAPSHOT = FIXTURES / "snapshots" / "cluster.yaml"


def gangs_of(text: str) -> list[Gang]:
    index = ObjectIndex.build([parse_bytes("set.yaml", text.encode())], "default")
    return collect(index, {}, 0).gangs


def verdicts(nodes: list[dict[str, object]], gangs: list[Gang]) -> list[bool]:
    return [verdict.feasible for verdict in analyse(cluster(nodes), gangs).verdicts]


def container(cpu: str = "0", gpu: int = 0) -> str:
    requests = f'cpu: "{cpu}"' if cpu != "0" else f'nvidia.com/gpu: "{gpu}"'
    return f"        containers:\n        - name: main\n          image: x:1\n          resources: {{requests: {{{requests}}}}}\n"


# --------------------------------------------------------------------------- Kueue


def kueue_job(name: str, parallelism: int, gpus: int, annotations: str = "", job_annotations: str = "") -> str:
    return (
        f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n"
        f"  labels: {{kueue.x-k8s.io/queue-name: team-a}}\n{job_annotations}"
        f"spec:\n  parallelism: {parallelism}\n  completions: {parallelism}\n  template:\n"
        f"    metadata:\n      annotations: {{{annotations}}}\n    spec:\n  "
        + container(gpu=gpus).replace("\n  ", "\n    ")
    )


def test_podset_topology_reads_the_annotations_as_kueue_builds_the_request() -> None:
    # kubernetes-sigs/kueue pkg/controller/jobframework/tas_test.go TestPodSetTopologyRequestBuilder:
    # "required annotation", "preferred annotation", "unconstrained annotation (true)/(false)",
    # "slice-only topology", "slice-only topology - only slice size annotation" (an en dash upstream).
    def read(annotations: dict[str, str]) -> tuple[object, ...]:
        found = podset_topology({"annotations": annotations}, ("metadata",))
        return (found.mode, found.level.value if found.level else None, found.slice_size, found.problems)

    assert read({"kueue.x-k8s.io/podset-required-topology": BLOCK}) == ("required", BLOCK, None, ())
    assert read({"kueue.x-k8s.io/podset-preferred-topology": BLOCK}) == ("preferred", BLOCK, None, ())
    assert read({"kueue.x-k8s.io/podset-unconstrained-topology": "true"})[0] == "unconstrained"
    assert read({"kueue.x-k8s.io/podset-unconstrained-topology": "false"})[0] is None
    sliced = {"kueue.x-k8s.io/podset-slice-required-topology": RACK, "kueue.x-k8s.io/podset-slice-size": "2"}
    assert read(sliced) == (None, None, 2, ())
    only_size = read({"kueue.x-k8s.io/podset-slice-size": "2"})
    assert only_size[2] is None and "may not be set" in str(only_size[3])
    # tas_validation.go ValidateTASPodSetRequest: "must not contain more than one topology annotation"
    both = read({"kueue.x-k8s.io/podset-required-topology": RACK, "kueue.x-k8s.io/podset-preferred-topology": RACK})
    assert both[0] == "required" and "more than one topology annotation" in str(both[3])


def test_a_kueue_job_is_one_gang_in_one_domain_of_its_required_level() -> None:
    # kueue apis/kueue/v1beta2/topology_types.go PodSetRequiredTopologyAnnotation: "requires
    # scheduling all pods on nodes within the same topology domain"; without Kueue, the same Job's
    # Pods are independent.
    nodes = rack_nodes({"r1": [2, 2], "r2": [2]})
    (gang,) = gangs_of(kueue_job("train", 4, 1, f"kueue.x-k8s.io/podset-required-topology: {RACK}"))
    assert (gang.kind, gang.required, gang.topology_key, gang.is_gang) == ("Job", 4, RACK, True)
    assert gang.notes[0].startswith("Kueue (queue team-a) admits the Workload all-or-nothing")
    assert verdicts(nodes, [gang]) == [True]
    (five,) = gangs_of(kueue_job("train", 5, 1, f"kueue.x-k8s.io/podset-required-topology: {RACK}"))
    assert verdicts(nodes, [five]) == [False]
    plain = gangs_of(kueue_job("train", 4, 1).replace("  labels: {kueue.x-k8s.io/queue-name: team-a}\n", ""))
    assert [g.is_gang for g in plain] == [False]


def test_a_preferred_level_is_no_hard_constraint() -> None:
    # topology_types.go PodSetPreferredTopologyAnnotation: "If the PodSet cannot fit at the highest
    # topology level, then it gets admitted as distributed among multiple topology domains."
    nodes = rack_nodes({"r1": [2, 2], "r2": [2]})
    (gang,) = gangs_of(kueue_job("train", 5, 1, f"kueue.x-k8s.io/podset-preferred-topology: {RACK}"))
    assert gang.topology_key is None and any("preferred topology" in note for note in gang.notes)
    assert verdicts(nodes, [gang]) == [True]


def test_partial_admission_needs_only_job_min_parallelism() -> None:
    # kueue pkg/controller/jobs/job/job_controller.go minPodsCount: PodSet.MinCount from
    # kueue.x-k8s.io/job-min-parallelism.
    text = kueue_job("train", 6, 1, job_annotations="  annotations: {kueue.x-k8s.io/job-min-parallelism: '3'}\n")
    (gang,) = gangs_of(text)
    assert gang.required == 3
    assert verdicts([node("n", gpu=4)], [gang]) == [True]


def test_slices_each_fit_one_domain_of_the_slice_level() -> None:
    # kueue pkg/cache/scheduler/tas_cache_test.go TestFindTopologyAssignments slices: each slice of
    # podset-slice-size Pods in one domain of podset-slice-required-topology.
    annotations = f"kueue.x-k8s.io/podset-slice-required-topology: {RACK}, kueue.x-k8s.io/podset-slice-size: '2'"
    (gang,) = gangs_of(kueue_job("train", 4, 1, annotations))
    assert gang.composite and [child.required for child in gang.children] == [2, 2]
    assert all(child.topology_key == RACK for child in gang.children)
    assert verdicts(rack_nodes({"r1": [1, 1], "r2": [1, 1]}), [gang]) == [True]
    assert verdicts(rack_nodes({"r1": [1, 1], "r2": [1], "r3": [1]}), [gang]) == [False]


def jobset(leader_annotations: str, worker_annotations: str) -> str:
    def replicated(name: str, parallelism: int, annotations: str) -> str:
        return (
            f"  - name: {name}\n    replicas: 1\n    template:\n      spec:\n        parallelism: {parallelism}\n"
            f"        completions: {parallelism}\n        template:\n          metadata:\n"
            f"            annotations: {{{annotations}}}\n          spec:\n"
            + container(gpu=1).replace("        ", "            ")
        )

    return (
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: js\n"
        "  labels: {kueue.x-k8s.io/queue-name: team-a}\nspec:\n  replicatedJobs:\n"
        + replicated("leader", 1, leader_annotations)
        + replicated("workers", 3, worker_annotations)
    )


def test_podset_group_name_puts_leader_and_workers_in_one_domain() -> None:
    # kueue apis/kueue/v1beta2/topology_types.go PodSetGroupName: "PodSet Group is a unit flavor
    # assignment and topology domain fitting"; tas_cache_test.go "balanced placement; leader worker set".
    grouped = f"kueue.x-k8s.io/podset-required-topology: {RACK}, kueue.x-k8s.io/podset-group-name: g"
    (gang,) = gangs_of(jobset(grouped, grouped))
    assert (gang.required, gang.topology_key, gang.composite) == (4, RACK, False)
    nodes = rack_nodes({"r1": [3], "r2": [1]})
    assert verdicts(nodes, [gang]) == [False]  # leader and workers together need 4 in one rack
    (apart,) = gangs_of(jobset(f"kueue.x-k8s.io/podset-required-topology: {RACK}", grouped.split(", ")[0]))
    assert apart.composite and [child.required for child in apart.children] == [1, 3]
    assert verdicts(nodes, [apart]) == [True]  # each PodSet in its own rack: workers r1, leader r2


def test_kueue_rejects_malformed_podset_groups() -> None:
    # kueue pkg/controller/jobframework/tas_validation.go ValidatePodSetGroupingTopology ("can only
    # define groups where at least one pod set has only 1 replica") and ValidateTASPodSetRequest
    # (podset-group-name "may not be set when neither ... nor ... is specified"); the workload is
    # rejected, so the gang never starts.
    grouped = f"kueue.x-k8s.io/podset-required-topology: {RACK}, kueue.x-k8s.io/podset-group-name: g"
    leader_of_two = jobset(grouped, grouped).replace("parallelism: 1\n", "parallelism: 2\n")
    (two_big,) = gangs_of(leader_of_two.replace("completions: 1\n", "completions: 2\n"))
    assert any("at least one pod set has only 1 replica" in problem for problem in two_big.problems)
    assert verdicts(rack_nodes({"r1": [8]}), [two_big]) == [False]
    (bare,) = gangs_of(jobset("kueue.x-k8s.io/podset-group-name: g", "kueue.x-k8s.io/podset-group-name: g"))
    assert any("may not be set when neither" in problem for problem in bare.problems)


def test_a_lws_is_one_workload_per_group() -> None:
    # kueue pkg/controller/jobs/leaderworkerset/leaderworkerset_reconciler.go constructWorkload and
    # podSets: one Workload per group index, a leader PodSet of 1 and a worker PodSet of size - 1.
    text = (
        "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: lws\n"
        "  labels: {kueue.x-k8s.io/queue-name: team-a}\nspec:\n  replicas: 2\n  leaderWorkerTemplate:\n"
        "    size: 3\n    leaderTemplate:\n      spec:\n"
        + container(gpu=1).replace("        ", "        ")
        + "    workerTemplate:\n      spec:\n"
        + container(gpu=1)
    )
    gangs = gangs_of(text)
    assert [(g.name, g.composite, [c.required for c in g.children]) for g in gangs] == [
        ("lws/group-0", True, [2, 1]),
        ("lws/group-1", True, [2, 1]),
    ]


def kueue_pod(name: str, total: str, group: str = "g1") -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n"
        f"  labels: {{kueue.x-k8s.io/queue-name: team-a, kueue.x-k8s.io/pod-group-name: {group}}}\n"
        f"  annotations: {{kueue.x-k8s.io/pod-group-total-count: '{total}',"
        f" kueue.x-k8s.io/podset-required-topology: {RACK}}}\nspec:\n" + container(gpu=1).replace("        ", "  ")
    )


def test_plain_pod_groups_are_admitted_as_one_workload() -> None:
    # kueue pkg/controller/jobs/pod/pod_controller_test.go TestReconciler "workload is composed and
    # created for the pod group"; TestValidatePodGroupMetadata... "pod group with fewer pods than
    # expected" (pod_controller.go validatePodGroupMetadata: "group has fewer runnable pods than expected").
    (gang,) = gangs_of(kueue_pod("a", "2") + "---\n" + kueue_pod("b", "2"))
    assert (gang.kind, gang.name, gang.required, gang.topology_key) == ("PodGroup (Kueue)", "g1", 2, RACK)
    assert verdicts(rack_nodes({"r1": [1], "r2": [1]}), [gang]) == [False]
    assert verdicts(rack_nodes({"r1": [1, 1]}), [gang]) == [True]
    (short,) = gangs_of(kueue_pod("a", "3") + "---\n" + kueue_pod("b", "3"))
    assert short.problems and "fewer runnable pods than expected" in short.problems[0]
    (bad,) = gangs_of(kueue_pod("a", "two"))
    assert "failed to extract 'kueue.x-k8s.io/pod-group-total-count'" in bad.problems[0]


# --------------------------------------------------------------------------- KAI


def kai_group(spec: str, members: str) -> str:
    return "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata:\n  name: pg\nspec:\n" + spec + members


def kai_pod(name: str, subgroup: str, gpus: int = 1) -> str:
    return (
        f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  annotations: {{pod-group-name: pg}}\n"
        f"  labels: {{kai.scheduler/subgroup-name: {subgroup}}}\nspec:\n"
        + container(gpu=gpus).replace("        ", "  ")
    )


def test_kai_subgroup_tree_minimums() -> None:
    # kai-scheduler/KAI-Scheduler pkg/scheduler/api/podgroup_info/subgroup_info/subgroupset_test.go
    # TestGetMinChildrenToSatisfy: "no_minSubGroup_counts_children", "minSubGroup_overrides_count",
    # "minSubGroup_zero_returns_zero"; factory.go: a parent not found is an error.
    spec = {
        "minSubGroup": 1,
        "subGroups": [
            {"name": "a"},
            {"name": "b"},
            {"name": "a-0", "parent": "a", "minMember": 2},
            {"name": "b-0", "parent": "b", "minMember": 2},
            {"name": "lost", "parent": "nowhere", "minMember": 1},
        ],
    }
    root, problems = kai_subgroup_tree(spec)
    assert root.minimum == 1 and [child.name for child in root.children] == ["a", "b"]
    assert [child.minimum for child in root.children] == [1, 1]  # no minSubGroup: all direct members
    assert problems == ["parent subgroup <nowhere> of <lost> not found"]
    _, problems = kai_subgroup_tree({"subGroups": [{"name": "x"}, {"name": "x"}]})
    assert problems == ["subgroup <x> already exists"]
    # factory.go formatParentName lower-cases the parent before the lookup
    _, problems = kai_subgroup_tree({"subGroups": [{"name": "a"}, {"name": "a-0", "parent": "A"}]})
    assert problems == []
    _, problems = kai_subgroup_tree({"subGroups": [{"name": "B"}, {"name": "b-0", "parent": "B"}]})
    assert problems == ["parent subgroup <b> of <b-0> not found"]


def test_kai_min_sub_group_lets_either_branch_complete_the_gang() -> None:
    # subgroupset.go GetNumActiveAllocatedDirectSubGroups / IsMinRequirementSatisfied: a set is
    # satisfied by minSubGroup of its direct members; the PodGroup's minMember does not count then
    # (podgroup_info/job_info.go setSubGroups).
    spec = (
        "  minMember: 8\n  minSubGroup: 1\n  subGroups:\n  - {name: a}\n  - {name: b}\n"
        "  - {name: a-0, parent: a, minMember: 2}\n  - {name: b-0, parent: b, minMember: 2}\n"
    )
    members = "".join(kai_pod(f"a{i}", "a-0", 4) for i in range(2)) + "".join(
        kai_pod(f"b{i}", "b-0", 1) for i in range(2)
    )
    (gang,) = gangs_of(kai_group(spec, members))
    assert (gang.min_groups, [child.min_groups for child in gang.children]) == (1, [1, 1])
    assert verdicts([node("n", gpu=2)], [gang]) == [True]  # b's two 1-GPU pods complete it
    every = spec.replace("  minSubGroup: 1\n", "")
    (strict,) = gangs_of(kai_group(every, members))
    assert strict.min_groups == 2 and verdicts([node("n", gpu=9)], [strict]) == [False]
    assert verdicts([node("n", gpu=10)], [strict]) == [True]


def test_kai_job_topology_annotations_reach_the_podgroup() -> None:
    # kai-scheduler/KAI-Scheduler pkg/podgrouper/podgrouper/plugins/defaultgrouper/default_grouper_test.go
    # TestGetPodGroupMetadataWithTopology: the top owner's kai.scheduler/topology-required-placement
    # and -preferred-placement become the PodGroup's required and preferred levels.
    text = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\n  annotations:\n"
        "    kai.scheduler/batch-min-member: '4'\n    kai.scheduler/topology: network\n"
        f"    kai.scheduler/topology-required-placement: {ZONE}\n"
        f"    kai.scheduler/topology-preferred-placement: {RACK}\n"
        "spec:\n  parallelism: 4\n  completions: 4\n  template:\n    spec:\n  "
        + container(gpu=1).replace("\n  ", "\n    ")
    )
    (gang,) = gangs_of(text)
    assert (gang.required, gang.topology_key) == (4, ZONE)
    assert any("preferred topology level" in note for note in gang.notes)
    nodes = rack_nodes({"r1": [2], "r2": [2]}, {"r1": "z1", "r2": "z2"})
    assert verdicts(nodes, [gang]) == [False]


# --------------------------------------------------------------------------- Volcano


def volcano_group(min_member: int, tasks: str, pods: list[tuple[str, str, str]]) -> str:
    text = (
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata:\n  name: pg1\n"
        f"spec:\n  minMember: {min_member}\n{tasks}"
    )
    for name, task, role in pods:
        text += (
            f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n"
            f"  annotations: {{scheduling.k8s.io/group-name: pg1, volcano.sh/task-spec: {task}}}\n"
            f"spec:\n  nodeSelector: {{nodeRole: {role}}}\n" + container(cpu="1").replace("        ", "  ")
        )
    return text


MASTER_WORKER = [
    ("p0", "master", "master"),
    ("p1", "master", "master"),
    ("p2", "worker", "worker"),
    ("p3", "worker", "worker"),
]


def role_nodes(master_cpu: str, worker_cpu: str) -> list[dict[str, object]]:
    return [
        node("n1", cpu=master_cpu, labels={"nodeRole": "master"}),
        node("n2", cpu=worker_cpu, labels={"nodeRole": "worker"}),
    ]


def test_volcano_members_are_chosen_by_where_they_can_run() -> None:
    # volcano-sh/volcano pkg/scheduler/actions/allocate/allocate_test.go TestAllocate "prepredicate
    # failed and tasks are not used up, continue on until min member meet": minMember 2,
    # minTaskMember {master: 1, worker: 1}, one 1-CPU master node and one 1-CPU worker node: p0 -> n1,
    # p2 -> n2 (the two smallest would be two masters, and one master node holds one).
    tasks = "  minTaskMember: {master: 1, worker: 1}\n"
    (gang,) = gangs_of(volcano_group(2, tasks, MASTER_WORKER))
    assert sorted(count for _, count in gang.minimums) == [1, 1]
    assert verdicts(role_nodes("1", "1"), [gang]) == [True]
    # the same without minTaskMember: any two members
    (loose,) = gangs_of(volcano_group(2, "", MASTER_WORKER))
    assert loose.minimums == [] and verdicts(role_nodes("1", "1"), [loose]) == [True]


def test_volcano_task_minimum_that_cannot_be_met_blocks_the_gang() -> None:
    # allocate_test.go TestAllocate "master's min member can not be allocated, break from
    # allocating": minTaskMember {master: 2, worker: 0}, a 1-CPU master node: nothing is bound.
    tasks = "  minTaskMember: {master: 2, worker: 0}\n"
    (gang,) = gangs_of(volcano_group(2, tasks, MASTER_WORKER))
    (verdict,) = analyse(cluster(role_nodes("1", "2")), [gang]).verdicts
    assert not verdict.feasible and verdict.placeable == 1
    assert verdict.reasons[0] == "Resources were found for 1 pod while 2 are required for gang scheduling"


def test_volcano_node_selector_mismatch_leaves_the_other_task() -> None:
    # allocate_test.go TestAllocate "prepredicate failed: node selector does not match": minMember 1,
    # only a worker node: the worker is bound.
    pods = [("p1", "master", "master"), ("p2", "worker", "worker")]
    (gang,) = gangs_of(volcano_group(1, "", pods))
    assert verdicts([node("n1", cpu="2", labels={"nodeRole": "worker"})], [gang]) == [True]


def test_volcano_skips_task_minimums_above_min_member() -> None:
    # volcano-sh/volcano pkg/scheduler/api/job_info.go CheckTaskValid / CheckTaskReady: "if job
    # minAvailable is less than sum of(task minAvailable), skip this check".
    assert volcano_enforced_minimums(2, {"master": 2, "worker": 2}) == {}
    assert volcano_enforced_minimums(4, {"master": 2, "worker": 0}) == {"master": 2}


def test_volcano_job_task_min_available_becomes_min_task_member() -> None:
    # volcano-sh/volcano pkg/controllers/job/job_controller_actions.go getMinTaskMember: a task's
    # minAvailable, else its replicas.
    def task(name: str, replicas: int, role: str, minimum: str = "") -> str:
        return (
            f"  - name: {name}\n    replicas: {replicas}\n{minimum}    template:\n      spec:\n"
            f"        nodeSelector: {{nodeRole: {role}}}\n" + container(cpu="1")
        )

    text = (
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: vj\nspec:\n  minAvailable: 2\n"
        "  tasks:\n"
        + task("master", 2, "master", "    minAvailable: 1\n")
        + task("worker", 2, "worker", "    minAvailable: 1\n")
    )
    (gang,) = gangs_of(text)
    assert gang.required == 2 and sorted(count for _, count in gang.minimums) == [1, 1]
    assert verdicts(role_nodes("1", "1"), [gang]) == [True]
    assert verdicts([node("n2", cpu="2", labels={"nodeRole": "worker"})], [gang]) == [False]  # no master fits


# --------------------------------------------------------------------------- what is read


def test_read_annotations_name_every_key_the_readers_use() -> None:
    assert "kueue.x-k8s.io/podset-group-name" in READ_ANNOTATIONS["kueue"]
    assert "kai.scheduler/topology-required-placement" in READ_ANNOTATIONS["kai"]
    assert "volcano.sh/task-spec" in READ_ANNOTATIONS["volcano"]
    keys = {
        "kueue.x-k8s.io/podset-slice-required-topology-constraints": "[]",
        "kai.scheduler/segment-size": "4",
        "kueue.x-k8s.io/podset-required-topology": RACK,
        "app": "x",
    }
    assert unread_keys(keys) == [
        ("kueue", "kueue.x-k8s.io/podset-slice-required-topology-constraints"),
        ("kai", "kai.scheduler/segment-size"),
    ]


# --------------------------------------------------------------------------- end to end

TAS_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: tas-train
  namespace: research
  labels:
    kueue.x-k8s.io/queue-name: research
spec:
  parallelism: 6
  completions: 6
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-required-topology: topology.kubernetes.io/rack
    spec:
      restartPolicy: Never
      tolerations: [{key: nvidia.com/gpu, operator: Exists}]
      containers:
      - name: main
        image: trainer:1
        resources: {requests: {nvidia.com/gpu: "4"}}
"""


def test_feasibility_places_a_kueue_job_in_one_rack_of_the_demo_snapshot(tmp_path: Path) -> None:
    # The demo snapshot has at most 18 GPUs free in one rack: six 4-GPU Pods fit the cluster, not a rack.
    manifest = tmp_path / "job.yaml"
    manifest.write_text(TAS_JOB)
    result = run_cli("feasibility", "--snapshot", str(SNAPSHOT), str(manifest))
    assert result.returncode == 1, result.stderr
    assert "Job research/tas-train" in result.stdout and "INFEASIBLE" in result.stdout
    assert "Resources were found for 4 pods while 6 are required for gang scheduling in one" in result.stdout
    assert "Kueue (queue research) admits the Workload all-or-nothing: PodSets main 6" in result.stdout
    manifest.write_text(TAS_JOB.replace("    kueue.x-k8s.io/queue-name: research\n", "    app: train\n"))
    plain = run_cli("feasibility", "--snapshot", str(SNAPSHOT), str(manifest))
    assert plain.returncode == 0, plain.stdout  # without Kueue: six independent Pods, no rack constraint
