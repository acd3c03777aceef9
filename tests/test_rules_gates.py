"""WAS7xx beyond the fixture pairs: the gate table, every inventory source, --gates FILE, the
known-off rule (silent without an inventory), cluster scopes, runtime-config, dependencies."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import codes, lint_text, lint_texts, run_cli
from waslint.findings import Finding
from waslint.knowledge.gates import gate_table
from waslint.lint.engine import RunError
from waslint.objects.gate_inventory import parse_feature_gates, parse_runtime_config


def only(findings: list[Finding], *wanted: str) -> list[Finding]:
    return [f for f in findings if f.code in wanted]


def static_pod(component: str, *flags: str, name: str | None = None) -> str:
    lines = "".join(f"    - {flag}\n" for flag in flags)
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name or component}\n  namespace: kube-system\n"
        f"spec:\n  containers:\n  - name: {component}\n    image: registry.k8s.io/{component}:v1.37.0\n"
        f"    command:\n    - {component}\n{lines}"
    )


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

PODGROUP_TOPOLOGY = textwrap.dedent(
    """\
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata: {name: workers, namespace: ml}
    spec:
      schedulingPolicy: {gang: {minCount: 2}}
      schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
    """
)


def gates_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "gates.yaml"
    path.write_text(textwrap.dedent(text))
    return str(path)


# --------------------------------------------------------------------------- the table


def test_gate_table_covers_every_release_fact() -> None:
    table = gate_table()
    assert table["GenericWorkload"].at("1.37").stage == "beta"  # type: ignore[union-attr]
    assert table["GenericWorkload"].at("1.37").default is False  # type: ignore[union-attr]
    assert table["GangScheduling"].at("1.37").removed  # type: ignore[union-attr]
    assert table["GangScheduling"].at("1.37").merged_into == "GenericWorkload"  # type: ignore[union-attr]
    assert not table["GangScheduling"].at("1.37").confirmed  # type: ignore[union-attr]
    assert table["WorkloadAwarePreemption"].at("1.35") is None
    assert not table["TopologyAwareWorkloadScheduling"].at("1.37").confirmed  # type: ignore[union-attr]
    assert "kubelet" in table["DRAWorkloadResourceClaims"].components
    assert table["CompositePodGroup"].at("1.37").depends_on == (  # type: ignore[union-attr]
        "GenericWorkload",
        "TopologyAwareWorkloadScheduling",
    )
    assert not table["PodGroupPreemptionPolicy"].components_confirmed
    for info in table.values():
        for entry in info.releases.values():
            assert entry.removed or entry.stage in ("alpha", "beta", "ga")
            assert entry.confirmed or entry.note, f"{info.name} {entry.release}: unconfirmed without a note"


def test_flag_parsers() -> None:
    assert parse_feature_gates("A=true, B=False,bad,C=maybe,=true") == [("A", True), ("B", False)]
    assert parse_runtime_config("api/alpha,scheduling.k8s.io/v1beta1=true") == [
        ("api/alpha", None),
        ("scheduling.k8s.io/v1beta1", "true"),
    ]


# --------------------------------------------------------------------------- no inventory: silent


def test_no_inventory_no_findings() -> None:
    text = "---\n".join([JOB, PODGROUP_TOPOLOGY])
    assert only(lint_text(text), "WAS701", "WAS702", "WAS703") == []


def test_uncovered_component_is_unknown_not_off(tmp_path: Path) -> None:
    # only the kubelet is known: the Job's gate lives on kube-apiserver and kube-controller-manager
    path = gates_file(tmp_path, "kubelet: {DRAWorkloadResourceClaims: true}\n")
    assert only(lint_text(JOB, extra={"gates_path": path}), "WAS7") == []
    assert only(lint_text(JOB, extra={"gates_path": path}), "WAS702") == []


# --------------------------------------------------------------------------- --gates FILE


def test_gates_file_known_off_and_positions(tmp_path: Path) -> None:
    path = gates_file(
        tmp_path,
        """\
        kube-apiserver:
          GenericWorkload: true
          WorkloadWithJob: false
        kube-controller-manager:
          GenericWorkload: true
        """,
    )
    found = only(lint_text(JOB, extra={"gates_path": path}), "WAS702")
    # the gate only: v1alpha3 is not known to be off (a --gates file carries no --runtime-config)
    assert len(found) == 1
    gate = found[0]
    assert "set to false in --gates" in gate.message
    assert gate.field_path == ("spec", "scheduling")


def test_gates_file_findings_point_into_the_file(tmp_path: Path) -> None:
    path = gates_file(
        tmp_path,
        """\
        kube-scheduler:
          GenericWorkload: true
          GangScheduling: true
        kube-apiserver:
          GenericWorkload: true
        kube-controller-manager: {}
        """,
    )
    findings = lint_text("{}\n", extra={"gates_path": path})
    removed = only(findings, "WAS703")
    assert len(removed) == 1 and removed[0].path == path and removed[0].span.line == 3
    inconsistent = only(findings, "WAS701")
    assert len(inconsistent) == 1 and inconsistent[0].span.line == 6
    assert "off on kube-controller-manager" in inconsistent[0].message


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("- a\n", "expected one YAML mapping"),
        ("scheduler: {GenericWorkload: true}\n", "unknown component 'scheduler'"),
        ("kubelet: {GenericWorkload: 'yes'}\n", "expected true or false"),
        ("kubelet: [GenericWorkload]\n", "expected a mapping"),
        ("kubelet: {a: b\n", "gates.yaml:"),
        ("", "expected one YAML mapping"),
    ],
)
def test_unusable_gates_file_is_a_run_error(tmp_path: Path, text: str, error: str) -> None:
    path = gates_file(tmp_path, text)
    with pytest.raises(RunError, match=error):
        lint_text("{}\n", extra={"gates_path": path})


def test_unusable_gates_file_exits_2(tmp_path: Path) -> None:
    path = gates_file(tmp_path, "apiserver: {}\n")
    manifest = tmp_path / "m.yaml"
    manifest.write_text(JOB)
    done = run_cli("lint", "--gates", path, str(manifest))
    assert done.returncode == 2 and "unknown component" in done.stderr
    good = gates_file(tmp_path, "kube-apiserver: {WorkloadWithJob: false}\n")
    done = run_cli("lint", "--select", "WAS7", "--gates", good, str(manifest))
    assert done.returncode == 1 and "WAS702" in done.stdout


# --------------------------------------------------------------------------- sources


def test_kubeadm_v1beta3_map_and_v1beta4_list_forms() -> None:
    v1beta3 = textwrap.dedent(
        """\
        apiVersion: kubeadm.k8s.io/v1beta3
        kind: ClusterConfiguration
        apiServer:
          extraArgs:
            feature-gates: GenericWorkload=true
        scheduler:
          extraArgs:
            feature-gates: GenericWorkload=false
        """
    )
    v1beta4 = v1beta3.replace("v1beta3", "v1beta4").replace(
        "extraArgs:\n    feature-gates: GenericWorkload=true",
        "extraArgs:\n    - name: feature-gates\n      value: GenericWorkload=true",
    )
    v1beta4 = v1beta4.replace(
        "extraArgs:\n    feature-gates: GenericWorkload=false",
        "extraArgs:\n    - name: feature-gates\n      value: GenericWorkload=false",
    )
    for text in (v1beta3, v1beta4):
        found = only(lint_text(text, select=["WAS701"]), "WAS701")
        # the scheduler says false; the controller-manager (covered, default off) is off too
        assert sorted(f.message.split(" but off on ")[1].split(" ")[0] for f in found) == [
            "kube-controller-manager",
            "kube-scheduler",
        ]
        scheduler = next(f for f in found if "off on kube-scheduler" in f.message)
        assert scheduler.field_path[:2] == ("scheduler", "extraArgs")
        assert "scheduler.extraArgs of the kubeadm ClusterConfiguration" in scheduler.message


def test_kubeadm_top_level_feature_gates_are_kubeadm_gates() -> None:
    text = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nfeatureGates: {GangScheduling: true}\n"
    assert only(lint_text(text), "WAS703") == []


def test_kubelet_extra_args_override_kubelet_configuration() -> None:
    control_plane = "---\n".join(
        static_pod(c, "--feature-gates=GenericWorkload=true,DRAWorkloadResourceClaims=true")
        for c in ("kube-apiserver", "kube-scheduler", "kube-controller-manager")
    )
    kubelet = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates: {}\n"
    init = textwrap.dedent(
        """\
        apiVersion: kubeadm.k8s.io/v1beta3
        kind: InitConfiguration
        nodeRegistration:
          kubeletExtraArgs:
            feature-gates: DRAWorkloadResourceClaims=true
        """
    )
    assert only(lint_texts({"cp.yaml": control_plane, "k.yaml": kubelet}).findings, "WAS701")
    result = lint_texts({"cp.yaml": control_plane, "k.yaml": kubelet + "---\n" + init})
    assert only(result.findings, "WAS701") == []


def test_static_pod_flag_forms_and_shell_command() -> None:
    two_tokens = static_pod("kube-apiserver", "--feature-gates", "WorkloadWithJob=false")
    shell = textwrap.dedent(
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: kcm, namespace: kube-system}
        spec:
          containers:
          - name: kcm
            image: registry.k8s.io/kube-controller-manager:v1.37.0
            command: ["/bin/sh", "-c", "exec /usr/local/bin/kube-controller-manager --feature-gates=WorkloadWithJob=false"]
        """
    )
    found = only(lint_texts({"a.yaml": two_tokens, "b.yaml": shell, "job.yaml": JOB}).findings, "WAS702")
    gate = [f for f in found if "WorkloadWithJob" in f.message]
    assert gate and "off on kube-apiserver and kube-controller-manager" in gate[0].message


