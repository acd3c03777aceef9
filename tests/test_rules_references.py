"""WAS4xx beyond the fixture pairs: namespaces, split files, Lists, wrong types, the snapshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, lint_text, lint_texts, needs_corpus, run_cli
from waslint.core.model import Severity
from waslint.findings import Finding


def only(code: str, findings: list[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.code == code]


def lint(code: str, text: str, **options: Any) -> list[Finding]:
    return only(code, lint_text(text, select=[code], **options))


def lint_files(code: str, files: dict[str, str], **options: Any) -> list[Finding]:
    return only(code, lint_texts(files, select=[code], **options).findings)


PODGROUP = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: {name}
  namespace: {ns}
spec:
  schedulingPolicy:
    gang:
      minCount: 2
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: {ns}
spec:
  schedulingGroup:
    podGroupName: {group}
  containers:
  - name: main
    image: trainer:1.0
"""


# --------------------------------------------------------------------------- WAS401


class TestDanglingPodGroupRef:
    def test_names_group_namespace_and_suggestion(self) -> None:
        text = PODGROUP.format(name="trainer-workers", ns="ml") + "---\n" + POD.format(ns="ml", group="trainer-worker")
        [finding] = lint("WAS401", text)
        assert finding.severity is Severity.WARNING
        assert '"trainer-worker"' in finding.message and '"ml"' in finding.message
        assert 'did you mean "trainer-workers"' in finding.message
        assert finding.span.line == 18  # the podGroupName line

    def test_silent_without_podgroups_in_that_namespace(self) -> None:
        text = PODGROUP.format(name="trainer-workers", ns="other") + "---\n" + POD.format(ns="ml", group="missing")
        assert lint("WAS401", text) == []

    def test_resolves_across_files(self) -> None:
        files = {
            "groups.yaml": PODGROUP.format(name="a", ns="ml") + "---\n" + PODGROUP.format(name="b", ns="ml"),
            "pods.yaml": POD.format(ns="ml", group="b"),
        }
        assert lint_files("WAS401", files) == []
        files["pods.yaml"] = POD.format(ns="ml", group="c")
        [finding] = lint_files("WAS401", files)
        assert finding.path == "pods.yaml"

    def test_default_namespace_from_option(self) -> None:
        group = PODGROUP.replace("  namespace: {ns}\n", "").format(name="g")
        pod = POD.replace("  namespace: {ns}\n", "").format(group="h")
        assert lint("WAS401", group + "---\n" + pod, namespace="team")
        # Explicitly in another namespace than the PodGroup's default one: silent.
        assert lint("WAS401", group + "---\n" + POD.format(ns="elsewhere", group="h")) == []

    def test_list_items_and_templates(self) -> None:
        text = """\
apiVersion: v1
kind: List
items:
- apiVersion: scheduling.k8s.io/v1beta1
  kind: PodGroup
  metadata: {name: workers, namespace: ml}
  spec: {schedulingPolicy: {gang: {minCount: 2}}}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: web, namespace: ml}
  spec:
    template:
      spec:
        schedulingGroup: {podGroupName: worker}
        containers: [{name: main, image: x}]
"""
        [finding] = lint("WAS401", text)
        assert finding.span.line == 14
        assert finding.object_id is not None and finding.object_id.kind == "StatefulSet"

    @pytest.mark.parametrize(
        "group",
        [
            "schedulingGroup: worker",
            "schedulingGroup: {podGroupName: 5}",
            "schedulingGroup: []",
            "schedulingGroup: null",
            "schedulingGroup: {podGroupName: [a]}",
        ],
    )
    def test_wrong_types_never_crash(self, group: str) -> None:
        text = (
            PODGROUP.format(name="g", ns="ml")
            + f"""---
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: ml}}
spec:
  {group}
  containers: [{{name: main, image: x}}]
"""
        )
        result = lint_texts({"t.yaml": text}, select=["WAS4"])
        assert result.internal_errors == []
        assert only("WAS401", result.findings) == []


# --------------------------------------------------------------------------- WAS402


WORKLOAD = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
  namespace: ml
spec:
  compositePodGroupTemplates:
  - name: cluster
    schedulingPolicy:
      gang:
        minGroupCount: 2
    podGroupTemplates:
    - name: workers
      schedulingPolicy:
        gang:
          minCount: 4
