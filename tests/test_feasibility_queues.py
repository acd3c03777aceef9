"""Queue admission before placement, translated from the schedulers' own tests (each case cites
its repository, file and test name), then end to end: the verdict says "over quota" or "no
capacity", a placed gang's use counts against its queue for the gangs after it, and Kueue's
flavors restrict where the gang is placed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from feasibility_helpers import node

from conftest import in_process
from waslint.feasibility.admission_kai import KaiPod, KaiQueues
from waslint.feasibility.admission_kueue import KueueQueues
from waslint.feasibility.admission_volcano import VolcanoQueues
from waslint.objects.quantity import GPU, MILLI, Resources, resource_map
from waslint.objects.queues import (
    kai_preemptible,
    kai_queue,
    kueue_admission,
    kueue_cluster_queue,
    kueue_flavor,
    volcano_queue,
)
from waslint.objects.shapes import PodShape, shape_from_spec

# --------------------------------------------------------------------------- KAI

KAI_MAX = "kai-scheduler/KAI-Scheduler pkg/scheduler/plugins/proportion/capacity_policy/max_allowed_check_test.go"
KAI_QUOTA = "kai-scheduler/KAI-Scheduler pkg/scheduler/plugins/proportion/capacity_policy/quota_check_test.go"


def kai(
    name: str,
    limit: dict[str, Any] | None = None,
    quota: dict[str, Any] | None = None,
    allocated: dict[str, str] | None = None,
    non_preemptible: dict[str, str] | None = None,
    parent: str | None = None,
) -> dict[str, Any]:
    """A KAI Queue; `limit` and `quota` by spec key (cpu millicores, memory MB, gpu devices); an
    omitted resource gets limit -1 / quota -1 unless given."""
    resources: dict[str, Any] = {}
    for key in ("cpu", "memory", "gpu"):
        resources[key] = {"quota": (quota or {}).get(key, -1), "limit": (limit or {}).get(key, -1)}
    item: dict[str, Any] = {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": name}}
    item["spec"] = {"resources": resources, **({"parentQueue": parent} if parent else {})}
    status: dict[str, Any] = {}
    if allocated is not None:
        status["allocated"] = allocated
    if non_preemptible is not None:
        status["allocatedNonPreemptible"] = non_preemptible
    if status:
        item["status"] = status
    return item


def kai_book(*queues: dict[str, Any], pods: list[KaiPod] | None = None) -> KaiQueues:
    return KaiQueues.build([kai_queue(item) for item in queues], pods or [])


def req(**amounts: str) -> Resources:
    names = {"cpu": "cpu", "memory": "memory", "gpu": GPU}
    return resource_map({names[key]: value for key, value in amounts.items()})


ONE_EACH = {"cpu": 1000, "memory": 1, "gpu": 1}  # the tests' maxAllowed: 1000 millicores, 1 MB, 1 GPU


@pytest.mark.parametrize(
    ("case", "limit", "allocated", "requested", "over"),
    [
        (
            "no maxAllowed",
            {},
            {"cpu": "500m", "memory": "1M", GPU: "1"},
            req(cpu="1", memory="1M", gpu="1"),
            None,
        ),
        ("no allocated equal to max allowed", ONE_EACH, {}, req(cpu="1", memory="1M", gpu="1"), None),
        (
            "no allocated under max allowed",
            ONE_EACH,
            {"cpu": "0", "memory": "0", GPU: "0"},
            req(cpu="500m", memory="500k", gpu="0.5"),
            None,
        ),
        (
            "over max allowed in all recources",
            ONE_EACH,
            {"cpu": "500m", "memory": "1M", GPU: "1"},
            req(cpu="1", memory="1M", gpu="1"),
            "cpu",
        ),
        ("over max allowed only cpu", ONE_EACH, {"cpu": "500m", "memory": "1M", GPU: "1"}, req(cpu="1"), "cpu"),
        (
            "over max allowed only Memory",
            ONE_EACH,
            {"cpu": "500m", "memory": "1M", GPU: "1"},
            req(memory="1M"),
            "memory",
        ),
        ("over max allowed only gpu", ONE_EACH, {"cpu": "500m", "memory": "1M", GPU: "1"}, req(gpu="1"), GPU),
        (
            "over max allowed but not requesting exceeding resource",
            ONE_EACH,
            {"cpu": "1500m", "memory": "1M", GPU: "0"},
            req(gpu="1"),
            None,
        ),
    ],
)
def test_kai_is_over_limit(
    case: str, limit: dict[str, int], allocated: dict[str, str], requested: Resources, over: str | None
) -> None:
    """KAI_MAX Describe("IsOverMaxAllowed") table: `allocated + requested > limit` per requested
    resource, -1 unlimited, checked cpu, memory, gpu in that order."""
    book = kai_book(kai("q", limit=limit, allocated=allocated))
    admission = book.admit("q", requested, preemptible=True)
    assert admission.admitted is (over is None), case
    if over is not None:
        assert admission.reasons[0].split(",")[0].endswith(f" {over}"), case
        assert admission.reasons[1].startswith("KAI OverLimit: q quota has reached the allowable limit of")


def test_kai_unlimited_queue_admits() -> None:
    """KAI_MAX resultsOverLimit "single queue - unlimited queue"."""
    book = kai_book(kai("queue1", allocated={GPU: "1"}))
    assert book.admit("queue1", req(gpu="10"), preemptible=True).admitted


def test_kai_limited_queue_below_and_above_limit() -> None:
    """KAI_MAX resultsOverLimit "single queue - limited queue - results below limit" / "... above
    limit" / "... above limit 0 allocated": the last can never fit (waits is False)."""
    book = kai_book(kai("queue1", limit={"gpu": 2}, allocated={GPU: "1"}))
    assert book.admit("queue1", req(gpu="1"), preemptible=True).admitted
    above = book.admit("queue1", req(gpu="2"), preemptible=True)
    assert not above.admitted and above.waits
    assert above.reasons[0] == "queue queue1: limit 2 nvidia.com/gpu, 1 in use, the gang needs 2"
    empty = kai_book(kai("queue1", limit={"gpu": 2}, allocated={GPU: "0"}))
    never = empty.admit("queue1", req(gpu="3"), preemptible=True)
    assert not never.admitted and not never.waits


