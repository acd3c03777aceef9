"""WAS3xx gang sizing: edge cases beyond the fixture pairs."""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint_text, lint_texts
from waslint.core.model import Severity
from waslint.findings import Finding

SIZING = ["WAS301", "WAS302", "WAS303", "WAS304", "WAS305", "WAS306"]


def y(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def run(text: str, code: str, **options: object) -> list[Finding]:
    return [f for f in lint_text(y(text), select=[code], **options) if f.code == code]


def run_files(files: dict[str, str], code: str, **options: object) -> list[Finding]:
    result = lint_texts({path: y(text) for path, text in files.items()}, select=[code], **options)
    assert result.internal_errors == []
    return [f for f in result.findings if f.code == code]


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    seen = 0
    for number, line in enumerate(y(text).splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in text")


def job(
    min_count: str | None,
    parallelism: str | None = "4",
    completions: str | None = None,
    extra_template: str = "",
    name: str = "train",
) -> str:
    lines = ["apiVersion: batch/v1", "kind: Job", "metadata:", f"  name: {name}", "spec:"]
    if parallelism is not None:
        lines.append(f"  parallelism: {parallelism}")
    if completions is not None:
        lines.append(f"  completions: {completions}")
    lines += ["  scheduling:", "    schedulingPolicy:"]
    lines += ["      gang:", f"        minCount: {min_count}"] if min_count is not None else ["      gang: {}"]
    lines += ["  template:", "    spec:"]
    lines += [f"      {line}" for line in extra_template.splitlines() if line]
    lines += ["      restartPolicy: Never", "      containers:", "      - name: main", "        image: trainer:1.0"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- WAS301 / WAS302


def test_301_names_both_sides_and_points_at_min_count() -> None:
    text = job("8", parallelism="4")
    found = run(text, "WAS301")
    assert len(found) == 1
    finding = found[0]
    assert finding.severity is Severity.ERROR
    assert finding.span.line == line_of(text, "minCount: 8")
    assert "minCount 8 (spec.scheduling.schedulingPolicy.gang.minCount)" in finding.message
    assert "parallelism 4 (spec.parallelism)" in finding.message


def test_301_parallelism_defaults_to_one() -> None:
    found = run(job("2", parallelism=None), "WAS301")
    assert len(found) == 1 and "spec.parallelism is unset and defaults to 1" in found[0].message


def test_301_completions_cap_the_pods_at_once() -> None:
    found = run(job("4", parallelism="4", completions="2"), "WAS301")
    assert len(found) == 1 and "completions 2 (spec.completions)" in found[0].message
    assert run(job("4", parallelism="4", completions="8"), "WAS301") == []


@pytest.mark.parametrize(("min_count", "parallelism"), [("4", "4"), ("2", "4"), (None, "4")])
def test_301_silent_when_the_gang_fits(min_count: str | None, parallelism: str) -> None:
    assert run(job(min_count, parallelism), "WAS301") == []


def test_301_cronjob_job_template_line() -> None:
    text = """
    apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      jobTemplate:
        spec:
          parallelism: 2
          scheduling:
            schedulingPolicy:
              gang:
                minCount: 3
          template:
            spec:
              containers:
              - name: main
                image: trainer:1.0
    """
    found = run(text, "WAS301")
    assert [f.span.line for f in found] == [line_of(text, "minCount: 3")]
    assert "spec.jobTemplate.spec.parallelism" in found[0].message


def test_301_302_only_for_a_1_37_target() -> None:
    assert run(job("8", "4"), "WAS301", target="1.36") == []
    assert run(job("2", "4"), "WAS302", target="1.36") == []


def test_302_elastic_gang_warning() -> None:
    text = job("2", parallelism="8")
    found = run(text, "WAS302")
    assert len(found) == 1
    assert found[0].severity is Severity.WARNING
    assert found[0].span.line == line_of(text, "minCount: 2")
    assert "2 of 8 Pods" in found[0].message


@pytest.mark.parametrize(
    "text",
    [
        job(None, "8"),  # unset: defaults to parallelism
        job("8", "8"),
        job("4", "8", completions="4"),  # only 4 run at once
        job("2", "8", extra_template="schedulingGroup:\n  podGroupName: byo\n"),  # opted out
    ],
)
def test_302_silent(text: str) -> None:
    assert run(text, "WAS302") == []


@pytest.mark.parametrize(
    "scheduling",
    [
        "scheduling: gang",
        "scheduling:\n    schedulingPolicy: [gang]",
        "scheduling:\n    schedulingPolicy:\n      gang: 4",
        "scheduling:\n    schedulingPolicy:\n      gang:\n        minCount: four",
        "scheduling:\n    schedulingPolicy:\n      basic: {}\n      gang:\n        minCount: 9",
        "parallelism: many\n  scheduling:\n    schedulingPolicy:\n      gang:\n        minCount: 9",
    ],
)
def test_job_rules_never_crash_and_skip_wrong_types(scheduling: str) -> None:
    text = f"apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  {scheduling}\n"
    result = lint_texts({"job.yaml": text}, select=SIZING)
    assert result.internal_errors == []
    assert [f.code for f in result.findings] == []


# --------------------------------------------------------------------------- WAS303

GROUP = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
  namespace: ml
spec:
  schedulingPolicy:
    gang:
      minCount: {count}
"""


def group(count: int | str = 4) -> str:
    return GROUP.format(count=count)


def member_pod(name: str, namespace: str = "ml", owner: bool = False) -> str:
    owned = (
        (
            "\n  ownerReferences:\n  - apiVersion: batch/v1\n    kind: Job\n    name: train\n"
            "    uid: x\n    controller: true"
        )
        if owner
        else ""
    )
    return (
        f"\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}{owned}\n"
        "spec:\n  schedulingGroup:\n    podGroupName: workers\n  containers:\n  - name: main\n"
        "    image: trainer:1.0\n"
    )


def member_deployment(replicas: str | None) -> str:
    line = f"\n  replicas: {replicas}" if replicas is not None else ""
    return (
        "\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: workers\n  namespace: ml\n"
        f"spec:{line}\n  template:\n    spec:\n      schedulingGroup:\n        podGroupName: workers\n"
        "      containers:\n      - name: main\n        image: trainer:1.0\n"
    )


def test_303_members_from_several_files_and_kinds_add_up() -> None:
    files = {
        "group.yaml": group(4),
        "a.yaml": member_pod("a"),
        "b.yaml": member_deployment("2"),
    }
    found = run_files(files, "WAS303")
    assert len(found) == 1
    assert "3 Pods of the PodGroup's members" in found[0].message
    assert "Pod a: 1" in found[0].message and "Deployment workers: 2" in found[0].message
    files["c.yaml"] = member_pod("c")
    assert run_files(files, "WAS303") == []


def test_303_points_at_min_count() -> None:
    text = group(4) + "---" + member_pod("a")
    found = run(text, "WAS303")
    assert [f.span.line for f in found] == [line_of(text, "minCount: 4")]
    assert found[0].severity is Severity.ERROR


@pytest.mark.parametrize(
    "members",
    [
        "",  # no member in the set
        member_pod("a", namespace="other"),  # a member of a same-named group elsewhere
        member_deployment(None),  # replicas unset: an autoscaler may own it
        member_pod("a") + "---" + member_pod("b", owner=True),  # one of a Job's Pods
    ],
)
def test_303_silent_when_members_are_unknown(members: str) -> None:
    assert run(group(4) + ("---" + members if members else ""), "WAS303") == []


def test_303_copies_of_one_object_count_once() -> None:
    files = {"group.yaml": group(2), "x/pod.yaml": member_pod("a"), "y/pod.yaml": member_pod("a")}
    assert len(run_files(files, "WAS303")) == 1


def test_303_jobset_and_lws_members() -> None:
    jobset = """
    apiVersion: jobset.x-k8s.io/v1alpha2
    kind: JobSet
    metadata:
      name: js
      namespace: ml
    spec:
      replicatedJobs:
      - name: workers
        replicas: 2
        template:
          spec:
            parallelism: 2
            template:
              spec:
                schedulingGroup:
                  podGroupName: workers
                containers:
                - name: main
                  image: trainer:1.0
    """
    lws = """
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata:
      name: lws
      namespace: ml
    spec:
      replicas: 1
      leaderWorkerTemplate:
        size: 3
        leaderTemplate:
          spec:
            schedulingGroup:
              podGroupName: workers
            containers:
            - name: leader
              image: trainer:1.0
        workerTemplate:
          spec:
            schedulingGroup:
              podGroupName: workers
            containers:
            - name: worker
              image: trainer:1.0
    """
    assert run(group(4) + "---\n" + y(jobset), "WAS303") == []
    assert len(run(group(5) + "---\n" + y(jobset), "WAS303")) == 1
    assert run(group(3) + "---\n" + y(lws), "WAS303") == []  # leader 1 + workers 2
    assert len(run(group(4) + "---\n" + y(lws), "WAS303")) == 1


def test_303_composite_pod_group_against_its_workload_template() -> None:
    text = """
    apiVersion: scheduling.k8s.io/v1beta1
    kind: Workload
    metadata:
      name: serving
    spec:
      compositePodGroupTemplates:
      - name: root
        schedulingPolicy:
          gang:
            minGroupCount: 2
        podGroupTemplates:
        - name: prefill
          schedulingPolicy:
            gang:
              minCount: 1
        - name: decode
          schedulingPolicy:
            gang:
              minCount: 1
    ---
    apiVersion: scheduling.k8s.io/v1alpha3
    kind: CompositePodGroup
    metadata:
      name: root-0
    spec:
      workloadRef:
        workloadName: serving
        templateName: root
      schedulingPolicy:
        gang:
          minGroupCount: 3
    """
    found = run(text, "WAS303")
    assert len(found) == 1
    assert found[0].span.line == line_of(text, "minGroupCount: 3")
    assert "prefill, decode" in found[0].message
    # Without the Workload in the set, the number of child templates is unknown.
    alone = y(text).split("---\n")[1]
    assert run(alone, "WAS303") == []


# --------------------------------------------------------------------------- WAS304

WORKLOAD = """
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
  namespace: ml
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 8
{extra}
"""


def workload(extra: str = "") -> str:
    return WORKLOAD.format(extra=textwrap.indent(y(extra), "    ") if extra else "")


def pg(
    spec: str, ref: str = "workloadRef:\n  workloadName: training\n  templateName: workers\n", namespace: str = "ml"
) -> str:
    body = textwrap.indent(y(ref) + y(spec), "  ")
    return (
        f"\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: training-0\n"
        f"  namespace: {namespace}\nspec:\n{body}"
    )


GANG8 = "schedulingPolicy:\n  gang:\n    minCount: 8\n"


def test_304_each_differing_field_is_one_finding_at_the_group_field() -> None:
    spec = """
    schedulingPolicy:
      gang:
        minCount: 8
    priorityClassName: high
    schedulingConstraints:
      topology:
      - key: topology.kubernetes.io/zone
    resourceClaims:
    - name: gpu
      resourceClaimTemplateName: gpu-claim
    """
    text = workload() + "---" + pg(spec)
    found = run(text, "WAS304")
    assert all(f.severity is Severity.WARNING for f in found)
    assert [f.span.line for f in found] == [
        line_of(text, "priorityClassName: high"),
        line_of(text, "schedulingConstraints:"),
        line_of(text, "resourceClaims:"),
    ]
    assert "Workload ml/training template 'workers'" in found[0].message
    assert "only here: {name: gpu, resourceClaimTemplateName: gpu-claim}" in found[2].message


def test_304_defaults_and_legacy_strings_are_not_drift() -> None:
    template = workload("disruptionMode:\n  all: {}\n")
    assert run(template + "---" + pg(GANG8 + "disruptionMode: PodGroup\n"), "WAS304") == []
    assert run(workload() + "---" + pg(GANG8 + "disruptionMode:\n  single: {}\n"), "WAS304") == []
    found = run(workload() + "---" + pg(GANG8 + "disruptionMode:\n  all: {}\n"), "WAS304")
    assert len(found) == 1 and "{all: {}}" in found[0].message and "{single: {}}" in found[0].message


def test_304_policy_kind_drift_is_reported_once() -> None:
    found = run(workload() + "---" + pg("schedulingPolicy:\n  basic: {}\n"), "WAS304")
    assert len(found) == 1 and "policy kind is basic" in found[0].message


def test_304_min_count_drift_explains_mutability() -> None:
    text = workload() + "---" + pg("schedulingPolicy:\n  gang:\n    minCount: 6\n")
    found = run(text, "WAS304")
    assert len(found) == 1 and "mutable" in found[0].message
    assert found[0].span.line == line_of(text, "minCount: 6")


def test_304_follows_the_legacy_template_ref() -> None:
    legacy = "podGroupTemplateRef:\n  workload:\n    workloadName: training\n    podGroupTemplateName: workers\n"
    found = run(workload() + "---" + pg("schedulingPolicy:\n  gang:\n    minCount: 2\n", ref=legacy), "WAS304")
    assert len(found) == 1


@pytest.mark.parametrize(
    ("files", "why"),
    [
        ({"pg.yaml": pg("schedulingPolicy:\n  gang:\n    minCount: 2\n")}, "no Workload"),
        (
            {"w.yaml": workload(), "pg.yaml": pg("schedulingPolicy:\n  gang:\n    minCount: 2\n", namespace="other")},
            "other namespace",
        ),
        (
            {
                "w.yaml": workload(),
                "pg.yaml": pg(
                    "schedulingPolicy:\n  gang:\n    minCount: 2\n",
                    ref="workloadRef:\n  workloadName: training\n  templateName: nope\n",
                ),
            },
            "no template",
        ),
        (
            {
                "a/w.yaml": workload(),
                "b/w.yaml": workload().replace("minCount: 8", "minCount: 2"),
                "c/pg.yaml": pg("schedulingPolicy:\n  gang:\n    minCount: 2\n"),
            },
            "ambiguous copies",
        ),
    ],
)
def test_304_silent_without_a_unique_template(files: dict[str, str], why: str) -> None:
    assert run_files(files, "WAS304") == [], why


def test_304_prefers_the_workload_in_the_same_folder() -> None:
    files = {
        "a/w.yaml": workload(),
        "b/w.yaml": workload().replace("minCount: 8", "minCount: 2"),
        "b/pg.yaml": pg("schedulingPolicy:\n  gang:\n    minCount: 2\n"),
    }
    assert run_files(files, "WAS304") == []


def test_304_composite_pod_group() -> None:
    text = """
    apiVersion: scheduling.k8s.io/v1beta1
    kind: Workload
    metadata:
      name: serving
    spec:
      compositePodGroupTemplates:
      - name: root
        schedulingPolicy:
          gang:
            minGroupCount: 2
        podGroupTemplates:
        - name: a
          schedulingPolicy:
            basic: {}
        - name: b
          schedulingPolicy:
            basic: {}
    ---
    apiVersion: scheduling.k8s.io/v1alpha3
    kind: CompositePodGroup
    metadata:
      name: root-0
    spec:
      workloadRef:
        workloadName: serving
        templateName: root
      schedulingPolicy:
        gang:
          minGroupCount: 1
    ---
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: wrong-kind
    spec:
      workloadRef:
        workloadName: serving
        templateName: root
      schedulingPolicy:
        gang:
          minCount: 1
    """
    found = run(text, "WAS304")
    assert [f.object_id.kind if f.object_id else "" for f in found] == ["CompositePodGroup"]
    assert "minGroupCount is 1" in found[0].message


# --------------------------------------------------------------------------- WAS305


def kai_job(value: str, parallelism: int = 4, extra: str = "") -> str:
    return (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\n  annotations:\n"
        f"    kai.scheduler/batch-min-member: {value}\nspec:\n  parallelism: {parallelism}\n{extra}"
        "  template:\n    spec:\n      schedulerName: kai-scheduler\n      containers:\n"
        "      - name: main\n        image: trainer:1.0\n"
    )


def test_305_kai_annotation_error_warning_and_match() -> None:
    text = kai_job('"8"')
    found = run(text, "WAS305")
    assert [(f.severity, f.span.line) for f in found] == [(Severity.ERROR, line_of(text, "batch-min-member"))]
    assert "parallelism 4 (spec.parallelism)" in found[0].message
    smaller = run(kai_job('"2"'), "WAS305")
    assert [f.severity for f in smaller] == [Severity.WARNING]
    assert "2 of 4 Pods" in smaller[0].message
    assert run(kai_job('"4"'), "WAS305") == []
    assert run(kai_job('"two"'), "WAS305") == []  # WAS306's


def test_305_jobset_total_and_in_order() -> None:
    jobset = """
    apiVersion: jobset.x-k8s.io/v1alpha2
    kind: JobSet
    metadata:
      name: js
      annotations:
        kai.scheduler/batch-min-member: "{value}"
    spec:
      {order}
      replicatedJobs:
      - name: coordinator
        replicas: 1
        template:
          spec:
            parallelism: 1
            template:
              spec:
                containers:
                - name: main
                  image: busybox
      - name: workers
        replicas: 2
        template:
          spec:
            parallelism: 2
            template:
              spec:
                containers:
                - name: main
                  image: busybox
    """

    def check(value: int, order: str = "") -> list[tuple[Severity, str]]:
        text = y(jobset).replace("{value}", str(value)).replace("{order}", order or "successPolicy: {operator: All}")
        return [(f.severity, f.message) for f in run(text, "WAS305")]

    assert check(5) == []
    assert [s for s, _ in check(6)] == [Severity.ERROR]
    assert "coordinator: 1 replicas x" in check(6)[0][1]
    assert [s for s, _ in check(3)] == [Severity.WARNING]
    in_order = "startupPolicy: {startupPolicyOrder: InOrder}"
    assert [s for s, _ in check(2, in_order)] == [Severity.ERROR]  # coordinator has 1 Pod
    assert "replicated job coordinator" in check(2, in_order)[0][1]


def test_305_lws_size_and_cronjob_job_template() -> None:
    lws = """
    apiVersion: leaderworkerset.x-k8s.io/v1
    kind: LeaderWorkerSet
    metadata:
      name: lws
      annotations:
        kai.scheduler/batch-min-member: "5"
    spec:
      replicas: 3
      leaderWorkerTemplate:
        size: 4
        workerTemplate:
          spec:
            containers:
            - name: w
              image: x
    """
    found = run(lws, "WAS305")
    assert len(found) == 1 and "LeaderWorkerSet size 4" in found[0].message
    cron = """
    apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      jobTemplate:
        metadata:
          annotations:
            kai.scheduler/batch-min-member: "3"
        spec:
          parallelism: 2
          template:
            spec:
              containers:
              - name: w
                image: x
    """
    found = run(cron, "WAS305")
    assert len(found) == 1 and found[0].span.line == line_of(cron, "batch-min-member")
    assert "spec.jobTemplate.spec.parallelism" in found[0].message


def test_305_volcano_job_min_available() -> None:
    text = """
    apiVersion: batch.volcano.sh/v1alpha1
    kind: Job
    metadata:
      name: tf
    spec:
      minAvailable: 5
      tasks:
      - name: ps
        replicas: 1
        template: {spec: {containers: [{name: ps, image: tf}]}}
      - name: worker
        replicas: 3
        template: {spec: {containers: [{name: w, image: tf}]}}
    """
    found = run(text, "WAS305")
    assert [(f.severity, f.span.line) for f in found] == [(Severity.ERROR, line_of(text, "minAvailable"))]
    assert "ps 1 + worker 3" in found[0].message
    assert run(text.replace("minAvailable: 5", "minAvailable: 4"), "WAS305") == []
    unknown = text.replace("        replicas: 3\n", "")
    assert run(unknown, "WAS305") == []


def test_305_third_party_pod_groups_across_files() -> None:
    kai_group = """
    apiVersion: scheduling.run.ai/v2alpha2
    kind: PodGroup
    metadata:
      name: gang
      namespace: ml
    spec:
      minMember: 3
      queue: default-queue
    """
    member = """
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: gang
      namespace: ml
    spec:
      parallelism: 2
      template:
        metadata:
          annotations:
            pod-group-name: gang
        spec:
          containers:
          - name: w
            image: x
    """
    found = run_files({"pg.yaml": kai_group, "job.yaml": member}, "WAS305")
    assert [(f.path, f.severity) for f in found] == [("pg.yaml", Severity.ERROR)]
    assert "Job gang: 2" in found[0].message
    # a member in another namespace does not count; no member at all: silent
    assert run_files({"pg.yaml": kai_group, "job.yaml": member.replace("ml", "other")}, "WAS305") == []


def test_305_kai_sub_groups_are_compared_per_leaf() -> None:
    text = """
    apiVersion: scheduling.run.ai/v2alpha2
    kind: PodGroup
    metadata:
      name: gang
    spec:
      minMember: 1
      subGroups:
      - name: workers
        minMember: 4
      - name: driver
        minMember: 1
    ---
    apiVersion: apps/v1
    kind: StatefulSet
    metadata:
      name: workers
    spec:
      replicas: 2
      template:
        metadata:
          annotations:
            pod-group-name: gang
          labels:
            kai.scheduler/subgroup-name: workers
        spec:
          containers:
          - name: w
            image: x
    """
    found = run(text, "WAS305")
    assert [f.span.line for f in found] == [line_of(text, "minMember: 4")]
    assert "sub-group 'workers'" in found[0].message


def test_305_volcano_and_coscheduling_groups() -> None:
    volcano = """
    apiVersion: scheduling.volcano.sh/v1beta1
    kind: PodGroup
    metadata:
      name: g
    spec:
      minMember: 2
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: p
      annotations:
        scheduling.volcano.sh/group-name: g
    spec:
      containers:
      - name: w
        image: x
    """
    found = run(volcano, "WAS305")
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    cosched = """
    apiVersion: scheduling.x-k8s.io/v1alpha1
    kind: PodGroup
    metadata:
      name: g
    spec:
      minMember: 2
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: d
    spec:
      template:
        metadata:
          labels:
            scheduling.x-k8s.io/pod-group: g
        spec:
          containers:
          - name: w
            image: x
    """
    assert run(cosched, "WAS305") == []  # replicas unset: unknown
    assert (
        len(
            run(
                cosched.replace("    spec:\n      template:", "    spec:\n      replicas: 1\n      template:"), "WAS305"
            )
        )
        == 1
    )


def test_305_wrong_types_do_not_crash() -> None:
    text = """
    apiVersion: scheduling.run.ai/v2alpha2
    kind: PodGroup
    metadata:
      name: gang
    spec:
      minMember: "3"
      subGroups: nope
    ---
    apiVersion: scheduling.x-k8s.io/v1alpha1
    kind: PodGroup
    metadata: []
    spec: [minMember]
    ---
    apiVersion: batch.volcano.sh/v1alpha1
    kind: Job
    metadata:
      name: v
    spec:
      minAvailable: 2
      tasks: [1, {replicas: x}]
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: p
      annotations: pod-group-name
      labels: [scheduling.x-k8s.io/pod-group]
    spec: {}
    ---
    apiVersion: jobset.x-k8s.io/v1alpha2
    kind: JobSet
    metadata:
      name: js
      annotations:
        kai.scheduler/batch-min-member: "2"
    spec:
      replicatedJobs: [x, {replicas: two}]
    """
    result = lint_texts({"x.yaml": y(text)}, select=SIZING)
    assert result.internal_errors == []


# --------------------------------------------------------------------------- WAS306


def test_306_missing_zero_negative() -> None:
    text = """
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: a
    spec:
      schedulingPolicy:
        gang: {}
    ---
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: b
    spec:
      schedulingPolicy:
        gang:
          minCount: -1
    ---
    apiVersion: scheduling.k8s.io/v1alpha1
    kind: Workload
    metadata:
      name: old
    spec:
      podGroups:
      - name: workers
        policy:
          gang:
            minCount: 0
    ---
    apiVersion: scheduling.k8s.io/v1alpha3
    kind: CompositePodGroup
    metadata:
      name: c
    spec:
      schedulingPolicy:
        gang:
          minGroupCount: 0
    """
    found = run(text, "WAS306", target="1.35")
    assert [f.span.line for f in found] == [
        line_of(text, "gang: {}"),
        line_of(text, "minCount: -1"),
        line_of(text, "minCount: 0"),
        line_of(text, "minGroupCount: 0"),
    ]
    assert all(f.severity is Severity.ERROR for f in found)


def test_306_job_min_count_is_optional_but_positive() -> None:
    assert run(job(None), "WAS306") == []
    found = run(job("0"), "WAS306")
    assert len(found) == 1 and "defaults to parallelism" in found[0].message


@pytest.mark.parametrize(
    ("value", "fires"),
    [
        ('"4"', False),
        ('"+4"', False),
        ("4", True),
        ('"0"', True),
        ('"two"', True),
        ('"4 "', True),
        ('"-1"', True),
        ("true", True),
        ('""', True),
    ],
)
def test_306_kai_annotation_must_parse(value: str, fires: bool) -> None:
    assert bool(run(kai_job(value), "WAS306")) is fires


def test_306_wrong_types_are_left_to_was002() -> None:
    text = """
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: a
    spec:
      schedulingPolicy:
        gang:
          minCount: "4"
    ---
    apiVersion: scheduling.k8s.io/v1beta1
    kind: Workload
    metadata:
      name: w
    spec:
      podGroupTemplates: {name: x}
    """
    assert run(text, "WAS306") == []


# --------------------------------------------------------------------------- documented examples
