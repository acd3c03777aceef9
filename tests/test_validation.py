"""waslint.knowledge.validation / imperative: upstream's declarative and hand-written validation."""

from __future__ import annotations

from typing import Any

from waslint.knowledge import imperative, validation

BETA = "scheduling.k8s.io/v1beta1"


def _found(issues: list[validation.ValidationIssue]) -> set[tuple[str, str]]:
    return {(validation.render_path(i.path), i.error) for i in issues}


def _workload(**template: Any) -> dict[str, Any]:
    base = {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 2}}}
    return {"metadata": {"name": "train"}, "spec": {"podGroupTemplates": [{**base, **template}]}}


def test_valid_workload_has_no_issue() -> None:
    assert validation.validate("1.37", BETA, "Workload", _workload()) == []


def test_each_marker_kind_reports_upstream_error_type_and_path() -> None:
    data = _workload(
        name="Workers_1",
        priority=1_000_000_001,
        preemptionPolicy="Sometimes",
        disruptionMode={"single": {}, "all": {}},
        schedulingConstraints={"topology": [{"key": "a"}, {"key": "b"}]},
    )
    data["spec"]["podGroupTemplates"].append({"name": "Workers_1", "schedulingPolicy": {"gang": {"minCount": 0}}})
    found = _found(validation.validate("1.37", BETA, "Workload", data))
    assert found == {
        ("spec.podGroupTemplates[0].name", "Invalid"),
        ("spec.podGroupTemplates[0].priority", "Invalid"),
        ("spec.podGroupTemplates[0].preemptionPolicy", "NotSupported"),
        ("spec.podGroupTemplates[0].disruptionMode", "Invalid"),
        ("spec.podGroupTemplates[0].schedulingConstraints.topology", "TooMany"),
        ("spec.podGroupTemplates[1]", "Duplicate"),
        ("spec.podGroupTemplates[1].name", "Invalid"),
        ("spec.podGroupTemplates[1].schedulingPolicy.gang.minCount", "Required"),
    }


def test_message_is_upstream_field_error_text() -> None:
    (issue,) = validation.validate("1.37", BETA, "Workload", _workload(name="Bad"))
    assert issue.message.startswith('spec.podGroupTemplates[0].name: Invalid value: "Bad": a lowercase RFC 1123 label')
    assert issue.origin == "format=k8s-short-name"


def test_union_of_template_lists_and_too_many_items() -> None:
    empty = {"metadata": {"name": "w"}, "spec": {}}
    (issue,) = validation.validate("1.37", BETA, "Workload", empty)
    assert (issue.path, issue.error, issue.detail) == (
        ("spec",),
        "Invalid",
        "must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`",
    )
    many = _workload()
    many["spec"]["podGroupTemplates"] = [{"name": f"t{i}", "schedulingPolicy": {"basic": {}}} for i in range(9)]
    assert _found(validation.validate("1.37", BETA, "Workload", many)) == {("spec.podGroupTemplates", "TooMany")}


def test_gate_conditional_markers_follow_the_gate_lookup() -> None:
    data = _workload(preemptionPolicy="Never")
    assert validation.validate("1.37", BETA, "Workload", data) == []  # unknown gate: accepted
    (issue,) = validation.validate("1.37", BETA, "Workload", data, lambda gate: False)
    assert (issue.error, issue.gate) == ("Forbidden", "PodGroupPreemptionPolicy")
    assert validation.gated_fields("1.37", BETA, "Workload", data) == [
        (("spec", "podGroupTemplates", 0, "preemptionPolicy"), "PodGroupPreemptionPolicy")
    ]


def test_dependent_required_and_forbidden() -> None:
    group = {"spec": {"parentCompositePodGroupName": "root", "schedulingPolicy": {"basic": {}}}}
    (issue,) = validation.validate("1.37", BETA, "PodGroup", group)
    assert (issue.path, issue.error) == (("spec", "workloadRef"), "Required")
    pod = {
        "spec": {"schedulingGroup": {"podGroupName": "g"}, "evictionResponders": [{"name": "a.io/b", "priority": 1}]}
    }
    (issue,) = validation.validate("1.37", "v1", "Pod", pod)
    assert (issue.path, issue.error) == (("spec", "schedulingGroup"), "Forbidden")