def test_kai_limits_are_checked_up_the_parent_chain() -> None:
    """KAI_MAX resultsOverLimit "multiple queues - limited queues - result above limit": the leaf
    and mid queues have room, the top queue is at its limit."""
    book = kai_book(
        kai("top-queue", limit={"gpu": 3}, allocated={GPU: "3"}),
        kai("mid-queue", limit={"gpu": 2}, allocated={GPU: "1"}, parent="top-queue"),
        kai("leaf-queue", limit={"gpu": 1}, allocated={GPU: "0"}, parent="mid-queue"),
    )
    admission = book.admit("leaf-queue", req(gpu="1"), preemptible=True)
    assert not admission.admitted
    assert admission.reasons[0].startswith("queue top-queue: limit 3 nvidia.com/gpu, 3 in use, the gang needs 1")
    below = kai_book(
        kai("top-queue", limit={"gpu": 3}, allocated={GPU: "2"}),
        kai("mid-queue", limit={"gpu": 2}, allocated={GPU: "1"}, parent="top-queue"),
        kai("leaf-queue", limit={"gpu": 1}, allocated={GPU: "0"}, parent="mid-queue"),
    )
    assert below.admit("leaf-queue", req(gpu="1"), preemptible=True).admitted  # "... results below limit"


@pytest.mark.parametrize(
    ("case", "preemptible", "np_allocated", "admitted"),
    [
        ("single queue - **preemptible** job - allocated non preemptible below quota", True, "1", True),
        ("single queue - non preemptible job - allocated non preemptible below quota", False, "0", True),
        ("single queue - non preemptible job - allocated non preemptible results over quota", False, "1", False),
    ],
)
def test_kai_non_preemptible_never_goes_over_quota(
    case: str, preemptible: bool, np_allocated: str, admitted: bool
) -> None:
    """KAI_QUOTA resultsWithNonPreemptibleOverQuota: quota (deserved) 1 GPU."""
    book = kai_book(kai("queue1", quota={"gpu": 1}, non_preemptible={GPU: np_allocated}))
    admission = book.admit("queue1", req(gpu="1"), preemptible=preemptible)
    assert admission.admitted is admitted, case
    if not admitted:
        assert "non-preemptible" in admission.reasons[0]
        assert admission.reasons[1].startswith("KAI NonPreemptibleOverQuota")


def test_kai_non_preemptible_quota_up_the_chain() -> None:
    """KAI_QUOTA "multiple queues - non preemptible job - allocated non preemptible results over
    quota": the mid queue's quota is used up by non-preemptible pods."""
    book = kai_book(
        kai("top-queue", quota={"gpu": 3}, non_preemptible={GPU: "1"}),
        kai("mid-queue", quota={"gpu": 1}, non_preemptible={GPU: "1"}, parent="top-queue"),
        kai("leaf-queue", quota={"gpu": 1}, non_preemptible={GPU: "0"}, parent="mid-queue"),
    )
    admission = book.admit("leaf-queue", req(gpu="1"), preemptible=False)
    assert not admission.admitted and admission.reasons[0].startswith("queue mid-queue: quota 1 nvidia.com/gpu")


def test_kai_preemptible_over_quota_is_admitted_with_a_note() -> None:
    """A preemptible gang may exceed its quota up to the limit (only non-preemptible ones are held
    to the quota, quota_check.go); it runs on the over-quota share."""
    book = kai_book(kai("q", quota={"gpu": 2}, limit={"gpu": 8}, allocated={GPU: "2"}))
    admission = book.admit("q", req(gpu="4"), preemptible=True)
    assert admission.admitted
    assert admission.notes and "over its quota of 2 nvidia.com/gpu" in admission.notes[0]


def test_kai_unset_limit_reads_as_zero() -> None:
    """No CRD default for `limit` (deployments/kai-scheduler/crds/scheduling.run.ai_queues.yaml):
    the Go zero value 0 refuses every request of the resource (max_allowed_check.go skips only -1)."""
    item = kai("q")
    item["spec"]["resources"]["gpu"] = {"quota": 4}
    admission = kai_book(item).admit("q", req(gpu="1"), preemptible=True)
    assert not admission.admitted and not admission.waits
    assert admission.reasons[0] == "queue q: limit 0 nvidia.com/gpu (unset: KAI reads 0), 0 in use, the gang needs 1"


