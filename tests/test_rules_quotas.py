"""WAS5xx beyond the fixture pairs: KAI queue semantics, quantities, replicas, the snapshot."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, lint_text, lint_texts, needs_corpus, run_cli
from waslint.core.model import Severity
from waslint.findings import Finding
from waslint.lint.rules.quotas.extended_resource_limits import is_extended_resource
from waslint.objects.quantity import parse_quantity


def only(code: str, findings: list[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.code == code]


def lint(code: str, text: str, **options: Any) -> list[Finding]:
    return only(code, lint_text(text, select=[code], **options))


def queue(name: str, resources: str, parent: str | None = None, version: str = "v2") -> str:
    parent_line = f"  parentQueue: {parent}\n" if parent else ""
    body = "".join(f"    {line}\n" for line in resources.strip().splitlines())
    return (
        f"apiVersion: scheduling.run.ai/{version}\nkind: Queue\nmetadata:\n  name: {name}\n"
        f"spec:\n{parent_line}  resources:\n{body}"
    )


# --------------------------------------------------------------------------- helpers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (1, Decimal(1)),
        ("1", Decimal(1)),
        ("1000m", Decimal(1)),
        ("1Gi", Decimal(2**30)),
        ("1e3", Decimal(1000)),
        ("0.5", Decimal("0.5")),
        (2.5, Decimal("2.5")),
        ("abc", None),
        (True, None),
        (None, None),
        ([1], None),
    ],
)
def test_parse_quantity(text: Any, value: Decimal | None) -> None:
    assert parse_quantity(text) == value


@pytest.mark.parametrize(
    ("name", "extended"),
    [
        ("nvidia.com/gpu", True),
        ("amd.com/gpu", True),
        ("example.com/foo", True),
        ("cpu", False),
        ("memory", False),
        ("hugepages-2Mi", False),
        ("kubernetes.io/something", False),
        ("node.kubernetes.io/x", False),
        ("requests.nvidia.com/gpu", False),
    ],
)
def test_is_extended_resource(name: str, extended: bool) -> None:
    assert is_extended_resource(name) is extended


# --------------------------------------------------------------------------- WAS501


class TestQueueLimitUnset:
    def test_quota_without_limit_names_queue_resource_and_quota(self) -> None:
        [finding] = lint("WAS501", queue("ml-team", "gpu:\n  quota: 2\n  overQuotaWeight: 1"))
        assert finding.severity is Severity.ERROR
        assert 'Queue "ml-team"' in finding.message and "gpu has quota 2 GPUs" in finding.message
        assert "limit: -1" in finding.message
        assert finding.field_path == ("spec", "resources", "gpu")

    def test_units_per_resource(self) -> None:
        text = queue("q", "cpu:\n  quota: 500\nmemory:\n  quota: 4096")
        messages = [finding.message for finding in lint("WAS501", text)]
        assert any("500 millicores" in m for m in messages)
        assert any("4096 MB" in m for m in messages)

    def test_unlimited_quota_without_limit(self) -> None:
        [finding] = lint("WAS501", queue("q", "gpu:\n  quota: -1"))
        assert "quota -1 (unlimited) but no limit" in finding.message
        assert "at least" not in finding.message

    def test_limit_zero(self) -> None:
        [finding] = lint("WAS501", queue("q", "gpu:\n  quota: 4\n  limit: 0"))
        assert finding.field_path == ("spec", "resources", "gpu", "limit")
        assert lint("WAS501", queue("q", "gpu:\n  quota: -1\n  limit: 0"))
        # limit 0 and quota 0: deliberately none of this resource.
        assert lint("WAS501", queue("q", "gpu:\n  quota: 0\n  limit: 0")) == []

    @pytest.mark.parametrize(
        "resources",
        [
            "gpu:\n  quota: 2\n  limit: -1",
            "gpu:\n  quota: 2\n  limit: 4",
            "gpu:\n  overQuotaWeight: 1",  # no quota: nothing claimed
            "gpu:\n  quota: 0\n  limit: -1",
        ],
    )
    def test_silent(self, resources: str) -> None:
        assert lint("WAS501", queue("q", resources)) == []

    def test_child_limit_above_parent(self) -> None:
        text = (
            queue("research", "gpu:\n  quota: 8\n  limit: 8")
            + "---\n"
            + queue("ml", "gpu:\n  quota: 4\n  limit: 16", parent="research")
        )
        [finding] = lint("WAS501", text)
        assert 'parent queue "research" (8 GPUs)' in finding.message
        assert "limit 16 GPUs" in finding.message
        # -1 inherits the parent's cap; a lower limit is fine.
        for limit in ("-1", "8", "2"):
            ok = text.replace("limit: 16", f"limit: {limit}")
            assert lint("WAS501", ok) == []

    def test_parent_in_another_file_or_the_snapshot(self, tmp_path: Path) -> None:
        parent = queue("research", "cpu:\n  quota: 1000\n  limit: 2000")
        child = queue("ml", "cpu:\n  quota: 1000\n  limit: 4000", parent="research")
        result = lint_texts({"parent.yaml": parent, "child.yaml": child}, select=["WAS501"])
        assert [f.path for f in result.findings] == ["child.yaml"]
        snapshot = tmp_path / "snap.yaml"
        items = "".join(f"  {line}\n" for line in parent.splitlines())
        snapshot.write_text("apiVersion: v1\nkind: List\nitems:\n-" + items[1:])
        findings = lint("WAS501", child, extra={"snapshot_path": str(snapshot)})
        assert len(findings) == 1 and "research" in findings[0].message

    def test_list_items_and_missing_parent(self) -> None:
        text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
            f"  {line}\n" if i else f"- {line}\n"
            for i, line in enumerate(queue("q", "gpu: {quota: 1}", parent="gone").splitlines())
        )
        [finding] = lint("WAS501", text)
        assert finding.field_path == ("items", 0, "spec", "resources", "gpu")

    @pytest.mark.parametrize(
        "resources",
        [
            "gpu: 4",
            "gpu: [1]",
            "gpu:\n  quota: '4'",
            "gpu:\n  quota: true",
            "gpu:\n  quota: 4\n  limit: '8'",
        ],
    )
    def test_wrong_types_never_crash(self, resources: str) -> None:
        result = lint_texts({"q.yaml": queue("q", resources, parent="q")}, select=["WAS501"])
        assert result.internal_errors == []

    def test_string_limit_counts_as_set(self) -> None:
        # A string limit is a schema problem, not an unset limit.
        assert lint("WAS501", queue("q", "gpu:\n  quota: 4\n  limit: '8'")) == []

    def test_other_versions_and_kinds_are_ignored(self) -> None:
        assert lint("WAS501", queue("q", "gpu: {quota: 1}", version="v1")) == []
        volcano = queue("q", "gpu: {quota: 1}").replace("scheduling.run.ai", "scheduling.volcano.sh")
        assert lint("WAS501", volcano) == []


# --------------------------------------------------------------------------- WAS502


def container(resources: str, list_name: str = "containers") -> str:
    body = "".join(f"        {line}\n" for line in resources.strip().splitlines())
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
        f"  {list_name}:\n  - name: c\n    image: x\n    resources:\n{body}"
        + ("  containers:\n  - name: main\n    image: x\n" if list_name != "containers" else "")
    )


class TestExtendedResourceLimits:
    @pytest.mark.parametrize(
        "resources",
        [
            "limits:\n  nvidia.com/gpu: 1",
            "requests:\n  nvidia.com/gpu: 1\nlimits:\n  nvidia.com/gpu: '1'",
            "requests:\n  example.com/fpga: 1000m\nlimits:\n  example.com/fpga: 1",
            "requests:\n  cpu: 1\n  memory: 1Gi\n  hugepages-2Mi: 10Mi",
            "requests:\n  kubernetes.io/foo: 1",
            "requests: {}\nlimits: {}",
        ],
    )
    def test_silent(self, resources: str) -> None:
        assert lint("WAS502", container(resources)) == []

    def test_request_without_limit(self) -> None:
        [finding] = lint("WAS502", container("requests:\n  nvidia.com/gpu: 2\n  cpu: 1"))
        assert finding.severity is Severity.ERROR
        assert 'container "c" requests nvidia.com/gpu: 2 without a limit' in finding.message
        assert finding.field_path == (
            "spec",
            "containers",
            0,
            "resources",
            "requests",
            "nvidia.com/gpu",
        )

    def test_limit_differs(self) -> None:
        text = container("requests:\n  amd.com/gpu: 2\nlimits:\n  amd.com/gpu: 1")
        [finding] = lint("WAS502", text)
        assert "but its limit is 1" in finding.message

    def test_init_containers_and_every_template_kind(self) -> None:
        text = container("requests:\n  nvidia.com/gpu: 1", list_name="initContainers")
        [finding] = lint("WAS502", text)
        assert finding.field_path[1] == "initContainers"
        jobset = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        template:
          spec:
            containers:
            - name: w
              image: x
              resources: {requests: {nvidia.com/gpu: 8}}
"""
        [finding] = lint("WAS502", jobset)
        assert finding.field_path[:2] == ("spec", "replicatedJobs")

    @pytest.mark.parametrize(
        "resources",
        [
            "requests: 5",
            "requests: [1]",
            "requests:\n  nvidia.com/gpu: null",
            "requests:\n  nvidia.com/gpu: 1\nlimits: oops",
            "requests:\n  nvidia.com/gpu: {a: 1}\nlimits:\n  nvidia.com/gpu: {a: 1}",
        ],
    )
    def test_wrong_types_never_crash(self, resources: str) -> None:
        result = lint_texts({"p.yaml": container(resources)}, select=["WAS502"])
        assert result.internal_errors == []

    def test_several_documents(self) -> None:
        bad = container("requests:\n  nvidia.com/gpu: 1")
        good = container("limits:\n  nvidia.com/gpu: 1")
        findings = lint("WAS502", good + "---\n" + bad + "---\n" + bad)
        assert [f.document for f in findings] == [1, 2]


