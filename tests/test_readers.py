"""The typed readers of `objects/`: a pod spec's request and shape, membership (which gang a Pod
joins, which controller owns an object), a group's scheduling fields with their paths, and the
one choice of the release's field names. Readers never raise on wrong types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import lint_text
from waslint.feasibility.dra import claim_book
from waslint.feasibility.gangs import collect
from waslint.io.loader import parse_bytes
from waslint.knowledge.lifecycle import field_names
from waslint.objects.groups import groups_of, object_group
from waslint.objects.index import ObjectIndex
from waslint.objects.kobject import KObject, objects_of
from waslint.objects.members import controller_ref, is_controlled, membership
from waslint.objects.pods import pod_request
from waslint.objects.shapes import shape_from_spec
from waslint.objects.walks import pod_templates, workload_templates


def objects(text: str) -> list[KObject]:
    source = parse_bytes("test.yaml", text.encode())
    return [obj for doc in source.documents for obj in objects_of(doc, "default")]


def one(text: str) -> KObject:
    (found,) = objects(text)
    return found


# --------------------------------------------------------------------------- pod request

SIDECAR_AND_OVERHEAD: dict[str, Any] = {
    "overhead": {"cpu": "500m"},
    "initContainers": [
        {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
    ],
    "containers": [{"name": "main", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": 1}}}],
}


def test_request_adds_sidecars_and_overhead_in_milli_units() -> None:
    assert pod_request(SIDECAR_AND_OVERHEAD) == {"cpu": 2500, "nvidia.com/gpu": 1000}


def test_request_takes_the_init_peak_with_the_sidecars_started_before_it() -> None:
    spec = {
        "initContainers": [
            {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
            {"name": "warmup", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}},
        ],
        "containers": [{"name": "main", "resources": {"limits": {"cpu": "1"}}}],  # the limit stands in
    }
    # steady: main 1 + proxy 1 = 2; init phase: warmup 3 + proxy 1 = 4 (memory: warmup's 1Gi)
    assert pod_request(spec) == {"cpu": 4000, "memory": 2**30 * 1000}


def test_pod_level_resources_win_over_the_containers_and_overhead_still_adds() -> None:
    spec = {**SIDECAR_AND_OVERHEAD, "resources": {"requests": {"cpu": "4"}}}
    assert pod_request(spec) == {"cpu": 4500}


@pytest.mark.parametrize(
    "spec",
    [
        {"containers": "main"},
        {"containers": [{"resources": "big"}], "initContainers": [7]},
        {"containers": [{"resources": {"requests": {"cpu": {"a": 1}}}}], "overhead": ["x"]},
        {"resources": "all"},
    ],
)
def test_request_of_a_malformed_spec_reads_as_empty(spec: dict[str, Any]) -> None:
    assert pod_request(spec) == {}


def test_shape_carries_the_pod_slot_and_the_kai_share() -> None:
    shape = shape_from_spec(SIDECAR_AND_OVERHEAD, {"gpu-fraction": "0.5"})
    assert shape.request_map == {"cpu": 2500, "nvidia.com/gpu": 1000, "pods": 1000}
    assert shape.gpu_fraction == 500


# --------------------------------------------------------------------------- field names


def test_field_names_follow_the_api_version() -> None:
    old = field_names("scheduling.k8s.io", "v1alpha1", "Workload")
    assert (old.templates, old.policy) == ("podGroups", "policy")
    for version in ("v1alpha2", "v1alpha3", "v1beta1", "v9"):
        names = field_names("scheduling.k8s.io", version, "Workload")
        assert (names.templates, names.policy) == ("podGroupTemplates", "schedulingPolicy")


V1ALPHA1 = """\
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: training}
spec:
  podGroups:
  - name: workers
    policy: {gang: {minCount: 4}}
"""


def test_a_v1alpha1_workload_is_read_with_its_own_names() -> None:
    (group,) = groups_of(one(V1ALPHA1))
    assert group.path == ("spec", "podGroups", 0)
    assert group.policy.key == "policy"
    assert group.policy.variant == "gang"
    assert (group.policy.minimum.value, group.policy.minimum.path) == (
        4,
        ("spec", "podGroups", 0, "policy", "gang", "minCount"),
    )


def test_a_renamed_field_in_the_wrong_version_reads_as_absent() -> None:
    # 1.37 drops a field its type does not have; `policy` in v1beta1 is no policy at all
    workload = one(V1ALPHA1.replace("v1alpha1", "v1beta1").replace("podGroups", "podGroupTemplates"))
    (group,) = groups_of(workload)
    assert (group.policy.key, group.policy.present, group.policy.variant) == ("schedulingPolicy", False, None)
    assert workload_templates(one(V1ALPHA1.replace("v1alpha1", "v1beta1"))) == []


# --------------------------------------------------------------------------- groups


def test_a_pod_group_is_read_with_every_field_at_its_path() -> None:
    group = object_group(
        one(
            """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: workers-0}