"""

REF = """\
apiVersion: scheduling.k8s.io/{version}
kind: {kind}
metadata:
  name: ref-0
  namespace: {ns}
spec:
  workloadRef:
    workloadName: {workload}
    templateName: {template}
  schedulingPolicy:
    gang:
      minCount: 4
"""


def ref(
    kind: str = "PodGroup",
    ns: str = "ml",
    workload: str = "training",
    template: str = "workers",
    version: str = "v1beta1",
) -> str:
    if kind == "CompositePodGroup":
        version = "v1alpha3"
    return REF.format(kind=kind, ns=ns, workload=workload, template=template, version=version)


class TestDanglingWorkloadRef:
    def test_nested_template_resolves(self) -> None:
        assert lint("WAS402", WORKLOAD + "---\n" + ref()) == []
        assert lint("WAS402", WORKLOAD + "---\n" + ref("CompositePodGroup", template="cluster")) == []

    def test_missing_template_is_an_error(self) -> None:
        [finding] = lint("WAS402", WORKLOAD + "---\n" + ref(template="worker"))
        assert finding.severity is Severity.ERROR
        assert 'did you mean "workers"' in finding.message
        assert finding.field_path == ("spec", "workloadRef", "templateName")

    def test_wrong_template_kind_is_an_error(self) -> None:
        [finding] = lint("WAS402", WORKLOAD + "---\n" + ref(template="cluster"))
        assert "compositePodGroupTemplates entry" in finding.message
        [finding] = lint("WAS402", WORKLOAD + "---\n" + ref("CompositePodGroup", template="workers"))
        assert finding.severity is Severity.ERROR
        assert "must reference a compositePodGroupTemplates entry" in finding.message

    def test_missing_workload_warns_only_when_namespace_has_workloads(self) -> None:
        [finding] = lint("WAS402", WORKLOAD + "---\n" + ref(workload="trainig"))
        assert finding.severity is Severity.WARNING
        assert 'Workload "trainig"' in finding.message and 'did you mean "training"' in finding.message
        assert lint("WAS402", WORKLOAD + "---\n" + ref(ns="other", workload="x")) == []

    def test_workload_in_another_file(self) -> None:
        files = {"wl.yaml": WORKLOAD, "pg.yaml": ref(template="nope")}
        [finding] = lint_files("WAS402", files)
        assert finding.path == "pg.yaml"

    def test_legacy_v1alpha1_pod_groups_count_as_templates(self) -> None:
        legacy = """\
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: training, namespace: ml}
spec:
  podGroups:
  - name: workers
    policy: {gang: {minCount: 4}}
"""
        assert lint("WAS402", legacy + "---\n" + ref()) == []

    @pytest.mark.parametrize(
        "spec",
        [
            "workloadRef: training",
            "workloadRef: {workloadName: 3, templateName: x}",
            "workloadRef: {workloadName: training}",
            "workloadRef: {workloadName: training, templateName: [x]}",
            "workloadRef: null",
        ],
    )
    def test_wrong_types_never_crash(self, spec: str) -> None:
        text = (
            WORKLOAD
            + f"""---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {{name: p, namespace: ml}}
spec:
  {spec}
"""
        )
        result = lint_texts({"t.yaml": text}, select=["WAS402"])
        assert result.internal_errors == []
        assert result.findings == []

    def test_workload_with_broken_spec(self) -> None:
        broken = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: training, namespace: ml}
spec: [1, 2]
"""
        result = lint_texts({"t.yaml": broken + "---\n" + ref()}, select=["WAS402"])
        assert result.internal_errors == []
        assert [f.severity for f in result.findings] == [Severity.ERROR]
        assert "it has no podGroupTemplates" in result.findings[0].message


# --------------------------------------------------------------------------- WAS403


JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
  namespace: ml
{metadata}spec:
  parallelism: 2
{scheduling}  template:
    spec:
{group}      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
SCHEDULING = "  scheduling:\n    schedulingPolicy:\n      gang:\n        minCount: 2\n"
GROUP = "      schedulingGroup:\n        podGroupName: byo\n"
ANNOTATION = "  annotations:\n    scheduling.k8s.io/group-template-name: workers\n"
OWNER = (
    "  ownerReferences:\n  - apiVersion: jobset.x-k8s.io/v1alpha2\n    kind: JobSet\n"
    "    name: parent\n    uid: 1\n    controller: true\n"
)