# --------------------------------------------------------------------------- WAS503


TEAM_A = queue("team-a", "gpu:\n  quota: 2\n  limit: -1")


def kai_job(
    priority: str | None = "build",
    parallelism: int = 4,
    gpus: str = "1",
    extra: str = "",
    template_labels: str = "",
    spec_priority: str = "",
) -> str:
    labels = "    kai.scheduler/queue: team-a\n"
    if priority is not None:
        labels += f"    priorityClassName: {priority}\n"
    return f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: build-model
  namespace: ml
  labels:
{labels}{extra}spec:
  parallelism: {parallelism}
  template:
    metadata:
      labels: {{{template_labels}}}
    spec:
      schedulerName: kai-scheduler
{spec_priority}      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
        resources:
          limits:
            nvidia.com/gpu: {gpus}
"""


class TestNonPreemptibleOverQuota:
    def test_fires_with_demand_quota_and_queue(self) -> None:
        [finding] = lint("WAS503", TEAM_A + "---\n" + kai_job())
        assert finding.severity is Severity.WARNING
        assert "needs 4 GPUs (4 pods x 1 GPU)" in finding.message
        assert 'queue "team-a" has a GPU quota of 2' in finding.message
        assert finding.field_path == ("metadata", "labels", "priorityClassName")

    def test_within_quota_or_preemptible_is_silent(self) -> None:
        assert lint("WAS503", TEAM_A + "---\n" + kai_job(parallelism=2)) == []
        assert lint("WAS503", TEAM_A + "---\n" + kai_job(priority="train")) == []
        assert lint("WAS503", TEAM_A + "---\n" + kai_job(priority=None)) == []  # default: train

    def test_preemptibility_label_overrides_priority(self) -> None:
        preemptible = kai_job(extra="    kai.scheduler/preemptibility: preemptible\n")
        assert lint("WAS503", TEAM_A + "---\n" + preemptible) == []
        forced = kai_job(priority="train", extra="    kai.scheduler/preemptibility: non-preemptible\n")
        [finding] = lint("WAS503", TEAM_A + "---\n" + forced)
        assert finding.field_path[-1] == "kai.scheduler/preemptibility"

    def test_priority_class_value_from_the_set(self) -> None:
        pc = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: {n}\nvalue: {v}\n"
        job = kai_job(priority=None, spec_priority="      priorityClassName: urgent\n")
        assert lint("WAS503", TEAM_A + "---\n" + pc.format(n="urgent", v=99) + "---\n" + job) == []
        [finding] = lint("WAS503", TEAM_A + "---\n" + pc.format(n="urgent", v=500) + "---\n" + job)
        assert "urgent = 500" in finding.message
        assert finding.field_path[-1] == "priorityClassName"
        # Unknown class value: silent (WAS405 reports the name).
        assert lint("WAS503", TEAM_A + "---\n" + job) == []

    def test_unset_quota_counts_as_zero_and_unlimited_never_fires(self) -> None:
        unset = queue("team-a", "gpu:\n  limit: -1")
        [finding] = lint("WAS503", unset + "---\n" + kai_job(parallelism=1))
        assert "GPU quota of 0 (unset)" in finding.message
        unlimited = queue("team-a", "gpu:\n  quota: -1\n  limit: -1")
        assert lint("WAS503", unlimited + "---\n" + kai_job(parallelism=64)) == []

    def test_parent_queue_quota(self) -> None:
        parent = queue("org", "gpu:\n  quota: 3\n  limit: -1")
        child = queue("team-a", "gpu:\n  quota: -1\n  limit: -1", parent="org")
        [finding] = lint("WAS503", parent + "---\n" + child + "---\n" + kai_job())
        assert 'queue "team-a" sits under queue "org"' in finding.message

    def test_unknown_queue_is_silent_and_snapshot_queue_counts(self, tmp_path: Path) -> None:
        assert lint("WAS503", kai_job()) == []
        snapshot = tmp_path / "snap.yaml"
        items = "".join(f"  {line}\n" for line in TEAM_A.splitlines())
        snapshot.write_text("apiVersion: v1\nkind: List\nitems:\n-" + items[1:])
        assert len(lint("WAS503", kai_job(), extra={"snapshot_path": str(snapshot)})) == 1

    def test_deployment_defaults_to_inference(self) -> None:
        text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 3
  template:
    metadata:
      labels: {kai.scheduler/queue: team-a}
    spec:
      schedulerName: kai-scheduler
      containers:
      - name: main
        image: x
        resources: {limits: {nvidia.com/gpu: 1}}
"""
        [finding] = lint("WAS503", TEAM_A + "---\n" + text)
        assert "KAI's default for a Deployment inference = 125" in finding.message
        assert finding.field_path[-1] == "nvidia.com/gpu"

    def test_fractions_and_lws_counts(self) -> None:
        text = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llm
  labels: {kai.scheduler/queue: team-a, priorityClassName: inference}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
      metadata:
        annotations: {gpu-fraction: "0.5"}
      spec:
        schedulerName: kai-scheduler
        containers: [{name: l, image: x}]
    workerTemplate:
      spec:
        schedulerName: kai-scheduler
        containers: [{name: w, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
"""
        big = queue("team-a", "gpu:\n  quota: 8\n  limit: -1")
        assert lint("WAS503", big + "---\n" + text) == []  # 2x2 workers + 2x0.5 leaders = 5
        small = queue("team-a", "gpu:\n  quota: 4.5\n  limit: -1")
        [finding] = lint("WAS503", small + "---\n" + text)
        assert "needs 5 GPUs (4 pods x 1 GPU + 2 pods x 0.5 GPUs)" in finding.message

    def test_lws_without_leader_template_counts_size_pods_per_group(self) -> None:
        text = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: llm
  labels: {kai.scheduler/queue: team-a, priorityClassName: inference}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 4
    workerTemplate:
      spec:
        schedulerName: kai-scheduler
        containers: [{name: w, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
"""
        # Without a leaderTemplate the leader runs the worker template too: 4 Pods, 4 GPUs.
        assert lint("WAS503", queue("team-a", "gpu:\n  quota: 4\n  limit: -1") + "---\n" + text) == []
        [finding] = lint("WAS503", queue("team-a", "gpu:\n  quota: 3\n  limit: -1") + "---\n" + text)
        assert "needs 4 GPUs" in finding.message

    def test_fraction_only_points_at_the_annotation(self) -> None:
        text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: notebook, labels: {kai.scheduler/queue: team-a}}
spec:
  template:
    metadata:
      annotations: {gpu-fraction: "0.5"}
    spec:
      schedulerName: kai-scheduler
      containers: [{name: main, image: x}]
"""
        empty = queue("team-a", "gpu:\n  quota: 0\n  limit: -1")
        [finding] = lint("WAS503", empty + "---\n" + text)
        assert finding.field_path == ("spec", "template", "metadata", "annotations", "gpu-fraction")
        assert "needs 0.5 GPUs (1 pod x 0.5 GPUs)" in finding.message

    def test_queue_from_template_label_and_several_files(self) -> None:
        job = kai_job().replace("    kai.scheduler/queue: team-a\n", "")
        job = job.replace("labels: {}", "labels: {kai.scheduler/queue: team-a}")
        result = lint_texts({"q.yaml": TEAM_A, "job.yaml": job}, select=["WAS503"])
        assert [f.path for f in result.findings] == ["job.yaml"]

    def test_not_kai_is_silent(self) -> None:
        job = kai_job().replace("      schedulerName: kai-scheduler\n", "")
        job = job.replace("    kai.scheduler/queue: team-a\n", "")
        assert lint("WAS503", TEAM_A + "---\n" + job) == []

    @pytest.mark.parametrize(
        "gpus",
        ["'two'", "[1]", "null", "-3", "1Gi"],
    )
    def test_odd_quantities_never_crash(self, gpus: str) -> None:
        result = lint_texts({"t.yaml": TEAM_A + "---\n" + kai_job(gpus=gpus)}, select=["WAS503"])
        assert result.internal_errors == []

    def test_wrong_types_never_crash(self) -> None:
        text = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: team-a}
spec: {resources: {gpu: 3}, parentQueue: [x]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, labels: {kai.scheduler/queue: team-a, priorityClassName: [x]}}
spec:
  replicas: many
  template:
    metadata: {annotations: {gpu-fraction: lots}}
    spec:
      schedulerName: kai-scheduler
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
"""
        result = lint_texts({"t.yaml": text}, select=["WAS503"])
        assert result.internal_errors == []


# --------------------------------------------------------------------------- docs and corpus


@needs_corpus
def test_kai_corpus_findings_are_the_reviewed_ones() -> None:
    result = run_cli("lint", "--select", "WAS5", "--format", "json", str(CORPUS / "kai"))
    import json

    findings = json.loads(result.stdout)["findings"]
    by_code: dict[str, set[str]] = {}
    for finding in findings:
        by_code.setdefault(finding["code"], set()).add(Path(finding["path"]).name)
    assert by_code.get("WAS501") == {
        "docs_operator_scheduling-shards.block04.L111.yaml",  # quota -1 / 10, no limit
        "docs_queues_README.block04.L93.yaml",  # ml-team: quotas without limits
    }
    # build (100) on default-queue, whose gpu quota is 0
    assert by_code.get("WAS503") == {"build-priority-pod.yaml"}