def test_kai_missing_queue() -> None:
    admission = kai_book(kai("q")).admit("nope", req(gpu="1"), preemptible=True)
    assert not admission.admitted and "QueueDoesNotExist" in admission.reasons[0]


def test_kai_gpu_fractions_count_as_fractions() -> None:
    """getRequiredQuota sums GPU fractions (capacity_policy.go): two running half-GPU pods hold 1
    GPU of a 2-GPU limit; a gang of two halves fits, a third half on top does not."""
    pods = [KaiPod("q", {GPU: 500}, True), KaiPod("q", {GPU: 500}, True)]
    book = kai_book(kai("q", limit={"gpu": 2}), pods=pods)
    assert book.used["q"][GPU] == 1000
    assert book.admit("q", {GPU: 1000}, preemptible=True).admitted
    over = book.admit("q", {GPU: 1500}, preemptible=True)
    assert not over.admitted and over.reasons[0] == "queue q: limit 2 nvidia.com/gpu, 1 in use, the gang needs 1.5"


def test_kai_child_use_counts_against_the_parent() -> None:
    """proportion.go updateQueuesResourceUsageForAllocatedJob charges every ancestor."""
    pods = [KaiPod("child-a", {GPU: 3000}, True)]
    book = kai_book(
        kai("parent", limit={"gpu": 4}), kai("child-a", parent="parent"), kai("child-b", parent="parent"), pods=pods
    )
    admission = book.admit("child-b", {GPU: 2000}, preemptible=True)
    assert not admission.admitted and admission.reasons[0].startswith("queue parent: limit 4 nvidia.com/gpu, 3 in use")


@pytest.mark.parametrize(
    ("explicit", "priority", "preemptible"),
    [
        (None, 50, True),
        (None, 100, False),
        (None, 125, False),
        ("preemptible", 125, True),
        ("non-preemptible", 50, False),
    ],
)
def test_kai_preemptibility(explicit: str | None, priority: int, preemptible: bool) -> None:
    """kai-scheduler/KAI-Scheduler pkg/common/podgroup/preemptible_test.go: explicit value first,
    else preemptible below priority 100."""
    assert kai_preemptible({}, explicit, priority) is preemptible


# --------------------------------------------------------------------------- Kueue

