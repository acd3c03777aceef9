"""The generated update and gate markers feed WAS604 (--base) and WAS702 (gate inventory)."""

from __future__ import annotations

import textwrap

from waslint.io.loader import parse_bytes
from waslint.lint.rules.gates.gate_prerequisite_missing import _marker_needs
from waslint.lint.rules.structure.immutable_field_changed import _marker_changes
from waslint.objects.kobject import KObject, objects_of

WORKLOAD = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 2}}
"""


def _obj(text: str) -> KObject:
    source = parse_bytes("x.yaml", textwrap.dedent(text).encode())
    (obj,) = [o for doc in source.documents for o in objects_of(doc, source)]
    return obj


def test_marker_changes_report_what_the_comparisons_missed_once() -> None:
    old = _obj(WORKLOAD)
    new = _obj(WORKLOAD + "    resourceClaims: [{name: gpus, resourceClaimTemplateName: gpu}]\n")
    path = ("spec", "podGroupTemplates", 0, "resourceClaims")
    (change,) = _marker_changes(new, old, "1.37", [])
    assert change == (path, "spec.podGroupTemplates[0].resourceClaims: field is immutable (immutable)")
    assert _marker_changes(new, old, "1.37", [path]) == []
    assert _marker_changes(new, old, "1.37", [("spec", "podGroupTemplates", 0)]) == []


def test_marker_changes_follow_update_rules_and_allow_mutable_fields() -> None:
    old = _obj(WORKLOAD)
    resized = _obj(WORKLOAD.replace("minCount: 2", "minCount: 8"))
    assert _marker_changes(resized, old, "1.37", []) == []  # gang.minCount is mutable
    added = _obj(WORKLOAD + "  - name: extra\n    schedulingPolicy: {basic: {}}\n")
    (change,) = _marker_changes(added, old, "1.37", [])
    assert change[0] == ("spec", "podGroupTemplates", 1) and "update=NoAddItem" in change[1]


def test_marker_needs_add_gated_fields_the_list_does_not_name() -> None:
    obj = _obj(WORKLOAD + "    preemptionPolicy: Never\n")
    path = ("spec", "podGroupTemplates", 0, "preemptionPolicy")
    (need,) = _marker_needs(obj, "1.37", [])
    assert (need.path, need.gates) == (path, ("PodGroupPreemptionPolicy",))
    assert _marker_needs(obj, "1.37", [path]) == []
    job = _obj(
        """\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: j}
        spec:
          scheduling: {schedulingPolicy: {gang: {minCount: 2}}}
          template: {spec: {containers: [{name: c, image: x}]}}
        """
    )
    assert [(n.path, n.gates) for n in _marker_needs(job, "1.37", [])] == [
        (("spec", "scheduling"), ("WorkloadWithJob",))
    ]