def job(metadata: str = "", scheduling: str = "", group: str = "") -> str:
    return JOB.format(metadata=metadata, scheduling=scheduling, group=group)


class TestDuplicateGroupOwnership:
    def test_scheduling_with_schedulinggroup(self) -> None:
        [finding] = lint("WAS403", job(scheduling=SCHEDULING, group=GROUP))
        assert finding.field_path == ("spec", "scheduling")
        assert 'PodGroup "byo"' in finding.message
        assert lint("WAS403", job(scheduling=SCHEDULING)) == []
        assert lint("WAS403", job(group=GROUP)) == []

    def test_cronjob_job_template(self) -> None:
        text = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    metadata:
      annotations:
        scheduling.k8s.io/group-template-name: workers
    spec:
      scheduling: {schedulingPolicy: {basic: {}}}
      template:
        spec:
          schedulingGroup: {podGroupName: byo}
          containers: [{name: main, image: x}]
"""
        findings = lint("WAS403", text)
        assert [f.field_path[-1] for f in findings] == [
            "scheduling.k8s.io/group-template-name",
            "scheduling",
        ]
        # A CronJob owns its Jobs: only the schedulingGroup reason applies to the annotation.
        assert "no controller owner" not in findings[0].message

    def test_annotation_without_controller_owner(self) -> None:
        [finding] = lint("WAS403", job(metadata=ANNOTATION))
        assert "no controller owner" in finding.message
        assert finding.field_path == (
            "metadata",
            "annotations",
            "scheduling.k8s.io/group-template-name",
        )
        assert lint("WAS403", job(metadata=ANNOTATION + OWNER)) == []
        # An owner that is not the controller does not count.
        assert lint("WAS403", job(metadata=ANNOTATION + OWNER.replace("true", "false")))

    def test_annotation_with_schedulinggroup_under_an_owner(self) -> None:
        [finding] = lint("WAS403", job(metadata=ANNOTATION + OWNER, group=GROUP))
        assert "opts the Job out" in finding.message and "no controller owner" not in finding.message

    @pytest.mark.parametrize(
        "metadata",
        [
            "  annotations: [a]\n",
            "  annotations: {scheduling.k8s.io/group-template-name: 5}\n",
            "  ownerReferences: oops\n  annotations:\n    scheduling.k8s.io/group-template-name: w\n",
        ],
    )
    def test_wrong_types_never_crash(self, metadata: str) -> None:
        result = lint_texts({"t.yaml": job(metadata=metadata)}, select=["WAS403"])
        assert result.internal_errors == []

    def test_conflicting_podgroups_across_files(self) -> None:
        one = PODGROUP.format(name="workers", ns="ml")
        other = one.replace("minCount: 2", "minCount: 3")
        findings = lint_files("WAS403", {"a.yaml": one, "b.yaml": other})
        [finding] = findings
        assert finding.path == "b.yaml" and "a.yaml:4" in finding.message
        assert "spec.schedulingPolicy.gang.minCount" in finding.message

    def test_identical_copies_other_namespaces_and_generate_name_are_fine(self) -> None:
        one = PODGROUP.format(name="workers", ns="ml")
        assert lint_files("WAS403", {"a.yaml": one, "b.yaml": one}) == []
        assert (
            lint_files(
                "WAS403",
                {
                    "a.yaml": one,
                    "b.yaml": PODGROUP.format(name="workers", ns="x").replace("2", "3"),
                },
            )
            == []
        )
        generated = one.replace("name: workers", "generateName: workers-")
        assert lint_files("WAS403", {"a.yaml": generated, "b.yaml": generated.replace("2", "5")}) == []

    def test_unserved_versions_are_left_to_was101(self) -> None:
        old = PODGROUP.format(name="workers", ns="ml").replace("v1beta1", "v1alpha2")
        new = PODGROUP.format(name="workers", ns="ml").replace("2", "4")
        assert lint_files("WAS403", {"old.yaml": old, "new.yaml": new}) == []
        # v1alpha3 and v1beta1 are served together in 1.37: the same object.
        alpha = new.replace("v1beta1", "v1alpha3").replace("4", "5")
        assert len(lint_files("WAS403", {"a.yaml": alpha, "b.yaml": new})) == 1


# --------------------------------------------------------------------------- WAS404


class TestCompetingGangSchedulers:
    def test_pod_with_volcano_scheduler(self) -> None:
        text = POD.format(ns="ml", group="g").replace("  containers:", "  schedulerName: volcano\n  containers:")
        [finding] = lint("WAS404", text)
        assert "Volcano" in finding.message and "schedulerName: volcano" in finding.message
        assert finding.field_path == ("spec", "schedulingGroup")

    def test_kai_queue_label_on_template(self) -> None:
        text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: serve, namespace: ml}
spec:
  replicas: 2
  template:
    metadata:
      labels: {kai.scheduler/queue: team-a}
      annotations: {pod-group-name: pg-1}
    spec:
      schedulingGroup: {podGroupName: serve}
      containers: [{name: main, image: x}]
"""
        [finding] = lint("WAS404", text)
        assert "label kai.scheduler/queue" in finding.message
        assert "annotation pod-group-name" in finding.message

    def test_coscheduling_label_and_cronjob_gang(self) -> None:
        text = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      scheduling: {schedulingPolicy: {gang: {minCount: 2}}}
      template:
        metadata:
          labels: {scheduling.x-k8s.io/pod-group: nightly}
        spec:
          containers: [{name: main, image: x}]
