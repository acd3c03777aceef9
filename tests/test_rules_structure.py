"""WAS6xx beyond the fixture pairs: limits, unions, topology against snapshots, immutable fields
against a real temporary git repository (WAS604), disruption-mode conflicts."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import codes, lint_path, lint_text, lint_texts, run_cli
from waslint.core.model import Severity
from waslint.findings import Finding
from waslint.lint.engine import RunError
from waslint.lint.rules.structure.common import label_key_problem
from waslint.objects.quantity import parse_quantity


def only(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def workload(body: str, version: str = "v1beta1", name: str = "training", namespace: str = "ml") -> str:
    return (
        f"apiVersion: scheduling.k8s.io/{version}\nkind: Workload\n"
        f"metadata:\n  name: {name}\n  namespace: {namespace}\nspec:\n" + textwrap.indent(textwrap.dedent(body), "  ")
    )


def podgroup(body: str, name: str = "workers", namespace: str = "ml", version: str = "v1beta1") -> str:
    return (
        f"apiVersion: scheduling.k8s.io/{version}\nkind: PodGroup\n"
        f"metadata:\n  name: {name}\n  namespace: {namespace}\nspec:\n" + textwrap.indent(textwrap.dedent(body), "  ")
    )


def template(name: str, policy: str = "gang:\n  minCount: 2", extra: str = "") -> str:
    text = f"- name: {name}\n  schedulingPolicy:\n" + textwrap.indent(policy, "    ") + "\n"
    return text + (textwrap.indent(extra, "  ") if extra else "")


# --------------------------------------------------------------------------- WAS601


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("topology.kubernetes.io/zone", True),
        ("rack", True),
        ("example.com/rack_1.a", True),
        ("", False),
        ("/rack", False),
        ("Example.com/rack", False),
        ("a/b/c", False),
        ("example.com/", False),
        ("x" * 64, False),
        ("-rack", False),
        ("rack name", False),
    ],
)
def test_label_key_validation(key: str, ok: bool) -> None:
    assert (label_key_problem(key) is None) is ok


def test_was601_job_cronjob_and_v1alpha2_templates() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: nightly, namespace: ml}
        spec:
          schedule: "0 0 * * *"
          jobTemplate:
            spec:
              scheduling:
                schedulingConstraints:
                  topology:
                  - key: a
                  - key: b
              template:
                spec:
                  containers: [{name: c, image: x}]
        ---
        apiVersion: scheduling.k8s.io/v1alpha2
        kind: Workload
        metadata: {name: old}
        spec:
          podGroupTemplates:
          - name: w
            schedulingPolicy: {gang: {minCount: 2}}
            schedulingConstraints:
              topology: [{key: "UPPER.example.com/x"}]
        """
    )
    found = only(lint_text(text, select=["WAS601"], target="1.36"), "WAS601")
    assert len(found) == 2
    assert found[0].field_path[-2:] == ("topology", 1)
    assert "not a DNS subdomain" in found[1].message


def test_was601_wrong_types_never_crash() -> None:
    text = podgroup("schedulingPolicy: {gang: {minCount: 2}}\nschedulingConstraints:\n  topology: [5, {key: 7}, {}]\n")
    text += "---\n" + podgroup("schedulingConstraints: {topology: rack}\n", name="b")
    text += "---\n" + podgroup("schedulingConstraints: [1]\n", name="c")
    text += "---\n" + workload("podGroupTemplates: [3, {name: x, schedulingConstraints: 9}]\n")
    result = lint_texts({"t.yaml": text}, select=["WAS6"])
    assert result.internal_errors == []
    # three entries: more than one constraint, but none has a string key to check
    assert [f.message.split(" has ")[1][:1] for f in only(result.findings, "WAS601")] == ["3"]


# --------------------------------------------------------------------------- WAS602


def test_was602_more_than_eight_templates_points_at_the_ninth() -> None:
    body = "podGroupTemplates:\n" + "".join(template(f"t{i}") for i in range(9))
    found = only(lint_text(workload(body), select=["WAS602"]), "WAS602")
    assert len(found) == 1
    assert found[0].field_path == ("spec", "podGroupTemplates", 8)
    assert "9 templates" in found[0].message


