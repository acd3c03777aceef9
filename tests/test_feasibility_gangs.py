"""Gangs read from manifests: PodGroups with members or their owner's template, CompositePodGroups,
Job spec.scheduling, KAI, Volcano and coscheduling groups, and Pods in no gang."""

from __future__ import annotations

from feasibility_helpers import RACK, ZONE, cluster, node

from waslint.feasibility.analysis import analyse
from waslint.feasibility.gangs import collect
from waslint.feasibility.model import Gang
from waslint.io.loader import parse_bytes
from waslint.objects.index import ObjectIndex

POD_TEMPLATE = """\
    spec:
      tolerations: [{operator: Exists}]
      containers:
      - name: main
        image: trainer:1
        resources: {requests: {nvidia.com/gpu: "GPUS"}}
"""


def gangs_of(text: str, priorities: dict[str, int] | None = None) -> list[Gang]:
    index = ObjectIndex.build([parse_bytes("set.yaml", text.encode())], "default")
    return collect(index, priorities or {}, 0).gangs


def job(name: str, parallelism: int, gpus: int, extra: str = "", template_extra: str = "") -> str:
    template = POD_TEMPLATE.replace("GPUS", str(gpus)).replace("    spec:\n", "    spec:\n" + template_extra, 1)
    return (
        f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n"
        f"spec:\n  parallelism: {parallelism}\n  completions: {parallelism}\n  completionMode: Indexed\n{extra}"
        f"  template:\n{template}"
    )


def pod_group(name: str, min_count: int, extra: str = "") -> str:
    return (
        f"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: {name}\n"
        f"spec:\n  schedulingPolicy:\n    gang:\n      minCount: {min_count}\n{extra}"
    )


def test_job_gang_min_count_defaults_to_parallelism_and_reads_the_topology_key() -> None:
    scheduling = "  scheduling:\n    schedulingPolicy:\n      gang: {}\n    schedulingConstraints:\n      topology:\n      - key: topology.kubernetes.io/rack\n"
    (gang,) = gangs_of(job("train", 4, 2, scheduling))
    assert (gang.kind, gang.name, gang.required, gang.topology_key) == ("Job", "train", 4, RACK)
    assert [(shape.amount("nvidia.com/gpu"), count) for shape, count in gang.members] == [(2000, 4)]
    assert gang.min_path == ("spec", "scheduling", "schedulingPolicy", "gang")


def test_pod_group_members_and_too_few_of_them() -> None:
    member = "      schedulingGroup: {podGroupName: workers}\n"
    text = pod_group("workers", 4) + "---\n" + job("workers", 3, 1, template_extra=member)
    (gang,) = gangs_of(text)
    assert (gang.kind, gang.required) == ("PodGroup", 4)
    assert gang.problems == [
        "only 3 member Pod(s) of PodGroup workers in the set while the gang requires 4: it can never start"
    ]
    verdict = analyse(cluster([node("n", gpu=8)]), [gang]).verdicts[0]
    assert not verdict.feasible and verdict.reasons[0].startswith("only 3 member Pod(s)")


def test_pod_group_without_members_takes_min_count_copies_of_the_owner_template() -> None:
    owned = pod_group("train-pg", 3).replace(
        "metadata:\n  name: train-pg\n",
        "metadata:\n  name: train-pg\n  ownerReferences:\n  - {apiVersion: batch/v1, kind: Job, name: train, controller: true}\n",
    )
    (gang,) = gangs_of(owned + "---\n" + job("train", 3, 8))
    assert [(shape.amount("nvidia.com/gpu"), count) for shape, count in gang.members] == [(8000, 3)]
    assert gang.problems == []
    alone = gangs_of(pod_group("lonely", 2))[0]
    assert alone.problems and "no member Pod in the set" in alone.problems[0]


def test_composite_pod_group_children_and_min_group_count() -> None:
    composite = (
        "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata:\n  name: parent\n"
        "spec:\n  workloadRef: {workloadName: w, templateName: parent}\n"
        "  schedulingPolicy:\n    gang:\n      minGroupCount: 2\n"
        "  schedulingConstraints:\n    topology:\n    - key: topology.kubernetes.io/zone\n"
    )
    child = "  parentCompositePodGroupName: parent\n  workloadRef: {workloadName: w, templateName: c}\n"
    parts = [composite]
    for name in ("a", "b"):
        member = f"      schedulingGroup: {{podGroupName: {name}}}\n"
        parts += [pod_group(name, 1, child), job(name, 1, 4, template_extra=member)]
    (gang,) = gangs_of("---\n".join(parts))
    assert (gang.kind, gang.min_groups, gang.topology_key) == ("CompositePodGroup", 2, ZONE)
    assert sorted(child.name for child in gang.children) == ["a", "b"]
    nodes = [node("a1", gpu=4, labels={ZONE: "za"}), node("b1", gpu=4, labels={ZONE: "zb"})]
    verdict = analyse(cluster(nodes), [gang]).verdicts[0]
    assert (verdict.feasible, verdict.placeable, verdict.required) == (False, 1, 2)
    nodes.append(node("a2", gpu=4, labels={ZONE: "za"}))
    assert analyse(cluster(nodes), [gang]).verdicts[0].feasible