"""
        [finding] = lint("WAS404", text)
        assert "coscheduling" in finding.message
        assert finding.field_path[-1] == "gang"

    def test_basic_policy_and_plain_kai_pods_are_silent(self) -> None:
        basic = job(
            metadata="  labels: {kueue.x-k8s.io/queue-name: q}\n",
            scheduling="  scheduling: {schedulingPolicy: {basic: {}}}\n",
        )
        assert lint("WAS404", basic) == []
        kai = POD.format(ns="ml", group="g").replace(
            "  schedulingGroup:\n    podGroupName: g\n", "  schedulerName: kai-scheduler\n"
        )
        assert lint("WAS404", kai) == []

    def test_volcano_job_with_native_group(self) -> None:
        text = """\
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: mpi}
spec:
  minAvailable: 2
  tasks:
  - replicas: 2
    name: worker
    template:
      spec:
        schedulingGroup: {podGroupName: mpi}
        containers: [{name: main, image: x}]
"""
        [finding] = lint("WAS404", text)
        assert "Volcano Job" in finding.message

    def test_wrong_types_never_crash(self) -> None:
        text = """\
apiVersion: batch/v1
kind: Job
metadata: {name: j, labels: [1], annotations: oops}
spec:
  scheduling: {schedulingPolicy: {gang: 3}}
  template:
    metadata: {labels: 5}
    spec:
      schedulerName: [kai-scheduler]
      containers: [{name: main, image: x}]
"""
        result = lint_texts({"t.yaml": text}, select=["WAS404"])
        assert result.internal_errors == []
        assert result.findings == []


# --------------------------------------------------------------------------- WAS405


PRIORITY_CLASS = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: {name}
value: {value}
"""


def pod_with_class(name: str, extra: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata:
  name: p
{extra}spec:
  priorityClassName: {name}
  containers:
  - name: main
    image: x
"""


class TestUnknownPriorityClass:
    def test_silent_without_any_priority_class(self) -> None:
        assert lint("WAS405", pod_with_class("anything")) == []

    def test_set_priority_classes_across_files(self) -> None:
        files = {
            "pc.yaml": PRIORITY_CLASS.format(name="high", value=1000),
            "pod.yaml": pod_with_class("hihg"),
        }
        [finding] = lint_files("WAS405", files)
        assert finding.severity is Severity.WARNING and finding.path == "pod.yaml"
        assert 'did you mean "high"' in finding.message and "the set" in finding.message
        files["pod.yaml"] = pod_with_class("high") + "---\n" + pod_with_class("system-cluster-critical")
        assert lint_files("WAS405", files) == []

    def test_snapshot_is_the_cluster_truth(self, tmp_path: Path) -> None:
        snapshot = tmp_path / "snap.yaml"
        snapshot.write_text(
            "apiVersion: v1\nkind: List\nitems:\n"
            "- apiVersion: scheduling.k8s.io/v1\n  kind: PriorityClass\n  metadata: {name: prod}\n"
            "  value: 100000\n"
        )
        extra = {"snapshot_path": str(snapshot)}
        assert lint("WAS405", pod_with_class("prod"), extra=extra) == []
        [finding] = lint("WAS405", pod_with_class("staging"), extra=extra)
        assert "in the snapshot" in finding.message
        # KAI classes are not assumed when the snapshot says what the cluster has.
        kai_pod = pod_with_class("build", "  labels: {kai.scheduler/queue: q}\n")
        assert len(lint("WAS405", kai_pod, extra=extra)) == 1
        # Without a snapshot, a KAI pod may use the classes KAI installs.
        assert lint("WAS405", PRIORITY_CLASS.format(name="x", value=1) + "---\n" + kai_pod) == []

    def test_snapshot_without_priority_classes_is_silent(self, tmp_path: Path) -> None:
        snapshot = tmp_path / "snap.yaml"
        snapshot.write_text(
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n"
        )
        assert lint("WAS405", pod_with_class("nope"), extra={"snapshot_path": str(snapshot)}) == []

    def test_every_holder(self) -> None:
        text = (
            PRIORITY_CLASS.format(name="high", value=10)
            + """---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: c}