def test_was602_nested_list_limit_and_v1alpha1_pod_groups() -> None:
    children = "".join(template(f"c{i}") for i in range(9))
    body = "compositePodGroupTemplates:\n- name: root\n  schedulingPolicy: {basic: {}}\n  podGroupTemplates:\n"
    body += textwrap.indent(children, "  ")
    found = only(lint_text(workload(body, "v1alpha3"), select=["WAS602"]), "WAS602")
    assert [f.field_path for f in found] == [("spec", "compositePodGroupTemplates", 0, "podGroupTemplates", 8)]
    legacy = "podGroups:\n" + "".join(f"- name: g{i}\n  policy: {{basic: {{}}}}\n" for i in range(10))
    found = only(lint_text(workload(legacy, "v1alpha1"), select=["WAS602"], target="1.35"), "WAS602")
    assert [f.field_path for f in found] == [("spec", "podGroups", 8)]


def _tree(depth: int) -> str:
    """A chain of composite templates `depth` levels deep ending in one PodGroup template."""
    text = template(f"leaf{depth}")
    for level in range(depth - 1, 0, -1):
        text = (
            f"- name: level{level}\n  schedulingPolicy: {{basic: {{}}}}\n"
            + ("  podGroupTemplates:\n" if level == depth - 1 else "  compositePodGroupTemplates:\n")
            + textwrap.indent(text, "  ")
        )
    return "compositePodGroupTemplates:\n" + text


def test_was602_depth_four_is_allowed_five_is_not() -> None:
    assert only(lint_text(workload(_tree(4), "v1alpha3"), select=["WAS602"]), "WAS602") == []
    found = only(lint_text(workload(_tree(5), "v1alpha3"), select=["WAS602"]), "WAS602")
    assert len(found) == 1
    assert "5 levels deep" in found[0].message and "at most 4" in found[0].message


def test_was602_union_of_template_lists() -> None:
    both = (
        "podGroupTemplates:\n"
        + template("a")
        + "compositePodGroupTemplates:\n"
        + ("- name: c\n  schedulingPolicy: {basic: {}}\n  podGroupTemplates:\n" + textwrap.indent(template("b"), "  "))
    )
    found = only(lint_text(workload(both, "v1alpha3"), select=["WAS602"]), "WAS602")
    assert [f.field_path for f in found] == [("spec", "compositePodGroupTemplates")]
    found = only(lint_text(workload("podGroupTemplates: []\n"), select=["WAS602"]), "WAS602")
    assert "spec.podGroupTemplates is empty" in found[0].message
    found = only(lint_text(workload("controllerRef: {kind: Job, name: j}\n"), select=["WAS602"]), "WAS602")
    assert "spec has no templates" in found[0].message


def test_was602_null_basic_is_explained() -> None:
    found = only(lint_text(podgroup("schedulingPolicy:\n  basic:\n"), select=["WAS602"]), "WAS602")
    assert len(found) == 1
    assert "`basic: {}`" in found[0].message


def test_was602_job_policy() -> None:
    job = textwrap.dedent(
        """\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j}
        spec:
          scheduling: {SCHED}
          template: {spec: {containers: [{name: c, image: x}]}}
        """
    )
    assert codes(lint_text(job.replace("{SCHED}", "{}"), select=["WAS602"])) == []
    found = lint_text(job.replace("{SCHED}", "{schedulingPolicy: {}}"), select=["WAS602"])
    assert codes(found) == ["WAS602"] and found[0].field_path == ("spec", "scheduling", "schedulingPolicy")


def test_was602_names_unique_across_lists_and_levels() -> None:
    body = "compositePodGroupTemplates:\n- name: same\n  schedulingPolicy: {basic: {}}\n  podGroupTemplates:\n"
    body += textwrap.indent(template("same"), "  ")
    found = only(lint_text(workload(body, "v1alpha3"), select=["WAS602"]), "WAS602")
    assert len(found) == 1 and "used twice" in found[0].message
    assert found[0].field_path == ("spec", "compositePodGroupTemplates", 0, "podGroupTemplates", 0, "name")