def test_kai_pod_group_and_batch_min_member() -> None:
    kai_group = (
        "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata:\n  name: kai-train\n"
        "spec:\n  minMember: 2\n  queue: research\n  topologyConstraint: {requiredTopologyLevel: topology.kubernetes.io/rack}\n"
    )
    member = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{n}\n  annotations: {{pod-group-name: kai-train}}\n"
        "spec:\n  containers:\n  - name: c\n    image: x\n    resources: {{limits: {{nvidia.com/gpu: 1}}}}\n"
    )
    batch = job("batch", 4, 1).replace(
        "metadata:\n  name: batch\n", 'metadata:\n  name: batch\n  annotations: {kai.scheduler/batch-min-member: "3"}\n'
    )
    gangs = gangs_of("---\n".join([kai_group, member.format(n=0), member.format(n=1), batch]))
    kinds = {(gang.kind, gang.name): gang for gang in gangs}
    kai = kinds[("PodGroup", "kai-train")]
    assert (kai.required, kai.topology_key, sum(n for _, n in kai.members)) == (2, RACK, 2)
    assert kinds[("Job", "batch")].required == 3
    assert kinds[("Job", "batch")].min_path == ("metadata", "annotations", "kai.scheduler/batch-min-member")
    assert not any(gang.kind == "Pod" for gang in gangs)  # members are not groups of their own


def test_kai_subgroups_become_children_that_must_all_fit() -> None:
    kai_group = (
        "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata:\n  name: lws\n"
        "spec:\n  minMember: 3\n  subGroups:\n  - {name: leader, minMember: 1}\n  - {name: workers, minMember: 2}\n"
    )
    member = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  annotations: {{pod-group-name: lws}}\n"
        "  labels: {{kai.scheduler/subgroup-name: {sub}}}\n"
        "spec:\n  containers:\n  - name: c\n    image: x\n    resources: {{limits: {{nvidia.com/gpu: 1}}}}\n"
    )
    pods = [
        member.format(name="l", sub="leader"),
        member.format(name="w0", sub="workers"),
        member.format(name="w1", sub="workers"),
    ]
    (gang,) = gangs_of("---\n".join([kai_group, *pods]))
    assert [(child.name, child.required) for child in gang.children] == [("lws/leader", 1), ("lws/workers", 2)]
    assert analyse(cluster([node("n", gpu=3)]), [gang]).verdicts[0].feasible
    assert not analyse(cluster([node("n", gpu=2)]), [gang]).verdicts[0].feasible


def test_volcano_and_coscheduling_min_member() -> None:
    volcano = (
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata:\n  name: vc\nspec:\n  minMember: 2\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: v0\n  annotations: {scheduling.k8s.io/group-name: vc}\n"
        "spec:\n  containers: [{name: c, image: x}]\n"
    )
    cosched = (
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata:\n  name: cs\nspec:\n  minMember: 1\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: c0\n  labels: {scheduling.x-k8s.io/pod-group: cs}\n"
        "spec:\n  containers: [{name: c, image: x}]\n"
    )
    gangs = {gang.name: gang for gang in gangs_of(volcano + "---\n" + cosched)}
    assert gangs["vc"].problems  # one member for minMember 2
    assert gangs["cs"].required == 1 and not gangs["cs"].problems
    assert set(gangs) == {"vc", "cs"}


def test_pods_in_no_gang_are_groups_of_one_and_priority_orders_the_run() -> None:
    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"
        "  template:\n    spec:\n      priorityClassName: high\n      containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]\n"
    )
    (gang,) = gangs_of(deployment, {"high": 1000})
    assert (gang.kind, gang.required, gang.is_gang, gang.priority) == ("Deployment", 3, False, 1000)
    unknown = deployment.replace("  replicas: 3\n", "")
    assert gangs_of(unknown) == []  # replicas unset: an autoscaler may own it, unknown