KUEUE = "kubernetes-sigs/kueue pkg/scheduler/flavorassigner/flavorassigner_test.go TestAssignFlavors"
FLAVORS = [
    {"metadata": {"name": "default"}, "spec": {}},
    {"metadata": {"name": "one"}, "spec": {"nodeLabels": {"type": "one"}}},
    {"metadata": {"name": "two"}, "spec": {"nodeLabels": {"type": "two"}}},
    {"metadata": {"name": "b_one"}, "spec": {"nodeLabels": {"b_type": "one"}}},
    {"metadata": {"name": "b_two"}, "spec": {"nodeLabels": {"b_type": "two"}}},
    {
        "metadata": {"name": "tainted"},
        "spec": {"nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}]},
    },
    {
        "metadata": {"name": "taint_and_toleration"},
        "spec": {
            "nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}],
            "tolerations": [{"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}],
        },
    },
]
SPOT = [{"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}]


def flavor_quotas(name: str, **quotas: Any) -> dict[str, Any]:
    resources = []
    for resource, value in quotas.items():
        entry = {"name": resource.replace("_", "/").replace("example/com", "example.com")}
        entry.update(value if isinstance(value, dict) else {"nominalQuota": value})
        resources.append(entry)
    return {"name": name, "resources": resources}


def cluster_queue(name: str, *groups: list[dict[str, Any]], cohort: str | None = None) -> dict[str, Any]:
    resource_groups = [
        {"coveredResources": sorted({r["name"] for f in group for r in f["resources"]}), "flavors": group}
        for group in groups
    ]
    spec: dict[str, Any] = {"resourceGroups": resource_groups}
    if cohort:
        spec["cohortName"] = cohort
    return {"metadata": {"name": name}, "spec": spec}


def workload(queue: str, usage: dict[str, str], flavor: str) -> dict[str, Any]:
    return {
        "status": {
            "admission": {
                "clusterQueue": queue,
                "podSetAssignments": [
                    {"name": "main", "flavors": dict.fromkeys(usage, flavor), "resourceUsage": usage}
                ],
            }
        }
    }


def kueue_book(*queues: dict[str, Any], workloads: list[dict[str, Any]] | None = None) -> KueueQueues:
    admitted = [held for held in (kueue_admission(item) for item in workloads or []) if held is not None]
    return KueueQueues.build(
        [kueue_cluster_queue(item) for item in queues],
        [("default", "lq", "test-clusterqueue")],
        [kueue_flavor(item) for item in FLAVORS],
        admitted,
    )


def podset(count: int = 1, **spec: Any) -> tuple[PodShape, int]:
    requests = {
        key.replace("_", "/").replace("example/com", "example.com"): v for key, v in spec.pop("requests").items()
    }
    return shape_from_spec({"containers": [{"name": "c", "resources": {"requests": requests}}], **spec}), count


def test_kueue_single_flavor_fits() -> None:
    """KUEUE "single flavor, fits"."""
    book = kueue_book(cluster_queue("test-clusterqueue", [flavor_quotas("default", cpu="1", memory="2Mi")]))
    admission = book.admit("default", "lq", [podset(requests={"cpu": "1", "memory": "1Mi"})])
    assert admission.admitted and admission.flavors == {"cpu": "default", "memory": "default"}


def test_kueue_tainted_flavor_fits_with_a_pod_toleration_or_the_flavor_s() -> None:
    """KUEUE "single flavor, fits tainted flavor" and "... with toleration"."""
    book = kueue_book(
        cluster_queue("test-clusterqueue", [flavor_quotas("tainted", cpu="4")]),
    )
    assert book.admit("default", "lq", [podset(requests={"cpu": "1"}, tolerations=SPOT)]).admitted
    refused = book.admit("default", "lq", [podset(requests={"cpu": "1"})])
    assert not refused.admitted and "untolerated taint instance=spot:NoSchedule in flavor tainted" in refused.reasons[0]
    both = kueue_book(cluster_queue("test-clusterqueue", [flavor_quotas("taint_and_toleration", cpu="4")]))
    admission = both.admit("default", "lq", [podset(requests={"cpu": "1"})])
    assert admission.admitted and admission.tolerations  # the flavor's toleration goes to the pods


def test_kueue_used_quota_waits() -> None:
    """KUEUE "single flavor, used resources, doesn't fit": 3 of 4 CPUs used, 2 requested."""
    book = kueue_book(
        cluster_queue("test-clusterqueue", [flavor_quotas("default", cpu="4")]),
        workloads=[workload("test-clusterqueue", {"cpu": "3"}, "default")],
    )
    admission = book.admit("default", "lq", [podset(requests={"cpu": "2"})])
    assert not admission.admitted and admission.waits
    assert "insufficient unused quota for cpu in flavor default, 1 more needed" in admission.reasons[0]


def test_kueue_multiple_resource_groups_fit() -> None:
    """KUEUE "multiple resource groups, fits": cpu 3 skips flavor one (max 2), memory takes b_one."""
    book = kueue_book(
        cluster_queue(
            "test-clusterqueue",
            [flavor_quotas("one", cpu="2"), flavor_quotas("two", cpu="4")],
            [flavor_quotas("b_one", memory="1Gi"), flavor_quotas("b_two", memory="5Gi")],
        )
    )
    admission = book.admit("default", "lq", [podset(requests={"cpu": "3", "memory": "10Mi"})])
    assert admission.admitted and admission.flavors == {"cpu": "two", "memory": "b_one"}
    assert admission.node_labels == {"type": "two", "b_type": "one"}


def test_kueue_skips_the_tainted_flavor() -> None:
    """KUEUE "multiple flavors, fits while skipping tainted flavor"."""
    book = kueue_book(
        cluster_queue("test-clusterqueue", [flavor_quotas("tainted", cpu="4"), flavor_quotas("two", cpu="4")])
    )
    assert book.admit("default", "lq", [podset(requests={"cpu": "3"})]).flavors == {"cpu": "two"}


def test_kueue_node_selector_picks_the_flavor_ignoring_other_keys() -> None:
    """KUEUE "multiple flavors, fits a node selector": keys the flavors do not label are ignored."""
    book = kueue_book(
        cluster_queue("test-clusterqueue", [flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="4")])
    )
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "ignored2", "operator": "In", "values": ["bar"]}]}]
            }
        }
    }
    admission = book.admit(
        "default",
        "lq",
        [podset(requests={"cpu": "1"}, nodeSelector={"type": "two", "ignored1": "foo"}, affinity=affinity)],
    )
    assert admission.admitted and admission.flavors == {"cpu": "two"}


def test_kueue_no_flavor_matches_the_affinity() -> None:
    """KUEUE "multiple flavors, doesn't fit node affinity": type In [three] matches neither flavor."""
    book = kueue_book(
        cluster_queue("test-clusterqueue", [flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="4")])
    )
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "type", "operator": "In", "values": ["three"]}]}]
            }
        }
    }
    admission = book.admit("default", "lq", [podset(requests={"cpu": "1"}, affinity=affinity)])
    assert not admission.admitted and not admission.waits
    assert "flavor one doesn't match node affinity" in admission.reasons[0]


def test_kueue_borrows_from_the_cohort() -> None:
    """KUEUE "multiple specs, fits borrowing": 10 CPUs on a nominal 2 (borrowingLimit 98)."""
    main = cluster_queue(
        "test-clusterqueue",
        [flavor_quotas("default", cpu={"nominalQuota": "2", "borrowingLimit": "98"}, memory="2Gi")],
        cohort="test-cohort",
    )
    other = cluster_queue(
        "test-secondary-clusterqueue", [flavor_quotas("default", cpu="198", memory="198Gi")], cohort="test-cohort"
    )
    book = kueue_book(main, other)
    admission = book.admit(
        "default",
        "lq",
        [podset(requests={"cpu": "4", "memory": "1Gi"}), podset(requests={"cpu": "6", "memory": "4Gi"})],
    )
    assert admission.admitted and admission.flavor_charge == {
        ("default", "cpu"): 10 * MILLI,
        ("default", "memory"): 5 * 2**30 * MILLI,
    }