spec:
  workloadRef: {workloadName: training, templateName: workers}
  parentCompositePodGroupName: job
  schedulingPolicy: {gang: {minCount: 8}}
  schedulingConstraints: {topology: [{key: example.com/rack}]}
  disruptionMode: PodGroup
  priorityClassName: high
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: gpus}
"""
        )
    )
    assert group is not None
    assert (group.role, group.composite, group.policy.variant) == ("PodGroup", False, "gang")
    assert group.policy.minimum.value == 8
    assert [(t.key, t.key_path) for t in group.topology] == [
        ("example.com/rack", ("spec", "schedulingConstraints", "topology", 0, "key"))
    ]
    assert (group.disruption.mode, group.disruption.legacy) == ("all", True)
    assert group.priority_class_name is not None and group.priority_class_name.path == ("spec", "priorityClassName")
    assert [claim.triple for claim in group.claims] == [("gpu", None, "gpus")]
    assert group.workload_ref is not None and (group.workload_ref.workload, group.workload_ref.template) == (
        "training",
        "workers",
    )
    assert group.parent is not None and group.parent.value == "job"


def test_a_composite_minimum_counts_groups_and_a_job_reads_its_scheduling() -> None:
    composite = object_group(
        one(
            """\
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: job}
spec:
  workloadRef: {workloadName: training, templateName: job}
  schedulingPolicy: {gang: {minGroupCount: 2}}
"""
        )
    )
    assert composite is not None and composite.policy.minimum.field == "minGroupCount"
    assert composite.policy.minimum.value == 2
    cron = object_group(
        one(
            """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  jobTemplate:
    spec:
      scheduling: {schedulingPolicy: {gang: {}}}
      template: {spec: {containers: [{name: main, image: x}]}}
"""
        )
    )
    assert cron is not None and cron.path == ("spec", "jobTemplate", "spec", "scheduling")
    minimum = cron.policy.minimum
    assert (cron.policy.variant, minimum.present, minimum.value) == ("gang", False, None)


@pytest.mark.parametrize(
    "spec",
    [
        "spec: {schedulingPolicy: gang, schedulingConstraints: {topology: rack}, disruptionMode: 5}",
        "spec: {schedulingPolicy: {gang: 4}, resourceClaims: {a: b}, priority: high, workloadRef: x}",
        "spec: {schedulingPolicy: {basic: {}, gang: {minCount: four}}, schedulingConstraints: {topology: [7]}}",
        "spec: [1, 2]",
    ],
)
def test_a_group_of_wrong_types_reads_as_absent(spec: str) -> None:
    group = object_group(one(f"apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {{name: x}}\n{spec}\n"))
    assert group is not None
    assert group.policy.variant is None or group.policy.minimum.value is None
    assert group.disruption.mode is None
    assert group.priority is None
    assert all(constraint.key is None for constraint in group.topology)


# --------------------------------------------------------------------------- membership


def test_membership_reads_each_scheduler_with_the_field_path() -> None:
    template = pod_templates(
        one(
            """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  annotations: {pod-group-name: not-this-one}
spec:
  template:
    metadata:
      annotations: {pod-group-name: kai-gang, scheduling.volcano.sh/group-name: vc}
      labels: {kai.scheduler/subgroup-name: workers, scheduling.x-k8s.io/pod-group: co}
    spec:
      schedulingGroup: {podGroupName: was}
      containers: [{name: main, image: x}]
"""
        )
    )[0]
    joined = template.membership
    assert joined.pod_group is not None and joined.pod_group.path == (
        "spec",
        "template",
        "spec",
        "schedulingGroup",
        "podGroupName",
    )
    assert joined.kai is not None and (joined.kai.value, joined.kai.path) == (
        "kai-gang",
        ("spec", "template", "metadata", "annotations", "pod-group-name"),
    )
    assert joined.third_party() == [("kai", "kai-gang"), ("volcano", "vc"), ("coscheduling", "co")]
    assert joined.kai_subgroup is not None and joined.kai_subgroup.value == "workers"


def test_an_empty_kai_group_name_is_no_membership() -> None:
    assert membership({"annotations": {"pod-group-name": ""}}, {}).kai is None


KAI_GANG = """\
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: team-gang}
spec: {minMember: 2}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  OWNER
spec:
  parallelism: 2
  template:
    metadata:
      TEMPLATE
    spec:
      schedulerName: kai-scheduler
      containers: [{name: main, image: x}]