def test_image_identifies_the_component_when_args_only() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: v1
        kind: Pod
        metadata: {name: sched, namespace: kube-system}
        spec:
          containers:
          - name: scheduler
            image: registry.k8s.io/kube-scheduler:v1.37.0@sha256:abc
            args: ["--feature-gates=GangScheduling=true"]
        """
    )
    found = only(lint_text(text), "WAS703")
    assert len(found) == 1 and "on kube-scheduler" in found[0].message
    assert found[0].field_path == ("spec", "containers", 0, "args", 0)


def test_other_deployments_with_feature_gates_are_not_components() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: kuberay-operator}
        spec:
          template:
            spec:
              containers:
              - name: kuberay-operator
                args: ["--feature-gates=GangScheduling=true"]
        """
    )
    assert only(lint_text(text), "WAS7") == []
    assert only(lint_text(text), "WAS701", "WAS702", "WAS703") == []


KIND_A = textwrap.dedent(
    """\
    kind: Cluster
    apiVersion: kind.x-k8s.io/v1alpha4
    featureGates:
      GenericWorkload: true
      DRAWorkloadResourceClaims: true
    runtimeConfig:
      api/beta: "true"
    """
)
KIND_B = textwrap.dedent(
    """\
    kind: Cluster
    apiVersion: kind.x-k8s.io/v1alpha4
    nodes:
    - role: control-plane
      kubeadmConfigPatches:
      - |
        kind: ClusterConfiguration
        apiServer:
          extraArgs:
            feature-gates: "GenericWorkload=true,GangScheduling=true"
        scheduler:
          extraArgs:
            feature-gates: "GenericWorkload=true"
    """
)


