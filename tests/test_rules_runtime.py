"""WAS8xx judge stored objects only (a creationTimestamp or uid: what the API server wrote), against
the stored Pods (and PodGroups) of their own namespace that the run read; never a manifest."""

from __future__ import annotations

from conftest import codes, lint_texts

# A PodGroup manifest from a blog post: it shows a `status`, but the API server never wrote it.
BLOG_PODGROUP = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: blog
spec:
  schedulingPolicy:
    gang:
      minCount: 4
status:
  conditions:
  - type: PodGroupInitiallyScheduled
    status: "True"
    reason: Scheduled
"""

STORED_POD_ELSEWHERE = """\
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: other
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  schedulingGroup:
    podGroupName: trainer-workers
  containers:
  - name: web
    image: web:1
status:
  phase: Running
"""


def stored(text: str, namespace: str = "blog") -> str:
    return text.replace(
        f"  namespace: {namespace}\n", f'  namespace: {namespace}\n  creationTimestamp: "2026-01-01T00:00:00Z"\n', 1
    )


def test_a_manifest_with_a_status_is_never_judged_even_beside_stored_pods() -> None:
    found = lint_texts({"blog.yaml": BLOG_PODGROUP, "dump.yaml": STORED_POD_ELSEWHERE}, select=["WAS8"]).findings
    assert codes(found) == []


def test_a_stored_podgroup_is_judged_against_the_stored_pods_of_its_own_namespace_only() -> None:
    # Stored Pods of another namespace say nothing of this namespace: silent.
    found = lint_texts({"pg.yaml": stored(BLOG_PODGROUP), "dump.yaml": STORED_POD_ELSEWHERE}, select=["WAS803"])
    assert codes(found.findings) == []
    # A stored Pod of its own namespace (Failed) was read: the degraded gang is reported.
    own = STORED_POD_ELSEWHERE.replace("namespace: other", "namespace: blog").replace("phase: Running", "phase: Failed")
    found = lint_texts({"pg.yaml": stored(BLOG_PODGROUP), "dump.yaml": own}, select=["WAS803"])
    assert [(f.code, f.path, f.span.line) for f in found.findings] == [("WAS803", "pg.yaml", 10)]


def test_member_pod_manifests_are_not_counted_as_running_members() -> None:
    manifest_pod = STORED_POD_ELSEWHERE.replace("namespace: other", "namespace: blog").replace(
        '  creationTimestamp: "2026-01-01T00:00:00Z"\n', ""
    )
    failed = (
        STORED_POD_ELSEWHERE.replace("namespace: other", "namespace: blog")
        .replace("name: web-0", "name: web-1")
        .replace("phase: Running", "phase: Failed")
    )
    found = lint_texts(
        {"pg.yaml": stored(BLOG_PODGROUP), "a.yaml": manifest_pod, "b.yaml": failed}, select=["WAS803"]
    ).findings
    assert len(found) == 1 and "only 0 of its minCount 4" in found[0].message


def test_unschedulable_and_stuck_deletion_need_a_stored_object() -> None:
    unschedulable = BLOG_PODGROUP.replace(
        'status: "True"\n    reason: Scheduled', 'status: "False"\n    reason: Unschedulable'
    )
    deleting = unschedulable.replace(
        "  namespace: blog\n", '  namespace: blog\n  deletionTimestamp: "2026-01-02T00:00:00Z"\n'
    )
    assert codes(lint_texts({"a.yaml": deleting}, select=["WAS804", "WAS805"]).findings) == []
    with_uid = deleting.replace(
        "  namespace: blog\n", "  namespace: blog\n  uid: 6f1c2b3a-0000-4000-8000-000000000001\n"
    )
    assert sorted(codes(lint_texts({"a.yaml": with_uid}, select=["WAS804", "WAS805"]).findings)) == [
        "WAS804",
        "WAS805",
    ]


def test_an_orphan_claim_is_judged_against_stored_podgroups_of_its_namespace() -> None:
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec: {}
status:
  reservedFor:
  - apiGroup: scheduling.k8s.io
    resource: podgroups
    name: gone
    uid: 6f1c2b3a-0000-4000-8000-000000000002
"""
    manifest_group = "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: gone\n  namespace: ml\nspec:\n  schedulingPolicy:\n    basic: {}\n"
    stored_other = stored(manifest_group.replace("name: gone", "name: other"), "ml")
    # Only a manifest PodGroup in the namespace: the cluster's PodGroups were not read.
    assert codes(lint_texts({"c.yaml": claim, "g.yaml": manifest_group}, select=["WAS802"]).findings) == []
    # Stored PodGroups of the namespace were read, and none is `gone` (its manifest does not count).
    found = lint_texts({"c.yaml": claim, "g.yaml": manifest_group, "s.yaml": stored_other}, select=["WAS802"])
    assert codes(found.findings) == ["WAS802"]