"""


def _kai_members(owner: str, template: str) -> list[str]:
    index = ObjectIndex(objects(KAI_GANG.replace("OWNER", owner).replace("TEMPLATE", template)))
    return [t.owner.name or "" for t in index.scheduler_members("kai", "default", "team-gang")]


def test_kai_membership_is_the_pod_templates_annotation() -> None:
    assert _kai_members("labels: {}", "annotations: {pod-group-name: team-gang}") == ["train"]


def test_kai_membership_is_never_read_from_the_owner() -> None:
    # KAI reads the Pod's annotations, and a Job's annotations are not copied to its Pods
    assert _kai_members("annotations: {pod-group-name: team-gang}", "labels: {}") == []


def test_controller_ref_is_the_owner_with_controller_true() -> None:
    metadata = {
        "ownerReferences": [
            {"kind": "ConfigMap", "name": "x", "apiVersion": "v1"},
            "garbage",
            {"kind": "Job", "name": "train", "apiVersion": "batch/v1", "controller": True},
        ]
    }
    owner = controller_ref(metadata)
    assert owner is not None and (owner.group, owner.kind, owner.name) == ("batch", "Job", "train")
    assert is_controlled(metadata)
    assert not is_controlled({"ownerReferences": [{"kind": "Job", "controller": "true"}]})
    assert not is_controlled({"ownerReferences": "Job"})


def _kai_gang_problems(owner: str, template: str) -> list[str]:
    index = ObjectIndex(objects(KAI_GANG.replace("OWNER", owner).replace("TEMPLATE", template)))
    (gang,) = [gang for gang in collect(index, {}, 0).gangs if gang.kind == "PodGroup"]
    return gang.problems


def test_feasibility_reads_kai_membership_as_lint_does() -> None:
    assert _kai_gang_problems("labels: {}", "annotations: {pod-group-name: team-gang}") == []
    assert _kai_gang_problems("annotations: {pod-group-name: team-gang}", "labels: {}") == [
        "no Pod in the set carries the annotation pod-group-name: team-gang"
    ]


KAI_SUBGROUPS = """\
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: team-gang}
spec:
  minMember: 2
  subGroups:
  - {name: leader, minMember: 1}
  - {name: workers, minMember: 1}
---
apiVersion: v1
kind: Pod
metadata:
  name: leader-0
  annotations: {pod-group-name: team-gang}
  labels: {kai.scheduler/subgroup-name: leader}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: leader-gpus}]
  containers: [{name: main, image: x}]
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  annotations: {pod-group-name: team-gang}
  labels: {kai.scheduler/subgroup-name: workers}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: worker-gpus}]
  containers: [{name: main, image: x}]
"""


def test_each_gang_carries_its_own_pod_templates_and_notes() -> None:
    index = ObjectIndex(objects(KAI_SUBGROUPS))
    collected = collect(index, {}, 0, claim_book([], [], active=True))
    (parent,) = [gang for gang in collected.gangs if gang.kind == "PodGroup"]
    leader, workers = parent.children
    assert parent.templates == [] and parent.notes == []
    assert [t.owner.name for t in leader.templates] == ["leader-0"]
    assert leader.notes == ["ResourceClaimTemplate leader-gpus is not in the set: its devices are not counted"]
    assert [t.owner.name for t in workers.templates] == ["worker-0"]
    assert workers.notes == ["ResourceClaimTemplate worker-gpus is not in the set: its devices are not counted"]


# --------------------------------------------------------------------------- lint and feasibility agree

GANG_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy: {gang: {minCount: 4}}
    schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
  template:
    spec:
      restartPolicy: Never
POD_SPEC"""
ONE_CONTAINER = """\
      containers:
      - {name: main, image: trainer:1.0, resources: {requests: {cpu: 2500m}}}
"""
SIDECAR_PLUS_OVERHEAD = """\
      overhead: {cpu: 500m}
      initContainers:
      - {name: proxy, image: proxy:1.0, restartPolicy: Always, resources: {requests: {cpu: "1"}}}
      containers:
      - {name: main, image: trainer:1.0, resources: {requests: {cpu: "1"}}}
"""


def _zones(tmp_path: Path) -> str:
    """Two zones of two 4-CPU nodes: one 2.5-CPU pod per node, so a zone holds 2 of the gang's 4."""
    items = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone, "kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}},
        }
        for zone in ("a", "b")
        for name in (f"{zone}-1", f"{zone}-2")
    ]
    path = tmp_path / "snapshot.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


@pytest.mark.parametrize("pod", [ONE_CONTAINER, SIDECAR_PLUS_OVERHEAD], ids=["one-container", "sidecar-overhead"])
def test_lint_and_feasibility_read_the_same_request(pod: str, tmp_path: Path) -> None:
    snapshot = _zones(tmp_path)
    found = lint_text(GANG_JOB.replace("POD_SPEC", pod), select=["WAS603", "WAS606"], extra={"snapshot_path": snapshot})
    assert sorted(finding.code for finding in found) == ["WAS603", "WAS606"]
    (was603,) = [finding for finding in found if finding.code == "WAS603"]
    assert "room for 2 of the 4 pods" in was603.message