def test_kind_clusters_are_separate_clusters() -> None:
    result = lint_texts({"a.yaml": KIND_A, "b.yaml": KIND_B})
    inconsistent = only(result.findings, "WAS701")
    # cluster B: GenericWorkload on apiserver and scheduler but not the controller-manager;
    # cluster A's DRAWorkloadResourceClaims is not compared with cluster B
    assert len(inconsistent) == 1 and inconsistent[0].path == "b.yaml"
    assert "off on kube-controller-manager" in inconsistent[0].message
    assert "controllerManager.extraArgs of the ClusterConfiguration" in inconsistent[0].message
    removed = only(result.findings, "WAS703")
    assert len(removed) == 1 and "GangScheduling=true on kube-apiserver:" in removed[0].message
    assert removed[0].field_path == ("nodes", 0, "kubeadmConfigPatches", 0)


def test_kind_feature_gates_reach_every_component_and_runtime_config() -> None:
    podgroup = PODGROUP_TOPOLOGY.replace(
        "  schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}\n",
        "  resourceClaims: [{name: gpus, resourceClaimTemplateName: gpu}]\n",
    )
    assert only(lint_texts({"kind.yaml": KIND_A, "pg.yaml": podgroup}).findings, "WAS702") == []
    alpha = podgroup.replace("v1beta1", "v1alpha3")
    found = only(lint_texts({"kind.yaml": KIND_A, "pg.yaml": alpha}).findings, "WAS702")
    assert len(found) == 1 and "--runtime-config=scheduling.k8s.io/v1alpha3=true" in found[0].message