# --------------------------------------------------------------------------- WAS603


def _snapshot(tmp_path: Path, nodes: list[tuple[str, dict[str, str], dict[str, str], bool]]) -> str:
    items = []
    for name, labels, allocatable, cordoned in nodes:
        items.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "spec": {"unschedulable": True} if cordoned else {},
                "status": {"allocatable": allocatable},
            }
        )
    import yaml

    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


ZONE = "topology.kubernetes.io/zone"


def test_was603_needs_a_snapshot() -> None:
    text = podgroup("schedulingPolicy: {gang: {minCount: 2}}\nschedulingConstraints: {topology: [{key: nope}]}\n")
    assert only(lint_text(text, select=["WAS603"]), "WAS603") == []


def test_was603_one_pod_per_node_assumed_without_requests(tmp_path: Path) -> None:
    snap = _snapshot(
        tmp_path,
        [
            ("a", {ZONE: "z1"}, {}, False),
            ("b", {ZONE: "z1"}, {}, False),
            ("c", {ZONE: "z1"}, {}, True),
            ("d", {ZONE: "z2"}, {}, False),
        ],
    )
    text = podgroup(
        f"schedulingPolicy: {{gang: {{minCount: 3}}}}\nschedulingConstraints: {{topology: [{{key: {ZONE}}}]}}\n"
    )
    found = only(lint_text(text, select=["WAS603"], extra={"snapshot_path": snap}), "WAS603")
    assert len(found) == 1
    assert "2 schedulable node(s)" in found[0].message and "several pods share a node" in found[0].message
    ok = text.replace("minCount: 3", "minCount: 2")
    assert only(lint_text(ok, select=["WAS603"], extra={"snapshot_path": snap}), "WAS603") == []


