"""Node filters and pod requests, case by case after the upstream scheduler's own tests:
kubernetes pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go
(TestTaintTolerationFilter), nodeaffinity/node_affinity_test.go (TestNodeAffinity),
noderesources/fit_test.go (TestEnoughRequests) and k8s.io/component-helpers resource
helpers_test.go (TestPodRequests: init and sidecar containers, overhead)."""

from __future__ import annotations

from typing import Any

import pytest
from feasibility_helpers import gang, node, run, shape

from waslint.feasibility.filters import exclusion
from waslint.feasibility.model import node_from_dict
from waslint.objects.pods import pod_request
from waslint.objects.quantity import MILLI
from waslint.objects.shapes import shape_from_spec


def taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def judge(node_item: dict[str, Any], **spec: Any) -> str | None:
    parsed = node_from_dict(node_item)
    assert parsed is not None
    return exclusion(shape_from_spec({"containers": [], **spec}), parsed)


@pytest.mark.parametrize(
    ("taints", "tolerations", "passes"),
    [
        # "A pod having no tolerations can't be scheduled onto a node with nonempty taints"
        ([taint("dedicated", "user1", "NoSchedule")], [], False),
        # "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule"
        (
            [taint("dedicated", "user1", "NoSchedule")],
            [{"key": "dedicated", "value": "user1", "effect": "NoSchedule"}],
            True,
        ),
        # "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule"
        (
            [taint("dedicated", "user1", "NoSchedule")],
            [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}],
            False,
        ),
        # "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node"
        ([taint("foo", "bar", "NoSchedule")], [{"key": "foo", "operator": "Exists", "effect": "NoSchedule"}], True),
        # "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated"
        (
            [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")],
            [
                {"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"},
                {"key": "foo", "operator": "Exists", "effect": "NoSchedule"},
            ],
            True,
        ),
        # "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match"
        (
            [taint("foo", "bar", "NoSchedule")],
            [{"key": "foo", "operator": "Equal", "value": "bar", "effect": "PreferNoSchedule"}],
            False,
        ),
        # "The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty"
        ([taint("foo", "bar", "NoSchedule")], [{"key": "foo", "operator": "Equal", "value": "bar"}], True),
        # "The pod has a toleration that key and value don't match the taint on the node, but the effect of taint is PreferNoSchedule"
        (
            [taint("foo", "bar", "PreferNoSchedule")],
            [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": "NoSchedule"}],
            True,
        ),
        # "The pod has no toleration, but the effect of taint on the node is PreferNoSchedule"
        ([taint("foo", "bar", "PreferNoSchedule")], [], True),
        # an empty key with Exists tolerates every taint
        ([taint("a", "b", "NoExecute"), taint("c", "", "NoSchedule")], [{"operator": "Exists"}], True),
        # NoExecute counts like NoSchedule
        ([taint("gone", "", "NoExecute")], [], False),
    ],
)
def test_taint_toleration_filter(taints: list[dict[str, str]], tolerations: list[dict[str, str]], passes: bool) -> None:
    verdict = judge(node("n", taints=taints), tolerations=tolerations)
    assert (verdict is None) == passes, verdict


def affinity(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": list(term)} for term in terms]
            }
        }
    }


@pytest.mark.parametrize(
    ("labels", "spec", "passes"),
    [
        # "missing labels" / "same labels" / "node labels are superset" / "node labels are subset"
        ({}, {"nodeSelector": {"foo": "bar"}}, False),
        ({"foo": "bar"}, {"nodeSelector": {"foo": "bar"}}, True),
        ({"foo": "bar", "baz": "blah"}, {"nodeSelector": {"foo": "bar"}}, True),
        ({"foo": "bar"}, {"nodeSelector": {"foo": "bar", "baz": "blah"}}, False),
        # "Pod with matchExpressions using In operator that matches the existing node"
        ({"foo": "bar"}, {"affinity": affinity([{"key": "foo", "operator": "In", "values": ["value1", "bar"]}])}, True),
        # "Pod with matchExpressions using Gt operator that matches the existing node"
        (
            {"kernel-version": "0206"},
            {"affinity": affinity([{"key": "kernel-version", "operator": "Gt", "values": ["0204"]}])},
            True,
        ),
        # "Pod with matchExpressions using NotIn operator that matches the existing node"
        (
            {"mem-type": "DDR3"},
            {"affinity": affinity([{"key": "mem-type", "operator": "NotIn", "values": ["DDR", "DDR2"]}])},
            True,
        ),
        # "Pod with matchExpressions using Exists operator that matches the existing node"
        ({"GPU": "NVIDIA-GRID-K1"}, {"affinity": affinity([{"key": "GPU", "operator": "Exists"}])}, True),
        # "Pod with affinity that don't match node's labels won't schedule onto the node"
        (
            {"foo": "bar"},
            {"affinity": affinity([{"key": "foo", "operator": "In", "values": ["value1", "value2"]}])},
            False,
        ),
        # "Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels"
        (
            {"foo": "bar"},
            {
                "affinity": {
                    "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
                }
            },
            False,
        ),
        # "Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels"
        ({"foo": "bar"}, {"affinity": affinity([])}, False),
        # "Pod with multiple matchExpressions ANDed that doesn't match the existing node"
        (
            {"GPU": "NVIDIA-GRID-K1"},
            {
                "affinity": affinity(
                    [
                        {"key": "GPU", "operator": "Exists"},
                        {"key": "GPU", "operator": "NotIn", "values": ["AMD", "INTER"]},
                        {"key": "foo", "operator": "Exists"},
                    ]
                )
            },
            False,
        ),
        # "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node"
        (
            {"foo": "bar"},
            {
                "affinity": affinity(
                    [{"key": "foo", "operator": "In", "values": ["bar", "value2"]}],
                    [{"key": "diffkey", "operator": "In", "values": ["wrong", "value2"]}],
                )
            },
            True,
        ),
        # "Pod with an Affinity both requiredDuringScheduling and nodeSelector set": both must hold
        (
            {"foo": "bar"},
            {"nodeSelector": {"foo": "bar"}, "affinity": affinity([{"key": "foo", "operator": "DoesNotExist"}])},
            False,
        ),
        # Lt compares integers
        ({"gen": "3"}, {"affinity": affinity([{"key": "gen", "operator": "Lt", "values": ["10"]}])}, True),
        ({"gen": "x"}, {"affinity": affinity([{"key": "gen", "operator": "Lt", "values": ["10"]}])}, False),
    ],
)
def test_node_affinity_filter(labels: dict[str, str], spec: dict[str, Any], passes: bool) -> None:
    verdict = judge(node("n", labels=labels), **spec)
    assert (verdict is None) == passes, verdict