def test_workload_gang_template_without_pod_group_takes_the_controller_pods() -> None:
    workload = (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata:\n  name: llm\n"
        "spec:\n  controllerRef: {apiGroup: jobset.x-k8s.io, kind: JobSet, name: llm}\n"
        "  podGroupTemplates:\n  - name: workers\n    schedulingPolicy:\n      gang:\n        minCount: 4\n"
        "    schedulingConstraints:\n      topology:\n      - key: topology.kubernetes.io/rack\n"
    )
    jobset = (
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: llm\nspec:\n  replicatedJobs:\n"
        "  - name: driver\n    replicas: 1\n    template:\n      spec:\n        template:\n          spec:\n"
        "            containers: [{name: c, image: x}]\n"
        "  - name: workers\n    replicas: 1\n    template:\n      spec:\n        parallelism: 4\n        template:\n"
        "          spec:\n            tolerations: [{operator: Exists}]\n"
        "            containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]\n"
    )
    (gang,) = gangs_of(workload + "---\n" + jobset)
    assert (gang.kind, gang.name, gang.required, gang.topology_key) == ("Workload", "llm/workers", 4, RACK)
    assert [(shape.amount("nvidia.com/gpu"), count) for shape, count in gang.members] == [(8000, 4)]
    assert gang.min_path == ("spec", "podGroupTemplates", 0, "schedulingPolicy", "gang", "minCount")
    with_group = (
        workload
        + "---\n"
        + jobset
        + "---\n"
        + pod_group("llm-workers", 4, "  workloadRef: {workloadName: llm, templateName: workers}\n")
    )
    (group,) = gangs_of(with_group)  # the PodGroup is the gang, its pods the named replicated job's
    assert (group.kind, [(shape.amount("nvidia.com/gpu"), n) for shape, n in group.members]) == (
        "PodGroup",
        [(8000, 4)],
    )


def test_preemption_policy_never_means_no_preemption_what_if() -> None:
    from feasibility_helpers import running

    from waslint.feasibility.model import priority_table

    never_class = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: polite\nvalue: 1000\npreemptionPolicy: Never\n"
    scheduling = "  scheduling:\n    schedulingPolicy:\n      gang:\n        minCount: 2\n"
    polite = job("polite", 2, 4, scheduling, template_extra="      priorityClassName: polite\n")
    index = ObjectIndex.build([parse_bytes("set.yaml", (never_class + "---\n" + polite).encode())], "default")
    classes = [obj.data for obj in index.of_kind("scheduling.k8s.io", "PriorityClass")]
    priorities, default = priority_table(classes)
    from waslint.feasibility.model import never_preempting

    (gang,) = collect(index, priorities, default, None, never_preempting(classes)).gangs
    assert (gang.priority, gang.preempts) == (1000, False)
    busy = [running("low", "n", gpu=8, priority=1)]
    verdict = analyse(cluster([node("n", gpu=8)], busy), [gang], preempt=True).verdicts[0]
    assert verdict.what_if == ["--preempt: the gang's preemptionPolicy is Never: it waits, it never preempts"]
    eager_text = never_class.replace("preemptionPolicy: Never", "preemptionPolicy: PreemptLowerPriority")
    index = ObjectIndex.build([parse_bytes("set.yaml", (eager_text + "---\n" + polite).encode())], "default")
    classes = [obj.data for obj in index.of_kind("scheduling.k8s.io", "PriorityClass")]
    (eager,) = collect(index, *priority_table(classes), None, never_preempting(classes)).gangs
    assert eager.preempts
    verdict = analyse(cluster([node("n", gpu=8)], busy), [eager], preempt=True).verdicts[0]
    assert "after evicting 1 pod(s) holding 8 GPU(s): pod default/low" in verdict.what_if[0]


def test_kai_topology_levels_make_racks_paths_inside_their_spine() -> None:
    # KAI-Scheduler pkg/scheduler/plugins/topology/topology_structs.go calcDomainId: a domain ID
    # joins the values of every level down to its own, so rack "r1" under spine s1 and "r1" under
    # spine s2 are two domains. The PodGroup names its Topology in topologyConstraint.topology.
    from waslint.feasibility.analysis import assign_levels, topology_levels

    kai_group = (
        "apiVersion: scheduling.run.ai/v2alpha2\nkind: PodGroup\nmetadata:\n  name: kai-train\n"
        "spec:\n  minMember: 2\n  topologyConstraint: {topology: net, requiredTopologyLevel: k8s.io/rack}\n"
    )
    member = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{n}\n  annotations: {{pod-group-name: kai-train}}\n"
        "spec:\n  containers:\n  - name: c\n    image: x\n    resources: {{limits: {{nvidia.com/gpu: 4}}}}\n"
    )
    gangs = gangs_of("---\n".join([kai_group, member.format(n=0), member.format(n=1)]))
    topology = {
        "apiVersion": "kai.scheduler/v1alpha1",
        "kind": "Topology",
        "metadata": {"name": "net"},
        "spec": {"levels": [{"nodeLabel": "k8s.io/spine"}, {"nodeLabel": "k8s.io/rack"}]},
    }
    assign_levels(gangs, topology_levels([topology]))
    assert gangs[0].domain_levels == ("k8s.io/spine",)
    nodes = [
        node("a", gpu=4, labels={"k8s.io/spine": "s1", "k8s.io/rack": "r1"}),
        node("b", gpu=4, labels={"k8s.io/spine": "s2", "k8s.io/rack": "r1"}),
    ]
    (verdict,) = analyse(cluster(nodes), gangs).verdicts
    assert not verdict.feasible  # merged by value, "r1" would take both pods
    assert verdict.placeable == 1