def test_was603_member_pods_of_a_podgroup_in_another_file(tmp_path: Path) -> None:
    snap = _snapshot(
        tmp_path,
        [
            ("a", {ZONE: "z1"}, {"cpu": "8", "pods": "110"}, False),
            ("b", {ZONE: "z1"}, {"cpu": "8", "pods": "110"}, False),
        ],
    )
    group = podgroup(
        f"schedulingPolicy: {{gang: {{minCount: 4}}}}\nschedulingConstraints: {{topology: [{{key: {ZONE}}}]}}\n"
    )
    pod = textwrap.dedent(
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: w-0, namespace: ml}
        spec:
          schedulingGroup: {podGroupName: workers}
          containers: [{name: c, image: x, resources: {requests: {cpu: "CPU"}}}]
        """
    )
    small = lint_texts(
        {"pg.yaml": group, "pod.yaml": pod.replace("CPU", "500m")}, select=["WAS603"], extra={"snapshot_path": snap}
    )
    assert only(small.findings, "WAS603") == []  # 16 pods per node by CPU
    big = lint_texts(
        {"pg.yaml": group, "pod.yaml": pod.replace("CPU", "6")}, select=["WAS603"], extra={"snapshot_path": snap}
    )
    found = only(big.findings, "WAS603")
    assert len(found) == 1 and "room for 2 of the 4 pods" in found[0].message


def test_was603_basic_and_composite_only_check_the_key(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path, [("a", {ZONE: "z1"}, {}, False)])
    basic = podgroup(f"schedulingPolicy: {{basic: {{}}}}\nschedulingConstraints: {{topology: [{{key: {ZONE}}}]}}\n")
    composite = textwrap.dedent(
        f"""\
        apiVersion: scheduling.k8s.io/v1alpha3
        kind: CompositePodGroup
        metadata: {{name: root, namespace: ml}}
        spec:
          workloadRef: {{workloadName: w, templateName: root}}
          schedulingPolicy: {{gang: {{minGroupCount: 5}}}}
          schedulingConstraints: {{topology: [{{key: {ZONE}}}]}}
        """
    )
    result = lint_texts({"a.yaml": basic, "b.yaml": composite}, select=["WAS603"], extra={"snapshot_path": snap})
    assert only(result.findings, "WAS603") == []


@pytest.mark.parametrize(
    ("raw", "value"),
    [("500m", 0.5), ("4Gi", 4 * 2**30), (8, 8.0), ("1e3", 1000.0), ("2k", 2000.0), ("x", None), (True, None)],
)
def test_parse_quantity(raw: object, value: float | None) -> None:
    assert parse_quantity(raw) == value


# --------------------------------------------------------------------------- WAS605


def test_was605_job_without_policy_is_basic() -> None:
    job = textwrap.dedent(
        """\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j}
        spec:
          scheduling:
            disruptionMode: {all: {}}
          template: {spec: {containers: [{name: c, image: x}]}}
        """
    )
    found = only(lint_text(job, select=["WAS605"]), "WAS605")
    assert len(found) == 1 and "a Job's default is basic" in found[0].message
    assert found[0].severity == Severity.ERROR  # upstream's Job validation rejects it


def test_was605_outside_jobs_stays_a_warning() -> None:
    text = podgroup("schedulingPolicy: {basic: {}}\ndisruptionMode: {all: {}}\n")
    (found,) = only(lint_text(text, select=["WAS605"]), "WAS605")
    assert found.severity == Severity.WARNING


def test_was605_1_36_string_form() -> None:
    text = podgroup("schedulingPolicy: {basic: {}}\ndisruptionMode: PodGroup\n", version="v1alpha2")
    assert codes(lint_text(text, select=["WAS605"], target="1.36")) == ["WAS605"]


def test_was605_parent_composite_object_across_files() -> None:
    parent = textwrap.dedent(
        """\
        apiVersion: scheduling.k8s.io/v1alpha3
        kind: CompositePodGroup
        metadata: {name: root, namespace: ml}
        spec:
          workloadRef: {workloadName: w, templateName: root}
          schedulingPolicy: {gang: {minGroupCount: 2}}
          disruptionMode: {all: {}}
        """
    )
    unset = podgroup("schedulingPolicy: {gang: {minCount: 2}}\nparentCompositePodGroupName: root\n", name="a")
    single = podgroup(
        "schedulingPolicy: {gang: {minCount: 2}}\nparentCompositePodGroupName: root\ndisruptionMode: {single: {}}\n",
        name="b",
    )
    other_ns = podgroup(
        "schedulingPolicy: {gang: {minCount: 2}}\nparentCompositePodGroupName: root\n", name="c", namespace="other"
    )
    result = lint_texts({"p.yaml": parent, "c.yaml": "---\n".join([unset, single, other_ns])}, select=["WAS605"])
    found = only(result.findings, "WAS605")
    assert [(f.object_id.name if f.object_id else None) for f in found] == ["a", "b"]
    assert "defaults to single" in found[0].message


# --------------------------------------------------------------------------- WAS604


def _git(repo: Path, *args: str) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    return root


def _commit(repo: Path, files: dict[str, str], message: str = "c") -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


BASE_WORKLOAD = workload(
    "podGroupTemplates:\n"
    + template("workers", "gang:\n  minCount: 4", "disruptionMode: {single: {}}\npriorityClassName: high\n")
    + template("leader", "basic: {}")
)


def _was604(*paths: Path | str, ref: str = "HEAD") -> list[Finding]:
    return only(lint_path(*paths, select=["WAS604"], extra={"base_ref": ref}).findings, "WAS604")


def test_was604_immutable_template_fields(repo: Path) -> None:
    _commit(repo, {"deploy/wl.yaml": BASE_WORKLOAD})
    changed = BASE_WORKLOAD.replace("minCount: 4", "minCount: 6")  # mutable
    (repo / "deploy/wl.yaml").write_text(changed)
    assert _was604(repo / "deploy/wl.yaml") == []
    changed = changed.replace("single: {}", "all: {}").replace("basic: {}", "gang: {minCount: 1}")
    (repo / "deploy/wl.yaml").write_text(changed)
    found = _was604(repo / "deploy/wl.yaml")
    messages = sorted(f.message for f in found)
    assert len(found) == 2
    assert "disruptionMode changed from" in messages[1] and "new Workload revision" in messages[1]
    assert "schedulingPolicy changed from basic to gang" in messages[0]
    assert all("HEAD:deploy/wl.yaml" in m for m in messages)


def test_was604_templates_added_removed_and_controller_ref(repo: Path) -> None:
    _commit(repo, {"wl.yaml": BASE_WORKLOAD})
    text = BASE_WORKLOAD.replace("- name: leader", "- name: driver") + "  controllerRef: {kind: Job, name: j}\n"
    (repo / "wl.yaml").write_text(text)
    found = _was604(repo / "wl.yaml")
    text_of = " | ".join(f.message for f in found)
    assert "'driver' was added" in text_of and "'leader' was removed" in text_of
    assert "spec.controllerRef changed" in text_of


def test_was604_podgroup_defaults_and_mincount(repo: Path) -> None:
    base = podgroup("workloadRef: {workloadName: w, templateName: t}\nschedulingPolicy: {gang: {minCount: 2}}\n")
    _commit(repo, {"pg.yaml": base})
    same = (
        base.replace("minCount: 2", "minCount: 5")
        + "  disruptionMode: {single: {}}\n  preemptionPolicy: PreemptLowerPriority\n"
    )
    (repo / "pg.yaml").write_text(same)
    assert _was604(repo / "pg.yaml") == []  # minCount mutable; the values written are the API defaults
    (repo / "pg.yaml").write_text(base.replace("templateName: t", "templateName: t2"))
    found = _was604(repo / "pg.yaml")
    assert len(found) == 1 and found[0].field_path == ("spec", "workloadRef")
    assert "immutable apart from gang.minCount" in found[0].message


def test_was604_composite_every_field(repo: Path) -> None:
    cpg = textwrap.dedent(
        """\
        apiVersion: scheduling.k8s.io/v1alpha3
        kind: CompositePodGroup
        metadata: {name: root, namespace: ml}
        spec:
          workloadRef: {workloadName: w, templateName: root}
          schedulingPolicy: {gang: {minGroupCount: 2}}
        """
    )
    _commit(repo, {"cpg.yaml": cpg})
    (repo / "cpg.yaml").write_text(cpg.replace("minGroupCount: 2", "minGroupCount: 3"))
    found = _was604(repo / "cpg.yaml")
    assert len(found) == 1 and "schedulingPolicy changed" in found[0].message


JOB = textwrap.dedent(
    """\
    apiVersion: batch/v1
    kind: Job
    metadata: {name: train, namespace: ml}
    spec:
      parallelism: 4
      scheduling:
        schedulingPolicy: {gang: {minCount: 4}}
      template: {spec: {containers: [{name: c, image: x}]}}
    """
)


def test_was604_job_scheduling(repo: Path) -> None:
    _commit(repo, {"job.yaml": JOB})
    (repo / "job.yaml").write_text(JOB.replace("minCount: 4", "minCount: 2"))
    assert _was604(repo / "job.yaml") == []
    (repo / "job.yaml").write_text(JOB.replace("{gang: {minCount: 4}}", "{basic: {}}"))
    assert len(_was604(repo / "job.yaml")) == 1
    without = JOB.replace("  scheduling:\n    schedulingPolicy: {gang: {minCount: 4}}\n", "")
    (repo / "job.yaml").write_text(without)
    found = _was604(repo / "job.yaml")
    assert len(found) == 1 and "spec.scheduling was removed" in found[0].message


def test_was604_matching_by_group_kind_namespace_name_across_files(repo: Path) -> None:
    second = podgroup("schedulingPolicy: {basic: {}}\n", name="other")
    _commit(repo, {"a.yaml": BASE_WORKLOAD + "---\n" + second, "b.yaml": "{}\n"})
    # the Workload moves to b.yaml (changed); a.yaml keeps the PodGroup; a new namespace is a new object
    changed = BASE_WORKLOAD.replace("priorityClassName: high", "priorityClassName: low")
    (repo / "a.yaml").write_text(second)
    (repo / "b.yaml").write_text(changed + "---\n" + changed.replace("namespace: ml", "namespace: prod"))
    found = _was604(repo / "a.yaml", repo / "b.yaml")
    assert len(found) == 1 and "priorityClassName changed" in found[0].message
    assert found[0].path.endswith("b.yaml") and found[0].object_id is not None
    assert found[0].object_id.namespace == "ml"


def test_was604_version_moves(repo: Path) -> None:
    _commit(repo, {"wl.yaml": BASE_WORKLOAD.replace("v1beta1", "v1alpha3")})
    (repo / "wl.yaml").write_text(BASE_WORKLOAD.replace("single: {}", "all: {}"))
    assert len(_was604(repo / "wl.yaml")) == 1  # v1alpha3 and v1beta1 are the same object
    old = "apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: training, namespace: ml}\n"
    old += "spec:\n  podGroupTemplates:\n  - name: workers\n    schedulingPolicy: {gang: {minCount: 4}}\n"
    old += "    disruptionMode: Pod\n"
    _commit(repo, {"wl.yaml": old})
    (repo / "wl.yaml").write_text(BASE_WORKLOAD.replace("single: {}", "all: {}"))
    assert _was604(repo / "wl.yaml") == []  # rewritten across a removed version: recreated anyway


def test_was604_new_file_relative_path_and_subfolder(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _commit(repo, {"deploy/wl.yaml": BASE_WORKLOAD})
    (repo / "deploy/wl.yaml").write_text(BASE_WORKLOAD.replace("high", "low"))
    (repo / "deploy/new.yaml").write_text(BASE_WORKLOAD.replace("training", "fresh"))
    monkeypatch.chdir(repo / "deploy")
    found = _was604(".", ref="main")
    assert [(f.path, f.field_path[-1]) for f in found] == [("wl.yaml", "priorityClassName")]


def test_was604_v1alpha2_whole_list(repo: Path) -> None:
    old = "apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: w}\n"
    old += "spec:\n  podGroupTemplates:\n  - name: a\n    schedulingPolicy: {gang: {minCount: 4}}\n"
    _commit(repo, {"wl.yaml": old})
    (repo / "wl.yaml").write_text(old.replace("minCount: 4", "minCount: 5"))
    found = only(
        lint_path(repo / "wl.yaml", select=["WAS604"], target="1.36", extra={"base_ref": "HEAD"}).findings, "WAS604"
    )
    assert len(found) == 1 and "whole template list is immutable" in found[0].message


def test_was604_unusable_base_is_a_run_error(repo: Path, tmp_path: Path) -> None:
    _commit(repo, {"wl.yaml": BASE_WORKLOAD})
    with pytest.raises(RunError, match="not a commit"):
        lint_path(repo / "wl.yaml", select=["WAS604"], extra={"base_ref": "no-such-branch"})
    with pytest.raises(RunError, match="not a valid git revision"):
        lint_path(repo / "wl.yaml", select=["WAS604"], extra={"base_ref": "--output=x"})
    outside = tmp_path / "loose.yaml"
    outside.write_text(BASE_WORKLOAD)
    with pytest.raises(RunError, match="not inside a git work tree"):
        lint_path(outside, select=["WAS604"], extra={"base_ref": "HEAD"})


def test_was604_cli_exit_codes(repo: Path) -> None:
    _commit(repo, {"wl.yaml": BASE_WORKLOAD})
    (repo / "wl.yaml").write_text(BASE_WORKLOAD.replace("high", "low"))
    done = run_cli("lint", "--select", "WAS604", "--base", "HEAD", "wl.yaml", cwd=repo)
    assert done.returncode == 1, done.stderr
    assert "WAS604" in done.stdout and "priorityClassName changed" in done.stdout
    bad = run_cli("lint", "--base", "nope", "wl.yaml", cwd=repo)
    assert bad.returncode == 2 and "not a commit" in bad.stderr
    stdin = run_cli("lint", "--base", "HEAD", "-", stdin=BASE_WORKLOAD, cwd=repo)
    assert stdin.returncode == 2 and "stdin" in stdin.stderr


# The Job's update markers on a CronJob's jobTemplate (kubernetes/kubernetes
# test/declarative_validation/batch/cronjob/declarative_validation_test.go TestDeclarativeValidateUpdate).
CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "5 5 * * *"
  jobTemplate:
    spec:
      parallelism: 4
      completions: 4
      completionMode: Indexed
      scheduling:
        schedulingPolicy: {basic: {}}
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: i}]
"""


