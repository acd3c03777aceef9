"""WAS2xx shared DRA claims: edge cases beyond the fixture pairs."""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint_text, lint_texts
from waslint.core.model import Severity
from waslint.findings import Finding

CLAIMS = ["WAS201", "WAS202", "WAS203", "WAS204"]


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


POD_GROUP = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
  {namespace}
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  resourceClaims:
  - name: shared-gpu
    resourceClaimTemplateName: gpu-claim
"""


def pod_group(namespace: str | None = "ml") -> str:
    return POD_GROUP.format(namespace=f"namespace: {namespace}" if namespace else "")


def pod(claims: str, namespace: str | None = "ml", name: str = "worker-0", group: str = "workers") -> str:
    ns = f"\n  namespace: {namespace}" if namespace else ""
    return (
        f"\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}{ns}\nspec:\n"
        f"  schedulingGroup:\n    podGroupName: {group}\n"
        + (f"  resourceClaims:\n{claims}" if claims else "  resourceClaims: []\n")
        + "  containers:\n  - name: main\n    image: trainer:1.0\n"
    )


MISMATCH = "  - name: shared-gpu\n    resourceClaimTemplateName: gpu-claim-v2\n"
MATCH = "  - name: shared-gpu\n    resourceClaimTemplateName: gpu-claim\n"
RENAMED = "  - name: gpu\n    resourceClaimTemplateName: gpu-claim\n"


# --------------------------------------------------------------------------- WAS201


def test_201_same_name_other_template_shows_both_triples_at_the_field() -> None:
    text = pod_group() + "---" + pod(MISMATCH)
    found = run(text, "WAS201")
    assert len(found) == 1
    finding = found[0]
    assert finding.severity is Severity.ERROR
    assert finding.span.line == line_of(text, "gpu-claim-v2")
    assert "{name: shared-gpu, resourceClaimTemplateName: gpu-claim-v2}" in finding.message
    assert "{name: shared-gpu, resourceClaimTemplateName: gpu-claim}" in finding.message
    assert "PodGroup ml/workers" in finding.message


def test_201_claim_name_instead_of_template_points_at_the_claim_name() -> None:
    claims = "  - name: shared-gpu\n    resourceClaimName: gpu-pool\n"
    text = pod_group() + "---" + pod(claims)
    found = run(text, "WAS201")
    assert [f.span.line for f in found] == [line_of(text, "resourceClaimName: gpu-pool")]
    assert "resourceClaimName: gpu-pool" in found[0].message


def test_201_same_template_under_another_name() -> None:
    text = pod_group() + "---" + pod(RENAMED)
    found = run(text, "WAS201")
    assert len(found) == 1
    assert found[0].span.line == line_of(text, "- name: gpu", 1)
    assert "under another name" in found[0].message


def test_201_identical_and_unrelated_claims_are_silent() -> None:
    unrelated = MATCH + "  - name: scratch\n    resourceClaimTemplateName: scratch-disk\n"
    assert run(pod_group() + "---" + pod(unrelated), "WAS201") == []


def test_201_objects_split_across_files() -> None:
    deployment = """
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: workers
      namespace: ml
    spec:
      replicas: 2
      template:
        spec:
          schedulingGroup:
            podGroupName: workers
          resourceClaims:
          - name: shared-gpu
            resourceClaimTemplateName: other
          containers:
          - name: main
            image: trainer:1.0
    """
    found = run_files({"group.yaml": pod_group(), "apps/deploy.yaml": deployment}, "WAS201")
    assert [f.path for f in found] == ["apps/deploy.yaml"]
    assert "pod template" in found[0].message


@pytest.mark.parametrize(
    ("group_ns", "pod_ns", "option", "fires"),
    [
        (None, None, "default", True),  # both in the default namespace
        ("default", None, "default", True),  # explicit default == implicit default
        ("ml", None, "ml", True),  # --namespace ml
        ("ml", None, "default", False),
        ("other", "ml", "default", False),  # different namespaces
    ],
)
def test_201_namespaces(group_ns: str | None, pod_ns: str | None, option: str, fires: bool) -> None:
    text = pod_group(group_ns) + "---" + pod(MISMATCH, namespace=pod_ns)
    assert bool(run(text, "WAS201", namespace=option)) is fires


def test_201_job_scheduling_claims_against_its_own_template() -> None:
    text = """
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
    spec:
      parallelism: 2
      scheduling:
        schedulingPolicy:
          gang:
            minCount: 2
        resourceClaims:
        - name: shared-gpu
          resourceClaimTemplateName: gpu-claim
      template:
        spec:
          restartPolicy: Never
          resourceClaims:
          - name: shared-gpu
            resourceClaimTemplateName: gpu-claim-v2
          containers:
          - name: main
            image: trainer:1.0
    """
    found = run(text, "WAS201")
    assert len(found) == 1
    assert "Job default/train spec.scheduling" in found[0].message
    assert found[0].span.line == line_of(text, "gpu-claim-v2")


def test_201_cronjob_job_template() -> None:
    text = """
    apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      schedule: "@daily"
      jobTemplate:
        spec:
          scheduling:
            resourceClaims:
            - name: shared-gpu
              resourceClaimTemplateName: gpu-claim
          template:
            spec:
              resourceClaims:
              - name: gpu
                resourceClaimTemplateName: gpu-claim
              containers:
              - name: main
                image: trainer:1.0
    """
    found = run(text, "WAS201")
    assert len(found) == 1 and "CronJob default/nightly spec.scheduling" in found[0].message


def test_201_job_opted_out_with_scheduling_group_uses_the_pod_group() -> None:
    text = """
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
    spec:
      scheduling:
        resourceClaims:
        - name: shared-gpu
          resourceClaimTemplateName: gpu-claim
      template:
        spec:
          schedulingGroup:
            podGroupName: elsewhere
          resourceClaims:
          - name: shared-gpu
            resourceClaimTemplateName: gpu-claim-v2
          containers:
          - name: main
            image: trainer:1.0
    """
    # The Job controller ignores spec.scheduling; the PodGroup named is not in the set.
    assert run(text, "WAS201") == []


def test_201_list_items() -> None:
    text = """
    apiVersion: v1
    kind: List
    items:
    - apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata:
        name: workers
      spec:
        schedulingPolicy:
          gang:
            minCount: 2
        resourceClaims:
        - name: shared-gpu
          resourceClaimTemplateName: gpu-claim
    - apiVersion: v1
      kind: Pod
      metadata:
        name: worker-0
      spec:
        schedulingGroup:
          podGroupName: workers
        resourceClaims:
        - name: shared-gpu
          resourceClaimTemplateName: gpu-claim-v2
        containers:
        - name: main
          image: trainer:1.0
    """
    found = run(text, "WAS201")
    assert len(found) == 1
    assert found[0].field_path[:2] == ("items", 1)
    assert found[0].span.line == line_of(text, "gpu-claim-v2")


def test_201_several_documents_several_groups() -> None:
    other_group = pod_group().replace("name: workers", "name: evaluators")
    text = (
        pod_group()
        + "---"
        + other_group
        + "---"
        + pod(MISMATCH)
        + "---"
        + pod(MATCH, name="eval-0", group="evaluators")
        + "---"
        + pod(RENAMED, name="eval-1", group="evaluators")
    )
    found = run(text, "WAS201")
    assert [f.object_id.name if f.object_id else None for f in found] == ["worker-0", "eval-1"]


@pytest.mark.parametrize(
    "spec",
    [
        "  schedulingGroup: workers\n  resourceClaims: []\n",
        "  schedulingGroup:\n    podGroupName: workers\n  resourceClaims: shared-gpu\n",
        "  schedulingGroup:\n    podGroupName: [workers]\n  resourceClaims:\n  - shared-gpu\n",
        "  schedulingGroup:\n    podGroupName: workers\n  resourceClaims:\n  - name: 7\n"
        "    resourceClaimTemplateName: {a: b}\n",
        "  schedulingGroup: null\n  resourceClaims:\n  - null\n",
    ],
)
def test_claim_rules_never_crash_on_wrong_types(spec: str) -> None:
    broken_group = """
    apiVersion: scheduling.k8s.io/v1beta1
    kind: PodGroup
    metadata:
      name: broken
    spec:
      resourceClaims: {name: x}
    """
    text = (
        pod_group(None)
        + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
        + spec
        + "---\n"
        + y(broken_group)
        + "---\nkind: Pod\n---\n- just\n- a list\n"
    )
    result = lint_texts({"broken.yaml": text}, select=CLAIMS)
    assert result.internal_errors == []


# --------------------------------------------------------------------------- WAS202


def test_202_pod_group_claim_nobody_consumes() -> None:
    others = "  - name: scratch\n    resourceClaimTemplateName: scratch-disk\n"
    text = pod_group() + "---" + pod(others)
    found = run(text, "WAS202")
    assert len(found) == 1
    assert found[0].severity is Severity.WARNING
    assert found[0].span.line == line_of(text, "- name: shared-gpu")
    assert "Pod ml/worker-0" in found[0].message


def test_202_near_miss_names_the_member_entry() -> None:
    text = pod_group() + "---" + pod(RENAMED)
    found = run(text, "WAS202")
    assert len(found) == 1
    assert "declares {name: gpu, resourceClaimTemplateName: gpu-claim} instead" in found[0].message


def test_202_consumed_by_one_member_is_enough() -> None:
    text = pod_group() + "---" + pod(MATCH) + "---" + pod(MISMATCH, name="worker-1")
    assert run(text, "WAS202") == []


def test_202_no_member_in_the_set_is_silent() -> None:
    assert run(pod_group(), "WAS202") == []
    # a member of a same-named group in another namespace does not count
    assert run(pod_group() + "---" + pod("", namespace="other"), "WAS202") == []


def test_202_members_in_other_files() -> None:
    files = {"group.yaml": pod_group(), "pods/a.yaml": pod(""), "pods/b.yaml": pod(MATCH, name="w1")}
    assert run_files(files, "WAS202") == []
    files.pop("pods/b.yaml")
    assert len(run_files(files, "WAS202")) == 1


def test_202_job_opted_out_is_not_judged() -> None:
    text = """
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
    spec:
      scheduling:
        resourceClaims:
        - name: shared-gpu
          resourceClaimTemplateName: gpu-claim
      template:
        spec:
          schedulingGroup:
            podGroupName: elsewhere
          containers:
          - name: main
            image: trainer:1.0
    """
    assert run(text, "WAS202") == []


# --------------------------------------------------------------------------- WAS203


def test_203_both_neither_and_too_many() -> None:
    text = """
    apiVersion: scheduling.k8s.io/v1beta1
    kind: Workload
    metadata:
      name: training
    spec:
      podGroupTemplates:
      - name: workers
        schedulingPolicy:
          gang:
            minCount: 2
        resourceClaims:
        - name: a
          resourceClaimName: pool
          resourceClaimTemplateName: tpl
        - name: b
          resourceClaimTemplateName: ""
        - name: c
          resourceClaimTemplateName: tpl
        - name: d
          resourceClaimTemplateName: tpl
        - name: e
          resourceClaimTemplateName: tpl
    """
    # upstream's maxItems stops the list's other checks: only the fifth claim is reported
    found = run(text, "WAS203")
    assert [f.span.line for f in found] == [line_of(text, "- name: e")]
    assert "at most 4" in found[0].message and "5 claims" in found[0].message
    two = text.split("        - name: c")[0]
    found = run(two, "WAS203")
    assert [f.span.line for f in found] == [line_of(two, "resourceClaimTemplateName: tpl")]
    # an empty name through the pointer is set, and not a DNS subdomain: upstream's format error
    assert [(f.code, f.span.line) for f in run(two, "WAS003")] == [
        ("WAS003", line_of(two, 'resourceClaimTemplateName: ""'))
    ]
    assert all(f.severity is Severity.ERROR for f in found)
    assert "template 'workers'" in found[0].message


def test_203_job_and_cronjob_scheduling_claims() -> None:
    text = """
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
    spec:
      scheduling:
        resourceClaims:
        - name: a
    ---
    apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      jobTemplate:
        spec:
          scheduling:
            resourceClaims:
            - name: a
              resourceClaimName: pool
              resourceClaimTemplateName: tpl
    """
    found = run(text, "WAS203")
    assert [f.object_id.kind if f.object_id else "" for f in found] == ["Job", "CronJob"]


def test_203_pod_claims_are_not_group_claims() -> None:
    assert run(pod("  - name: a\n"), "WAS203") == []


# --------------------------------------------------------------------------- WAS204

RCT = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-claim
  {namespace}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
"""