def test_job_building_blocks_and_status_ignored() -> None:
    job = {
        "spec": {
            "scheduling": {"schedulingPolicy": {"gang": {"minCount": 0}}},
            "template": {"spec": {"containers": []}},
        },
        "status": {"anything": True},
    }
    (issue,) = validation.validate("1.37", "batch/v1", "Job", job)
    assert (validation.render_path(issue.path), issue.error) == (
        "spec.scheduling.schedulingPolicy.gang.minCount",
        "Invalid",
    )


def test_wrong_types_and_unknown_kinds_are_left_to_the_schema() -> None:
    assert validation.validate("1.37", BETA, "Workload", {"spec": {"podGroupTemplates": "x"}}) == []
    assert validation.validate("1.37", "apps/v1", "Deployment", {"spec": {}}) == []
    assert validation.validate("9.99", BETA, "Workload", _workload(name="Bad")) == []
    assert not validation.has_rules("1.37", "scheduling.k8s.io/v1alpha2", "Workload")


def test_update_markers() -> None:
    old = {"spec": {"schedulingPolicy": {"gang": {"minCount": 3}}, "disruptionMode": {"single": {}}}}
    resized = {"spec": {"schedulingPolicy": {"gang": {"minCount": 4}}}}  # minCount mutable; mode defaulted
    assert validation.validate_update("1.37", BETA, "PodGroup", resized, old) == []
    basic = {"spec": {"schedulingPolicy": {"basic": {}}, "priority": 4}}
    assert _found(validation.validate_update("1.37", BETA, "PodGroup", basic, old)) == {
        ("spec.schedulingPolicy.basic", "Invalid"),
        ("spec.schedulingPolicy.gang", "Invalid"),  # update=NoUnset
        ("spec.priority", "Invalid"),
    }
    added = _workload()
    added["spec"]["podGroupTemplates"].append({"name": "extra", "schedulingPolicy": {"basic": {}}})
    found = _found(validation.validate_update("1.37", BETA, "Workload", added, _workload()))
    assert found == {("spec.podGroupTemplates[1]", "Forbidden")}
    assert _found(validation.validate_update("1.37", BETA, "Workload", _workload(), added)) == {
        ("spec.podGroupTemplates", "Forbidden")
    }


def _composite(name: str, *children: dict[str, Any], leaves: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "name": name,
        "schedulingPolicy": {"basic": {}},
        "compositePodGroupTemplates": list(children),
        "podGroupTemplates": [{"name": leaf, "schedulingPolicy": {"basic": {}}} for leaf in leaves],
    }


def test_imperative_workload_tree_checks() -> None:
    deep = _composite("a", _composite("b", _composite("c", _composite("d", leaves=("x",)))))
    data = {
        "metadata": {"name": "Not_A_Name"},
        "spec": {"compositePodGroupTemplates": [deep, _composite("e", leaves=("a",)), _composite("empty")]},
    }
    found = _found(imperative.object_issues(BETA, "Workload", data))
    assert found == {
        ("metadata.name", "Invalid"),
        ("spec.compositePodGroupTemplates[0]", "Invalid"),  # depth
        ("spec.compositePodGroupTemplates[1].podGroupTemplates[0].name", "Duplicate"),
        ("spec.compositePodGroupTemplates[2]", "Invalid"),  # no child
    }
    shallow = {"metadata": {"name": "ok"}, "spec": {"compositePodGroupTemplates": [_composite("a", leaves=("x",))]}}
    assert imperative.object_issues(BETA, "Workload", shallow) == []


def test_imperative_priority_pod_and_job_checks() -> None:
    data = _workload(priorityClassName="high")
    data["spec"]["podGroupTemplates"].append({"name": "b", "schedulingPolicy": {"basic": {}}})
    (issue,) = imperative.object_issues(BETA, "Workload", data)
    assert (issue.path, issue.origin) == (("spec",), "sharedPriority")
    assert _found(imperative.pod_spec_issues({"schedulingGroup": {}}, ("spec",))) == {
        ("spec.schedulingGroup", "Invalid")
    }
    bad = imperative.pod_spec_issues({"schedulingGroup": {"podGroupName": "A/b"}}, ("spec",))
    assert _found(bad) == {("spec.schedulingGroup.podGroupName", "Invalid")}
    basic_all = {"schedulingPolicy": {"basic": {}}, "disruptionMode": {"all": {}}}
    assert _found(imperative.job_scheduling_issues(basic_all, ("spec", "scheduling"))) == {
        ("spec.scheduling.disruptionMode", "Invalid")
    }
    gang_all = {"schedulingPolicy": {"gang": {}}, "disruptionMode": {"all": {}}}
    assert imperative.job_scheduling_issues(gang_all, ("spec", "scheduling")) == []