def test_was604_cronjob_job_template_scheduling(repo: Path) -> None:
    _commit(repo, {"cj.yaml": CRONJOB})
    # adding disruptionMode is rejected; switching basic to gang is allowed for a CronJob
    changed = CRONJOB.replace("{basic: {}}", "{gang: {minCount: 4}}\n        disruptionMode: {all: {}}")
    (repo / "cj.yaml").write_text(changed)
    found = _was604(repo / "cj.yaml")
    assert [f.field_path for f in found] == [("spec", "jobTemplate", "spec", "scheduling", "disruptionMode")]
    assert "Job's update rules" in found[0].message
    (repo / "cj.yaml").write_text(CRONJOB.replace("{basic: {}}", "{gang: {minCount: 4}}"))
    assert _was604(repo / "cj.yaml") == []
    (repo / "cj.yaml").write_text(CRONJOB.replace("      scheduling:\n        schedulingPolicy: {basic: {}}\n", ""))
    assert [f.field_path for f in _was604(repo / "cj.yaml")] == [("spec", "jobTemplate", "spec", "scheduling")]


def test_was604_v1alpha1_controller_ref_may_be_set_once(repo: Path) -> None:
    # validateWorkloadSpecUpdate of the 1.35 line checks controllerRef only when the stored one is set
    old = "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\n"
    old += "spec:\n  podGroups:\n  - name: a\n    policy: {gang: {minCount: 4}}\n"
    _commit(repo, {"wl.yaml": old})
    with_ref = old.replace("spec:\n", "spec:\n  controllerRef: {apiGroup: batch, kind: Job, name: j}\n")
    (repo / "wl.yaml").write_text(with_ref)
    options = {"select": ["WAS604"], "target": "1.35", "extra": {"base_ref": "HEAD"}}
    assert only(lint_path(repo / "wl.yaml", **options).findings, "WAS604") == []
    _commit(repo, {"wl.yaml": with_ref})
    (repo / "wl.yaml").write_text(with_ref.replace("name: j}", "name: k}"))
    found = only(lint_path(repo / "wl.yaml", **options).findings, "WAS604")
    assert [f.field_path for f in found] == [("spec", "controllerRef")]