def rct(namespace: str | None = "ml", name: str = "gpu-claim") -> str:
    text = RCT.format(namespace=f"namespace: {namespace}" if namespace else "")
    return text.replace("name: gpu-claim", f"name: {name}")


def test_204_missing_template_when_the_namespace_ships_templates() -> None:
    text = rct(name="other") + "---" + pod_group()
    found = run(text, "WAS204")
    assert len(found) == 1
    assert found[0].span.line == line_of(text, "resourceClaimTemplateName: gpu-claim")
    assert "(it has: other)" in found[0].message


def test_204_present_or_no_templates_of_that_namespace() -> None:
    assert run(rct() + "---" + pod_group(), "WAS204") == []
    assert run(rct(namespace="elsewhere", name="x") + "---" + pod_group(), "WAS204") == []
    assert run(pod_group(), "WAS204") == []


def test_204_default_namespace_across_files() -> None:
    files = {"rct.yaml": rct(namespace=None), "group.yaml": pod_group(namespace="default")}
    assert run_files(files, "WAS204") == []
    files["rct.yaml"] = rct(namespace=None, name="renamed")
    assert len(run_files(files, "WAS204")) == 1


def test_204_resource_claims_are_judged_against_resource_claims() -> None:
    claim = """
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata:
      name: pool
      namespace: ml
    spec: {}
    """
    claims = "  - name: pool\n    resourceClaimName: pool\n  - name: nic\n    resourceClaimName: rdma\n"
    found = run(y(claim) + "---" + pod(claims), "WAS204")
    assert len(found) == 1 and "ResourceClaim 'rdma'" in found[0].message
    # the Pod's template claims are not judged: the namespace ships no ResourceClaimTemplate
    assert run(y(claim) + "---" + pod(MISMATCH), "WAS204") == []


def test_204_plain_pods_outside_any_group_are_not_judged() -> None:
    plain = """
    apiVersion: v1
    kind: Pod
    metadata:
      name: plain
      namespace: ml
    spec:
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: made-by-a-controller
      containers:
      - name: main
        image: trainer:1.0
    """
    assert run(rct() + "---" + y(plain), "WAS204") == []
    member = pod("  - name: gpu\n    resourceClaimTemplateName: made-by-a-controller\n")
    assert len(run(rct() + "---" + member, "WAS204")) == 1