def test_kueue_not_enough_space_to_borrow() -> None:
    """KUEUE "not enough space to borrow": the other queue lends nothing (lendingLimit 0)."""
    main = cluster_queue("test-clusterqueue", [flavor_quotas("one", cpu="1")], cohort="test-cohort")
    other = cluster_queue(
        "test-secondary-clusterqueue",
        [flavor_quotas("one", cpu={"nominalQuota": "10", "lendingLimit": "0"})],
        cohort="test-cohort",
    )
    book = kueue_book(main, other, workloads=[workload("test-secondary-clusterqueue", {"cpu": "9"}, "one")])
    admission = book.admit("default", "lq", [podset(requests={"cpu": "2"})])
    assert not admission.admitted and not admission.waits
    assert (
        "insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset"
        " request (2) > maximum capacity (1)" in admission.reasons[0]
    )


def test_kueue_resource_not_listed_in_the_cluster_queue() -> None:
    """KUEUE "resource not listed in clusterQueue"."""
    book = kueue_book(cluster_queue("test-clusterqueue", [flavor_quotas("one", cpu="4")]))
    admission = book.admit("default", "lq", [podset(requests={"example_com_gpu": "2"})])
    assert not admission.admitted
    assert "resource example.com/gpu unavailable in ClusterQueue test-clusterqueue" in admission.reasons[0]


def test_kueue_num_pods_fit_and_dont_fit() -> None:
    """KUEUE "num pods fit" / "num pods don't fit": `pods` counted when the ClusterQueue covers it."""
    fits = kueue_book(cluster_queue("test-clusterqueue", [flavor_quotas("default", pods="3", cpu="10")]))
    assert fits.admit("default", "lq", [podset(3, requests={"cpu": "1"})]).admitted
    short = kueue_book(cluster_queue("test-clusterqueue", [flavor_quotas("default", pods="2", cpu="10")]))
    admission = short.admit("default", "lq", [podset(3, requests={"cpu": "1"})])
    assert not admission.admitted
    assert "insufficient quota for pods in flavor default" in admission.reasons[0]
    assert "(3) > maximum capacity (2)" in admission.reasons[0]


def test_kueue_flavor_that_does_not_provide_the_resource() -> None:
    """KUEUE "multiple resource groups, fits" attempt reason "flavor b_two does not provide resource memory"."""
    book = kueue_book(
        cluster_queue("test-clusterqueue", [flavor_quotas("default", cpu="4")], [flavor_quotas("b_two", cpu="1")])
    )
    book.cluster_queues["test-clusterqueue"].groups[1].covered = ["memory"]
    admission = book.admit("default", "lq", [podset(requests={"cpu": "1", "memory": "1Mi"})])
    assert not admission.admitted and "flavor b_two does not provide resource memory" in admission.reasons[0]


def test_kueue_lending_limit_keeps_quota_local() -> None:
    """kubernetes-sigs/kueue pkg/cache/scheduler/resource_node.go localQuota: nominal 10 with
    lendingLimit 4 keeps 6 to itself; the other queue can borrow 4 at most."""
    lender = cluster_queue(
        "lender", [flavor_quotas("default", cpu={"nominalQuota": "10", "lendingLimit": "4"})], cohort="c"
    )
    main = cluster_queue("test-clusterqueue", [flavor_quotas("default", cpu="0")], cohort="c")
    book = kueue_book(lender, main)
    assert book.admit("default", "lq", [podset(requests={"cpu": "4"})]).admitted
    assert not book.admit("default", "lq", [podset(requests={"cpu": "5"})]).admitted


def test_kueue_missing_local_queue_and_finished_workloads() -> None:
    book = kueue_book(cluster_queue("test-clusterqueue", [flavor_quotas("default", cpu="4")]))
    missing = book.admit("default", "elsewhere", [podset(requests={"cpu": "1"})])
    assert not missing.admitted and "no LocalQueue default/elsewhere" in missing.reasons[0]
    finished = workload("test-clusterqueue", {"cpu": "4"}, "default")
    finished["status"]["conditions"] = [{"type": "Finished", "status": "True"}]
    assert kueue_admission(finished) is None  # its quota is released


# --------------------------------------------------------------------------- Volcano

VOLCANO = "volcano-sh/volcano pkg/scheduler/plugins/capacity/capacity_test.go"