def test_wrong_types_never_crash() -> None:
    text = "---\n".join(
        [
            "apiVersion: kind.x-k8s.io/v1alpha4\nkind: Cluster\nfeatureGates: [1]\nruntimeConfig: x\n"
            "kubeadmConfigPatches: [5, '::: not yaml: [', '- a list']\nnodes: [3, {kubeadmConfigPatches: x}]\n",
            "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates: {A: maybe, 3: true}\n",
            "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\napiServer: {extraArgs: 5}\n"
            "scheduler: {extraArgs: [5, {name: 3}, {name: feature-gates, value: {}}]}\n",
            "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration: {kubeletExtraArgs: x}\n",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{command: 5}, {command: [1, 'kube-apiserver',"
            " '--feature-gates'], args: {}}]}\n",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec: {containers: [{command: ['sh', '-c', 'kube-scheduler \"']}]}\n",
        ]
    )
    result = lint_texts({"t.yaml": text + "---\n" + JOB})
    assert result.internal_errors == []


# --------------------------------------------------------------------------- WAS701


def test_ha_control_plane_instances_must_agree() -> None:
    a = static_pod("kube-apiserver", "--feature-gates=GenericWorkload=true", name="kube-apiserver-a")
    b = static_pod("kube-apiserver", "--feature-gates=GenericWorkload=false", name="kube-apiserver-b")
    found = only(lint_texts({"a.yaml": a, "b.yaml": b}).findings, "WAS701")
    assert len(found) == 1 and found[0].path == "b.yaml"
    assert "set to false in kube-apiserver static Pod kube-system/kube-apiserver-b" in found[0].message


def test_component_absent_is_not_reported() -> None:
    text = static_pod("kube-apiserver", "--feature-gates=GenericWorkload=true")
    assert only(lint_text(text), "WAS701") == []


def test_unconfirmed_component_list_is_a_warning() -> None:
    text = static_pod("kube-apiserver", "--feature-gates=PodGroupPreemptionPolicy=true") + "---\n"
    text += static_pod("kube-scheduler", "--feature-gates=PodGroupPreemptionPolicy=false")
    found = only(lint_text(text), "WAS701")
    assert len(found) == 1 and found[0].severity.label == "warning"
    assert "not confirmed" in found[0].message


def test_all_alpha_counts_for_alpha_gates() -> None:
    apiserver = static_pod("kube-apiserver", "--feature-gates=AllAlpha=true", "--runtime-config=api/alpha=true")
    text = apiserver + "---\n" + static_pod("kube-controller-manager", "--feature-gates=AllAlpha=true") + "---\n" + JOB
    assert only(lint_text(text), "WAS702", "WAS701") == []
    # a second kube-apiserver without AllAlpha: the instances disagree
    text += "---\n" + static_pod("kube-apiserver", "--runtime-config=api/alpha=true", name="x")
    found = only(lint_text(text), "WAS701")
    assert found and all(f.object_id and f.object_id.name == "x" for f in found)


# --------------------------------------------------------------------------- WAS702


def test_unconfirmed_default_is_not_known_off() -> None:
    """TopologyAwareWorkloadScheduling's 1.37 stage is open: only an explicit false counts."""
    apiserver = static_pod(
        "kube-apiserver",
        "--feature-gates=GenericWorkload=true",
        "--runtime-config=scheduling.k8s.io/v1beta1=true",
    )
    found = only(lint_texts({"a.yaml": apiserver, "pg.yaml": PODGROUP_TOPOLOGY}).findings, "WAS702")
    assert found == []
    explicit = apiserver.replace("GenericWorkload=true", "GenericWorkload=true,TopologyAwareWorkloadScheduling=false")
    found = only(lint_texts({"a.yaml": explicit, "pg.yaml": PODGROUP_TOPOLOGY}).findings, "WAS702")
    assert len(found) == 1 and found[0].field_path == ("spec", "schedulingConstraints")


def test_gate_on_anywhere_leaves_it_to_was701() -> None:
    apiserver = static_pod("kube-apiserver", "--feature-gates=WorkloadWithJob=true,GenericWorkload=true")
    kcm = static_pod("kube-controller-manager", "--feature-gates=GenericWorkload=true")
    result = lint_texts({"a.yaml": apiserver, "b.yaml": kcm, "job.yaml": JOB}, select=["WAS7"])
    assert [f.code for f in result.findings if "WorkloadWithJob" in f.message] == ["WAS701"]


def test_runtime_config_semantics() -> None:
    workload = "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec: {}\n"
    gates = "--feature-gates=GenericWorkload=true"

    def runtime_findings(*flags: str) -> list[Finding]:
        pod = static_pod("kube-apiserver", gates, *flags)
        return [f for f in lint_texts({"a.yaml": pod, "w.yaml": workload}).findings if "runtime-config" in f.message]

    assert len(runtime_findings()) == 1
    assert runtime_findings("--runtime-config=scheduling.k8s.io/v1beta1=true") == []
    assert runtime_findings("--runtime-config=api/beta=true") == []
    assert runtime_findings("--runtime-config=api/all=true") == []
    assert runtime_findings("--runtime-config=scheduling.k8s.io/v1beta1") == []
    assert len(runtime_findings("--runtime-config=api/all=true,scheduling.k8s.io/v1beta1=false")) == 1
    assert len(runtime_findings("--runtime-config=api/alpha=true")) == 1


def test_dependency_off_on_the_same_component() -> None:
    text = static_pod(
        "kube-scheduler",
        "--feature-gates=GenericWorkload=true,CompositePodGroup=true,TopologyAwareWorkloadScheduling=false",
    )
    found = only(lint_text(text), "WAS702")
    assert len(found) == 1 and found[0].severity.label == "error"
    assert "prerequisite TopologyAwareWorkloadScheduling is off there" in found[0].message
    unconfirmed = static_pod("kube-controller-manager", "--feature-gates=WorkloadWithJob=true")
    found = only(lint_text(unconfirmed), "WAS702")
    assert len(found) == 1 and found[0].severity.label == "warning"
    assert "GenericWorkload" in found[0].message


def test_one_finding_per_gate_per_object() -> None:
    apiserver = static_pod("kube-apiserver", "--runtime-config=api/all=true")
    cpg = textwrap.dedent(
        """\
        apiVersion: scheduling.k8s.io/v1alpha3
        kind: CompositePodGroup
        metadata: {name: root}
        spec:
          workloadRef: {workloadName: w, templateName: root}
          schedulingPolicy: {gang: {minGroupCount: 2}}
        """
    )
    found = only(lint_texts({"a.yaml": apiserver, "c.yaml": cpg}).findings, "WAS702")
    assert len(found) == 1
    assert "CompositePodGroup, GenericWorkload" in found[0].message  # TAWS: default not confirmed


def test_pod_scheduling_group_and_1_36_fields() -> None:
    apiserver = static_pod("kube-apiserver", "--runtime-config=api/all=true")
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  schedulingGroup: {podGroupName: g}\n"
    pod += "  containers: [{name: c, image: x}]\n"
    found = only(lint_texts({"a.yaml": apiserver, "p.yaml": pod}).findings, "WAS702")
    assert len(found) == 1 and found[0].field_path == ("spec", "schedulingGroup")
    old = "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: g}\n"
    old += "spec: {schedulingPolicy: {gang: {minCount: 2}}, disruptionMode: PodGroup}\n"
    gates = static_pod("kube-apiserver", "--feature-gates=GenericWorkload=true", "--runtime-config=api/all=true")
    found = only(lint_texts({"a.yaml": gates, "g.yaml": old}, target="1.36").findings, "WAS702")
    assert len(found) == 1 and "WorkloadAwarePreemption" in found[0].message


# --------------------------------------------------------------------------- WAS703


def test_gate_newer_than_the_target() -> None:
    text = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    text += "featureGates: {DRAWorkloadResourceClaims: true}\n"
    found = only(lint_text(text, target="1.35"), "WAS703")
    assert len(found) == 1 and "new in 1.36" in found[0].message
    assert only(lint_text(text, target="1.36"), "WAS703") == []


def test_gang_scheduling_is_fine_on_1_36() -> None:
    text = static_pod("kube-scheduler", "--feature-gates=GenericWorkload=true,GangScheduling=true")
    assert only(lint_text(text, target="1.36"), "WAS703") == []
    found = only(lint_text(text), "WAS703")
    assert len(found) == 1 and "GenericWorkload=true is set there instead" in found[0].message


def test_several_documents_and_lists() -> None:
    listed = textwrap.dedent(
        """\
        apiVersion: v1
        kind: List
        items:
        - apiVersion: kubelet.config.k8s.io/v1beta1
          kind: KubeletConfiguration
          featureGates: {WorkloadAwarePreemption: false}
        """
    )
    found = only(lint_text(listed), "WAS703")
    assert len(found) == 1 and found[0].span.line == 6
    assert codes(found) == ["WAS703"]