spec:
  priorityClassName: missing-1
  workloadRef: {workloadName: w, templateName: t}
  schedulingPolicy: {basic: {}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      priorityClassName: missing-2
      containers: [{name: main, image: x}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec:
  compositePodGroupTemplates:
  - name: t
    priorityClassName: missing-3
    schedulingPolicy: {basic: {}}
    podGroupTemplates:
    - name: leaf
      priorityClassName: missing-3
      schedulingPolicy: {basic: {}}
"""
        )
        findings = lint("WAS405", text)
        assert sorted(f.message.split('"')[1] for f in findings) == [
            "missing-1",
            "missing-2",
            "missing-3",
            "missing-3",
        ]
        assert all(f.severity is Severity.WARNING for f in findings)

    def test_template_priority_mismatch_is_an_error(self) -> None:
        text = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ml}
spec:
  podGroupTemplates:
  - name: a
    priority: 10
    schedulingPolicy: {basic: {}}
  - name: b
    priority: 10
    schedulingPolicy: {basic: {}}
  - name: c
    schedulingPolicy: {basic: {}}
"""
        [finding] = lint("WAS405", text)
        assert finding.severity is Severity.ERROR
        assert 'template "c" has priority unset' in finding.message
        assert finding.field_path == ("spec", "podGroupTemplates", 2, "name")
        assert lint("WAS405", text, target="1.36") == []

    def test_mismatch_across_a_composite_tree(self) -> None:
        text = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec:
  compositePodGroupTemplates:
  - name: top
    priorityClassName: high
    schedulingPolicy: {basic: {}}
    podGroupTemplates:
    - name: leaf
      priorityClassName: low
      schedulingPolicy: {basic: {}}
"""
        [finding] = lint("WAS405", text)  # tie: the first template is the reference
        assert 'template "leaf"' in finding.message
        assert finding.field_path[-1] == "priorityClassName"

    def test_wrong_types_never_crash(self) -> None:
        text = (
            PRIORITY_CLASS.format(name="high", value="'x'")
            + """---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec:
  podGroupTemplates:
  - name: a
    priorityClassName: [high]
    priority: {x: 1}
  - 7
  - name: b
    priorityClassName: 5
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: p}
spec: 5
"""
        )
        result = lint_texts({"t.yaml": text}, select=["WAS405"])
        assert result.internal_errors == []


# --------------------------------------------------------------------------- docs and corpus


@needs_corpus
def test_general_corpus_is_clean() -> None:
    result = run_cli("lint", "--select", "WAS4,WAS5", "--format", "json", str(CORPUS / "general"))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


def test_template_placeholders_are_not_resolved() -> None:
    """Unrendered Helm/Go templates and envsubst names cannot be looked up: no finding."""
    group = PODGROUP.format(name="gang-{{.Index}}", ns="ml")
    pod = POD.format(ns="ml", group='"gang-{{DivideInt .Index 2}}"')
    assert lint("WAS401", group + "---\n" + pod) == []
    assert lint("WAS401", group + "---\n" + POD.format(ns="ml", group="gang-${INDEX}")) == []
    assert lint("WAS402", WORKLOAD + "---\n" + ref(template='"{{ .Values.template }}"')) == []
    other = group.replace("minCount: 2", "minCount: 7")
    assert lint_files("WAS403", {"a.yaml": group, "b.yaml": other}) == []
    pc = PRIORITY_CLASS.format(name="high", value=1)
    assert lint("WAS405", pc + "---\n" + pod_with_class('"{{ .Values.priority }}"')) == []