def vq(
    name: str,
    capability: dict[str, str] | None = None,
    deserved: dict[str, str] | None = None,
    guarantee: dict[str, str] | None = None,
    state: str | None = None,
    parent: str | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if capability:
        spec["capability"] = capability
    if deserved:
        spec["deserved"] = deserved
    if guarantee:
        spec["guarantee"] = {"resource": guarantee}
    if parent:
        spec["parent"] = parent
    item: dict[str, Any] = {"metadata": {"name": name}, "spec": spec}
    if state:
        item["status"] = {"state": state}
    return item


TWO_NODES = resource_map({"cpu": "4", "memory": "8Gi"})  # n1, n2: 2 CPU, 4Gi each
THREE_G_NODES = resource_map({"cpu": "6", "memory": "6G"})  # TestEnqueueAndAllocatable: 2 x (3 CPU, 3G)


def volcano_book(
    *queues: dict[str, Any], pods: list[tuple[str, dict[str, str]]] = (), total: Resources = TWO_NODES
) -> VolcanoQueues:  # type: ignore[assignment]
    return VolcanoQueues.build([volcano_queue(q) for q in queues], [(q, resource_map(r)) for q, r in pods], total)


def test_volcano_allocatable_under_capability() -> None:
    """VOLCANO Test_capacityPlugin_OnSessionOpenWithoutHierarchy "case0: Pod allocatable when queue
    has not exceed capability"."""
    book = volcano_book(
        vq("q1", capability={"cpu": "2", "memory": "2Gi"}), pods=[("q1", {"cpu": "1", "memory": "1Gi"})]
    )
    assert book.admit("q1", resource_map({"cpu": "1", "memory": "1Gi"})).admitted


def test_volcano_not_allocatable_over_capability() -> None:
    """VOLCANO "case1: Pod not allocatable when queue exceed queue capability"."""
    book = volcano_book(
        vq("q2", capability={"cpu": "1.5", "memory": "1.5Gi"}), pods=[("q2", {"cpu": "1", "memory": "1Gi"})]
    )
    admission = book.admit("q2", resource_map({"cpu": "1", "memory": "1Gi"}))
    assert not admission.admitted and admission.waits
    assert admission.reasons[0] == "queue q2: capability 1.5 cpu, 1 in use, the gang needs 1"
    assert admission.reasons[1] == "Volcano: queue resource quota insufficient: insufficient cpu"


@pytest.mark.parametrize(
    ("case", "queue", "asked", "admitted"),
    [
        (
            "case0: memory exceed derserved, job only request cpu can be enqueued and allocated",
            "q1",
            {"cpu": "1"},
            True,
        ),
        (
            "case1: cpu exceed derserved, job only request memory can be enqueued and allocated",
            "q2",
            {"memory": "1G"},
            True,
        ),
        ("case2: exceed capacity, can not enqueue", "q1", {"cpu": "1", "memory": "1G"}, False),
    ],
)
def test_volcano_enqueue_checks_only_the_requested_dimensions(
    case: str, queue: str, asked: dict[str, str], admitted: bool
) -> None:
    """VOLCANO TestEnqueueAndAllocatable: q1 (capability 2 CPU, 2G) holds 1 CPU 3G, q2 (3 CPU, 3G)
    holds 3 CPU 1G; only the dimensions the job requests are compared."""
    book = volcano_book(
        vq("q1", capability={"cpu": "2", "memory": "2G"}, deserved={"cpu": "2", "memory": "2G"}),
        vq("q2", capability={"cpu": "3", "memory": "3G"}, deserved={"cpu": "2", "memory": "2G"}),
        pods=[("q1", {"cpu": "1", "memory": "3G"}), ("q2", {"cpu": "3", "memory": "1G"})],
        total=THREE_G_NODES,
    )
    assert book.admit(queue, resource_map(asked)).admitted is admitted, case


def test_volcano_closed_queue_enqueues_nothing() -> None:
    """VOLCANO TestEnqueueAndAllocatable "case4: queue with non-open state, can not enqueue"."""
    admission = volcano_book(vq("q3", capability={"cpu": "3", "memory": "3G"}, state="Closed")).admit(
        "q3", resource_map({"cpu": "1", "memory": "1G"})
    )
    assert not admission.admitted and admission.reasons[0] == "queue q3: state Closed, not Open: it enqueues no job"


def test_volcano_hierarchy_leaf_only_and_ancestor_capability() -> None:
    """VOLCANO Test_capacityPlugin_OnSessionOpenWithHierarchy "case1: Pod not allocatable when queue
    is not leaf queue" and "case4: Pod is not allocatable when ancestor queue's real capability not
    enough"."""
    book = volcano_book(
        vq("root"),
        vq("q8", capability={"nvidia.com/gpu": "8"}, parent="root"),
        vq("q81", capability={"nvidia.com/gpu": "4"}, parent="q8"),
        vq("q82", capability={"nvidia.com/gpu": "4"}, parent="q8"),
        pods=[("q81", {"nvidia.com/gpu": "4"}), ("q82", {"nvidia.com/gpu": "4"})],
        total=resource_map({"nvidia.com/gpu": "16"}),
    )
    parent = book.admit("q8", {GPU: MILLI})
    assert not parent.admitted and "not a leaf queue" in parent.reasons[0]
    book.used["q82"] = {}
    leaf = book.admit("q82", {GPU: MILLI})
    assert not leaf.admitted
    assert (
        leaf.reasons[0]
        == "queue q8 (an ancestor of queue q82): capability 8 nvidia.com/gpu, 8 in use, the gang needs 1"
    )


def test_volcano_guarantees_reduce_the_others_real_capability() -> None:
    """capacity.go buildQueueAttrs: realCapability = (total - every guarantee) + own guarantee."""
    book = volcano_book(
        vq("reserved", guarantee={"nvidia.com/gpu": "4"}), vq("other"), total=resource_map({"nvidia.com/gpu": "8"})
    )
    admission = book.admit("other", {GPU: 6 * MILLI})
    assert not admission.admitted and not admission.waits
    assert "cluster capacity left by guarantees 4 nvidia.com/gpu" in admission.reasons[0]
    assert book.admit("reserved", {GPU: 6 * MILLI}).admitted


def test_volcano_over_deserved_is_a_reclaim_note() -> None:
    """VOLCANO "case2: Can reclaim from other queues when allocated < deserved": over its deserved
    share a queue's pods are reclaimable (said as a note, the job is admitted)."""
    book = volcano_book(vq("q4", deserved={"cpu": "2", "memory": "4Gi"}), pods=[("q4", {"cpu": "2"})])
    admission = book.admit("q4", resource_map({"cpu": "1"}))
    assert admission.admitted and "over its deserved 2 cpu" in admission.notes[0]


def test_volcano_missing_queue() -> None:
    assert not volcano_book(vq("q")).admit("nope", {GPU: MILLI}).admitted


# --------------------------------------------------------------------------- end to end


def write(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
    return path


def kai_podgroup(name: str, queue: str, pods: int, gpus: int) -> str:
    return f"""\
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata:
  name: {name}
  namespace: team-a
spec:
  minMember: {pods}
  queue: {queue}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: team-a
  annotations:
    pod-group-name: {name}
spec:
  parallelism: {pods}
  template:
    metadata:
      annotations:
        pod-group-name: {name}
      labels:
        kai.scheduler/queue: {queue}
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: trainer
        resources:
          requests: {{nvidia.com/gpu: "{gpus}"}}
          limits: {{nvidia.com/gpu: "{gpus}"}}
"""


def feasibility(tmp_path: Path, snapshot: list[dict[str, Any]], manifests: str) -> tuple[int, dict[str, Any], str]:
    snap = write(tmp_path / "snap.yaml", snapshot)
    (tmp_path / "m.yaml").write_text(manifests)
    result = in_process("feasibility", "--snapshot", str(snap), "--format", "json", str(tmp_path / "m.yaml"))
    text = in_process("feasibility", "--snapshot", str(snap), str(tmp_path / "m.yaml")).stdout
    return result.returncode, json.loads(result.stdout), text


def kueue_objects(nominal: str, flavor: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """A ResourceFlavor (`default`, or the one given), a ClusterQueue `cq` of `nominal` GPUs in it and
    the LocalQueue ml/lq pointing at it."""
    group = "kueue.x-k8s.io/v1beta2"
    flavor = flavor or {"metadata": {"name": "default"}}
    name = flavor["metadata"]["name"]
    quota = {"name": name, "resources": [{"name": "nvidia.com/gpu", "nominalQuota": nominal}]}
    spec = {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [quota]}]}
    return [
        {"apiVersion": group, "kind": "ResourceFlavor", **flavor},
        {"apiVersion": group, "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": spec},
        {
            "apiVersion": group,
            "kind": "LocalQueue",
            "metadata": {"name": "lq", "namespace": "ml"},
            "spec": {"clusterQueue": "cq"},
        },
    ]


def kueue_job(pods: int, gpus: int, gang: bool = False) -> str:
    """A Job in the LocalQueue ml/lq (a gang of all its pods when `gang`)."""
    scheduling = f"  scheduling:\n    schedulingPolicy:\n      gang:\n        minCount: {pods}\n" if gang else ""
    return f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: lq
spec:
  parallelism: {pods}
{scheduling}  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer
        resources:
          requests: {{nvidia.com/gpu: "{gpus}"}}
"""


def test_over_quota_and_no_capacity_are_told_apart(tmp_path: Path) -> None:
    """The issue's words: "queue team-a: limit 8 nvidia.com/gpu, 6 in use, the gang needs 4"."""
    nodes = [node(f"n{i}", gpu=8) for i in range(2)]
    queue = kai("team-a", limit={"gpu": 8}, allocated={GPU: "6"})
    code, report, text = feasibility(
        tmp_path, [*nodes, queue], kai_podgroup("small", "team-a", 2, 2) + "---\n" + kai_podgroup("big", "team-b", 3, 8)
    )
    assert code == 1
    groups = {(group["kind"], group["name"]): group for group in report["groups"]}
    small = next(group for key, group in groups.items() if key[1] == "small")
    assert small["blocked_by_quota"] is True and small["feasible"] is False
    assert small["reasons"][0] == "queue team-a: limit 8 nvidia.com/gpu, 6 in use, the gang needs 4"
    assert "over quota, not out of capacity" in " ".join(small["reasons"])
    assert small["queue"]["scheduler"] == "kai" and small["queue"]["waits"] is True
    assert small["queue"]["name"] == "team-a" and small["queue"]["verdict"] == "waits"
    big = next(group for key, group in groups.items() if key[1] == "big")
    assert big["blocked_by_quota"] is True and "QueueDoesNotExist" in big["reasons"][0]
    assert report["summary"]["over_quota"] == 2
    assert "OVER QUOTA" in text and "not admitted by its queue" in text


def test_a_placed_gang_uses_the_quota_of_the_next(tmp_path: Path) -> None:
    """Two gangs of 4 GPUs in a queue limited to 6: the first is admitted and placed, its use then
    refuses the second (admission in priority order, then file order)."""
    nodes = [node(f"n{i}", gpu=8) for i in range(2)]
    queue = kai("team-a", limit={"gpu": 6})
    manifests = kai_podgroup("first", "team-a", 2, 2) + "---\n" + kai_podgroup("second", "team-a", 2, 2)
    _, report, _ = feasibility(tmp_path, [*nodes, queue], manifests)
    verdicts = {group["name"]: group for group in report["groups"] if group["kind"] == "PodGroup"}
    assert verdicts["first"]["feasible"] and verdicts["first"]["queue"]["admitted"]
    assert verdicts["second"]["reasons"][0] == "queue team-a: limit 6 nvidia.com/gpu, 4 in use, the gang needs 4"


def test_kueue_flavor_restricts_where_the_gang_is_placed(tmp_path: Path) -> None:
    """Kueue admits the Job into flavor a100 (nodeLabels pool=a100): the free h100 nodes are not
    used; the capacity verdict counts them as excluded by the injected node selector."""
    nodes = [node("a1", gpu=8, labels={"pool": "a100"}), node("h1", gpu=8, labels={"pool": "h100"})]
    a100 = {"metadata": {"name": "a100"}, "spec": {"nodeLabels": {"pool": "a100"}}}
    snapshot = [*nodes, *kueue_objects("16", a100)]
    manifests = kueue_job(pods=2, gpus=8, gang=True)
    code, report, _ = feasibility(tmp_path, snapshot, manifests)
    group = report["groups"][0]
    assert code == 1 and group["blocked_by_quota"] is False
    assert group["queue"]["flavors"] == {"nvidia.com/gpu": "a100"}
    assert group["placeable"] == 1
    assert group["exclusions"].get("nodeSelector does not match") == 1


def test_kueue_admitted_workloads_use_the_quota(tmp_path: Path) -> None:
    nodes = [node(f"n{i}", gpu=8) for i in range(2)]
    held = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "ml"}}
    snapshot = [*nodes, *kueue_objects("8"), {**held, **workload("cq", {"nvidia.com/gpu": "6"}, "default")}]
    manifests = kueue_job(pods=1, gpus=4)
    _, report, _ = feasibility(tmp_path, snapshot, manifests)
    group = report["groups"][0]
    assert group["blocked_by_quota"] is True
    assert group["reasons"][0].startswith(
        "queue lq (ClusterQueue cq): insufficient unused quota for nvidia.com/gpu in flavor default, 2 more needed"
    )