def test_match_fields_and_node_name_name_one_node() -> None:
    by_field = affinity()
    by_field["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] = [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node1"]}]}
    ]
    assert judge(node("node1"), affinity=by_field) is None
    assert judge(node("node2"), affinity=by_field) == "required node affinity does not match"
    assert judge(node("node2"), nodeName="node1") == "nodeName names another node"
    assert judge(node("node1"), nodeName="node1") is None


def test_not_ready_and_cordoned_nodes_take_nothing() -> None:
    assert judge(node("n", ready=False)) == "not Ready"
    assert judge(node("n", unschedulable=True)) == "unschedulable (cordoned)"
    tolerant = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
    assert judge(node("n", unschedulable=True), tolerations=tolerant) is None


def container(name: str, cpu: str, memory: str = "0", **extra: Any) -> dict[str, Any]:
    requests = {"cpu": cpu} | ({"memory": memory} if memory != "0" else {})
    return {"name": name, "resources": {"requests": requests}, **extra}


def test_pod_request_is_max_of_containers_and_init_plus_overhead() -> None:
    # TestPodRequests "init container bigger than the containers": max(2, 3) + overhead 1
    spec = {
        "containers": [container("a", "1"), container("b", "1")],
        "initContainers": [container("init", "3")],
        "overhead": {"cpu": "1"},
    }
    assert pod_request(spec)["cpu"] == 4 * MILLI


def test_sidecar_init_containers_run_beside_the_containers() -> None:
    # TestPodRequests with restartable (sidecar) init containers: the sidecar adds to the
    # containers, and a later init container runs next to the sidecars started before it.
    spec = {
        "initContainers": [
            container("sidecar", "1", restartPolicy="Always"),
            container("migrate", "4"),
        ],
        "containers": [container("main", "2")],
    }
    assert pod_request(spec)["cpu"] == 5 * MILLI  # max(2 + 1, 4 + 1)
    spec["initContainers"][1] = container("migrate", "1")
    assert pod_request(spec)["cpu"] == 3 * MILLI


def test_limits_stand_in_for_missing_requests() -> None:
    spec = {"containers": [{"name": "gpu", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}
    assert pod_request(spec) == {"nvidia.com/gpu": 2 * MILLI}


def test_pods_resource_limits_pods_that_request_nothing() -> None:
    # TestEnoughRequests "even without specified resources, predicate fails when there's no space for additional pod"
    nodes = [node("n", pods=3)]
    assert run(nodes, [gang("g", shape(), 3)]).verdicts[0].feasible
    verdict = run(nodes, [gang("g", shape(), 4)]).verdicts[0]
    assert (verdict.feasible, verdict.placeable, verdict.limiting_resource) == (False, 3, "pods")


def test_a_resource_requested_zero_never_limits() -> None:
    # the node has no GPU at all; a pod that requests none fits
    nodes = [node("cpu-1", cpu="4")]
    assert run(nodes, [gang("g", shape(cpu="1"), 4)]).verdicts[0].feasible
    verdict = run(nodes, [gang("g", shape(gpu=1, cpu="1"), 1)]).verdicts[0]
    assert verdict.exclusions == {"insufficient nvidia.com/gpu": 1}


def test_extended_resources_count_like_cpu() -> None:
    # TestEnoughRequests "extended resource allocatable enforced"
    nodes = [node("n", extra={"example.com/aaa": "5"})]
    fits = shape_from_spec(
        {"containers": [container("c", "1") | {"resources": {"requests": {"example.com/aaa": "5"}}}]}
    )
    too_big = shape_from_spec({"containers": [{"name": "c", "resources": {"requests": {"example.com/aaa": "6"}}}]})
    assert run(nodes, [gang("a", fits, 1)]).verdicts[0].feasible
    assert not run(nodes, [gang("b", too_big, 1)]).verdicts[0].feasible