KUBEADM_TAS_OFF = """\
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
apiServer:
  extraArgs:
  - name: feature-gates
    value: GenericWorkload=true,TopologyAwareWorkloadScheduling=false
"""


def test_was604_a_field_the_strategy_drops_is_no_immutability_error(repo: Path) -> None:
    # kubernetes/kubernetes pkg/registry/scheduling/workload/strategy_test.go (1.36 line)
    # TestStrategyUpdate "topology constraint addition is dropped with TAS disabled"
    old = "apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\nmetadata: {name: w}\n"
    old += "spec:\n  podGroupTemplates:\n  - name: a\n    schedulingPolicy: {gang: {minCount: 4}}\n"
    _commit(repo, {"wl.yaml": old, "kubeadm.yaml": KUBEADM_TAS_OFF})
    added = old + "    schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}\n"
    (repo / "wl.yaml").write_text(added)
    options: dict[str, Any] = {"select": ["WAS604", "WAS702"], "target": "1.36", "extra": {"base_ref": "HEAD"}}
    found = lint_path(repo / "wl.yaml", repo / "kubeadm.yaml", **options).findings
    assert {f.code for f in found} == {"WAS702"}, [(f.code, f.message) for f in found]
    dropped = [f for f in found if f.field_path[-1] == "schedulingConstraints"]
    assert len(dropped) == 1 and "silently drops the field on create" in dropped[0].message
    # without the inventory the gate counts as on: the whole template list changed
    alone = only(lint_path(repo / "wl.yaml", **options).findings, "WAS604")
    assert len(alone) == 1 and "whole template list is immutable" in alone[0].message