def test_volcano_podgroup_over_capability(tmp_path: Path) -> None:
    nodes = [node("n0", gpu=8)]
    queue = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        **vq("research", capability={"nvidia.com/gpu": "4"}),
    }
    manifests = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: pg
  namespace: ml
spec:
  minMember: 2
  queue: research
  minResources: {nvidia.com/gpu: "6"}
---
apiVersion: v1
kind: Pod
metadata:
  name: p0
  namespace: ml
  annotations: {scheduling.k8s.io/group-name: pg}
spec:
  schedulerName: volcano
  containers:
  - {name: c, image: x, resources: {requests: {nvidia.com/gpu: "3"}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: ml
  annotations: {scheduling.k8s.io/group-name: pg}
spec:
  schedulerName: volcano
  containers:
  - {name: c, image: x, resources: {requests: {nvidia.com/gpu: "3"}}}
"""
    _, report, _ = feasibility(tmp_path, [*nodes, queue], manifests)
    group = next(group for group in report["groups"] if group["kind"] == "PodGroup")
    assert group["blocked_by_quota"] is True and group["queue"]["verdict"] == "never"
    assert group["reasons"][0] == "queue research: capability 4 nvidia.com/gpu, 0 in use, the gang needs 6"


def test_a_queue_the_snapshot_lacks_is_said_not_checked(tmp_path: Path) -> None:
    nodes = [node("n0", gpu=8)]
    _, report, _ = feasibility(tmp_path, nodes, kai_podgroup("g", "team-a", 1, 1))
    group = next(group for group in report["groups"] if group["kind"] == "PodGroup")
    assert group["feasible"] is True and group["queue"]["verdict"] == "unchecked"
    assert any("the snapshot holds no KAI queues, so quota admission was not checked" in r for r in group["reasons"])


def test_kai_parent_use_adds_the_children_s_recorded_status() -> None:
    """A parent without a recorded status is charged its children's: the child's status.allocated
    (the scheduler's account) counts as the child's use."""
    book = kai_book(kai("parent", limit={"gpu": 4}), kai("child", parent="parent", allocated={GPU: "3"}))
    assert book.used["parent"][GPU] == 3 * MILLI
    assert not book.admit("child", {GPU: 2 * MILLI}, preemptible=True).admitted


def test_a_was_podgroup_of_a_kueue_job_is_admitted_by_the_job_s_queue(tmp_path: Path) -> None:
    """The queue label sits on the Job that owns the PodGroup's pods, not on the PodGroup."""
    nodes = [node(f"n{i}", gpu=8) for i in range(2)]
    snapshot = [*nodes, *kueue_objects("4")]
    manifests = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: train-workers
  namespace: ml
  ownerReferences:
  - {apiVersion: batch/v1, kind: Job, name: train, uid: u1, controller: true}
spec:
  schedulingPolicy:
    gang:
      minCount: 2
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: ml
  labels:
    kueue.x-k8s.io/queue-name: lq
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      schedulingGroup: {podGroupName: train-workers}
      containers:
      - name: main
        image: trainer
        resources:
          requests: {nvidia.com/gpu: "4"}
"""
    _, report, _ = feasibility(tmp_path, snapshot, manifests)
    group = next(group for group in report["groups"] if group["kind"] == "PodGroup")
    assert group["blocked_by_quota"] is True, group["reasons"]
    assert "> maximum capacity (4)" in group["reasons"][0]
