"""Tests for waslint.knowledge.schema and the generated schema files (scripts/gen_schemas.py)."""

from __future__ import annotations

import copy
import datetime
import json
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from waslint.knowledge import schema
from waslint.knowledge.schema import SchemaIssue, has_fragment, has_schema, validate_fragment, validate_object

REPO = Path(__file__).resolve().parent.parent
GEN = REPO / "scripts" / "gen_schemas.py"
SCHEMAS = REPO / "src" / "waslint" / "knowledge" / "schemas"
SRC = REPO / "src"

SCHED = "scheduling.k8s.io"


# --------------------------------------------------------------------------- fixtures


def workload_v1alpha1() -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHED}/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "train", "namespace": "ml"},
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "train"},
            "podGroups": [
                {"name": "driver", "policy": {"basic": {}}},
                {"name": "workers", "policy": {"gang": {"minCount": 4}}},
            ],
        },
    }


def workload_v1alpha2() -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHED}/v1alpha2",
        "kind": "Workload",
        "metadata": {"name": "train"},
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "train"},
            "podGroupTemplates": [
                {
                    "name": "workers",
                    "schedulingPolicy": {"gang": {"minCount": 4}},
                    "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-tpl"}],
                    "disruptionMode": "PodGroup",
                    "priorityClassName": "high",
                    "priority": 1000,
                }
            ],
        },
    }


def podgroup_v1alpha2() -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHED}/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "train-workers"},
        "spec": {
            "podGroupTemplateRef": {"workload": {"workloadName": "train", "podGroupTemplateName": "workers"}},
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "disruptionMode": "Pod",
        },
        "status": {
            "conditions": [
                {
                    "type": "PodGroupScheduled",
                    "status": "True",
                    "reason": "Scheduled",
                    "message": "",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
            ],
            "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "pg-gpu-abc"}],
        },
    }


def workload_v1beta1(version: str = "v1beta1") -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHED}/{version}",
        "kind": "Workload",
        "metadata": {"name": "train", "labels": {"app": "train"}},
        "spec": {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "train"},
            "podGroupTemplates": [
                {
                    "name": "workers",
                    "schedulingPolicy": {"gang": {"minCount": 4}},
                    "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-tpl"}],
                    "disruptionMode": {"all": {}},
                    "priorityClassName": "high",
                    "priority": 1000,
                    "preemptionPolicy": "Never",
                },
                {"name": "driver", "schedulingPolicy": {"basic": {}}},
            ],
        },
    }


def composite_workload(version: str = "v1beta1") -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHED}/{version}",
        "kind": "Workload",
        "metadata": {"name": "multi"},
        "spec": {
            "compositePodGroupTemplates": [
                {
                    "name": "root",
                    "schedulingPolicy": {"gang": {"minGroupCount": 2}},
                    "disruptionMode": {"all": {}},
                    "podGroupTemplates": [
                        {"name": "a", "schedulingPolicy": {"gang": {"minCount": 2}}},
                        {"name": "b", "schedulingPolicy": {"basic": {}}},
                    ],
                    "compositePodGroupTemplates": [
                        {
                            "name": "inner",
                            "schedulingPolicy": {"basic": {}},
                            "podGroupTemplates": [
                                {"name": "c", "schedulingPolicy": {"basic": {}}},
                            ],
                        }
                    ],
                }
            ]
        },
    }


def podgroup_v1beta1(version: str = "v1beta1") -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHED}/{version}",
        "kind": "PodGroup",
        "metadata": {"name": "train-workers-0", "namespace": "ml"},
        "spec": {
            "workloadRef": {"workloadName": "train", "templateName": "workers"},
            "parentCompositePodGroupName": "train-root",
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
            "resourceClaims": [{"name": "gpu", "resourceClaimName": "shared-gpu"}],
            "disruptionMode": {"single": {}},
            "priorityClassName": "high",
            "priority": 1000,
            "preemptionPolicy": "PreemptLowerPriority",
        },
        "status": {
            "conditions": [
                {
                    "type": "PodGroupInitiallyScheduled",
                    "status": "True",
                    "reason": "Scheduled",
                    "message": "all pods placed",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                    "observedGeneration": 1,
                }
            ],
            "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "shared-gpu"}],
        },
    }


def composite_podgroup() -> dict[str, Any]:
    return {
        "apiVersion": f"{SCHED}/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": {"name": "multi-root"},
        "spec": {
            "workloadRef": {"workloadName": "multi", "templateName": "root"},
            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
            "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
            "disruptionMode": {"all": {}},
            "priorityClassName": "high",
            "priority": 10,
            "preemptionPolicy": "Never",
        },
        "status": {
            "conditions": [
                {
                    "type": "CompositePodGroupInitiallyScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    "message": "not enough nodes",
                    "lastTransitionTime": "2026-01-01T00:00:00Z",
                }
            ]
        },
    }


VALID_OBJECTS = [
    ("1.35", workload_v1alpha1()),
    ("1.36", workload_v1alpha2()),
    ("1.36", podgroup_v1alpha2()),
    ("1.37", workload_v1beta1()),
    ("1.37", workload_v1beta1("v1alpha3")),
    ("1.37", composite_workload()),
    ("1.37", composite_workload("v1alpha3")),
    ("1.37", podgroup_v1beta1()),
    ("1.37", podgroup_v1beta1("v1alpha3")),
    ("1.37", composite_podgroup()),
]


def paths(issues: list[SchemaIssue]) -> list[tuple[str | int, ...]]:
    return [issue.path for issue in issues]


def by_path(issues: list[SchemaIssue]) -> dict[tuple[str | int, ...], list[str]]:
    out: dict[tuple[str | int, ...], list[str]] = {}
    for issue in issues:
        out.setdefault(issue.path, []).append(issue.message)
    return out


# --------------------------------------------------------------------------- valid objects


@pytest.mark.parametrize(
    ("release", "obj"),
    VALID_OBJECTS,
    ids=[f"{r}-{o['apiVersion'].split('/')[1]}-{o['kind']}" for r, o in VALID_OBJECTS],
)
def test_valid_objects_are_clean(release: str, obj: dict[str, Any]) -> None:
    assert has_schema(release, obj["apiVersion"], obj["kind"])
    assert validate_object(release, obj["apiVersion"], obj["kind"], obj) == []


def test_minimal_objects_are_clean() -> None:
    minimal_pg: dict[str, Any] = {"spec": {"schedulingPolicy": {"basic": {}}}}
    assert validate_object("1.37", f"{SCHED}/v1beta1", "PodGroup", minimal_pg) == []
    # Workload.spec has no individually required field in 1.37 (the union is a rule).
    assert validate_object("1.37", f"{SCHED}/v1beta1", "Workload", {"spec": {}}) == []


def test_yaml_timestamps_count_as_strings() -> None:
    pg = podgroup_v1beta1()
    pg["status"]["conditions"][0]["lastTransitionTime"] = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    assert validate_object("1.37", f"{SCHED}/v1beta1", "PodGroup", pg) == []


def test_yaml_loaded_manifest_is_clean() -> None:
    yaml = pytest.importorskip("yaml")
    text = """
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: pg
spec:
  workloadRef: {workloadName: train, templateName: workers}
  schedulingPolicy:
    gang:
      minCount: 8
status:
  conditions:
  - type: PodGroupInitiallyScheduled
    status: "True"
    reason: Scheduled
    message: ok
    lastTransitionTime: 2026-01-01T00:00:00Z
"""
    obj = yaml.safe_load(text)
    assert validate_object("1.37", obj["apiVersion"], obj["kind"], obj) == []


# --------------------------------------------------------------------------- issues


def test_wrong_type_points_at_value() -> None:
    wl = workload_v1beta1()
    wl["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"] = "four"
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
    assert issues == [
        SchemaIssue(
            ("spec", "podGroupTemplates", 0, "schedulingPolicy", "gang", "minCount"),
            "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: expected integer, got string 'four'",
        )
    ]


def test_unknown_field_points_at_key() -> None:
    wl = workload_v1beta1()
    wl["spec"]["podGroups"] = [{"name": "x", "policy": {"basic": {}}}]
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
    assert issues == [
        SchemaIssue(
            ("spec", "podGroups"),
            "unknown field 'podGroups' in spec (not in scheduling.k8s.io/v1beta1 Workload)",
        )
    ]


def test_unknown_top_level_field() -> None:
    wl = workload_v1beta1()
    wl["status"] = {}
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
    assert paths(issues) == [("status",)]
    assert "at top level" in issues[0].message


def test_missing_required_points_at_parent() -> None:
    pg = podgroup_v1beta1()
    del pg["spec"]["schedulingPolicy"]
    del pg["spec"]["workloadRef"]["templateName"]
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "PodGroup", pg)
    assert issues == [
        SchemaIssue(("spec",), "missing required field 'schedulingPolicy' in spec"),
        SchemaIssue(("spec", "workloadRef"), "missing required field 'templateName' in spec.workloadRef"),
    ]
    assert issues[0].message.startswith("missing required field 'schedulingPolicy'")


def test_missing_spec_at_root() -> None:
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", {"kind": "Workload"})
    assert issues == [SchemaIssue((), "missing required field 'spec'")]


def test_wrong_apiversion_and_kind_values() -> None:
    obj = {"apiVersion": "v1", "kind": "Pod", "spec": {}}
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", obj)
    assert paths(issues) == [("apiVersion",), ("kind",)]
    assert "expected 'scheduling.k8s.io/v1beta1', got string 'v1'" in issues[0].message


def test_v1alpha2_workload_against_v1beta1() -> None:
    wl = workload_v1alpha2()
    wl["apiVersion"] = f"{SCHED}/v1beta1"
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
    # the only structural change for Workload templates: disruptionMode string -> object
    assert by_path(issues) == {
        ("spec", "podGroupTemplates", 0, "disruptionMode"): [
            "spec.podGroupTemplates[0].disruptionMode: expected object, got string 'PodGroup'"
        ]
    }


def test_v1alpha2_podgroup_against_v1beta1() -> None:
    pg = podgroup_v1alpha2()
    pg["apiVersion"] = f"{SCHED}/v1beta1"
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "PodGroup", pg)
    assert paths(issues) == [("spec", "disruptionMode"), ("spec", "podGroupTemplateRef")]
    messages = by_path(issues)
    assert messages[("spec", "podGroupTemplateRef")] == [
        "unknown field 'podGroupTemplateRef' in spec (not in scheduling.k8s.io/v1beta1 PodGroup)"
    ]
    assert messages[("spec", "disruptionMode")] == ["spec.disruptionMode: expected object, got string 'Pod'"]


def test_v1alpha1_workload_against_v1beta1() -> None:
    wl = workload_v1alpha1()
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
    assert paths(issues) == [("apiVersion",), ("spec", "podGroups")]


def test_issues_sorted_and_deduplicated() -> None:
    wl = {
        "spec": {
            "podGroupTemplates": [
                {"name": 1},
                {"schedulingPolicy": {"gang": {}}, "zzz": 1, "aaa": 2},
            ],
            "bogus": True,
        },
        "extra": 1,
    }
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
    assert len(issues) == len(set(issues))
    assert paths(issues) == [
        ("extra",),
        ("spec", "bogus"),
        ("spec", "podGroupTemplates", 0),
        ("spec", "podGroupTemplates", 0, "name"),
        ("spec", "podGroupTemplates", 1),
        ("spec", "podGroupTemplates", 1, "aaa"),
        ("spec", "podGroupTemplates", 1, "schedulingPolicy", "gang"),
        ("spec", "podGroupTemplates", 1, "zzz"),
    ]
    # two missing fields on the same parent are two issues with the same path
    assert by_path(issues)[("spec", "podGroupTemplates", 1)] == [
        "missing required field 'name' in spec.podGroupTemplates[1]"
    ]


def test_index_order_is_numeric() -> None:
    templates: list[dict[str, Any]] = [{"name": "ok", "schedulingPolicy": {"basic": {}}} for _ in range(12)]
    templates[2]["name"] = 2
    templates[10]["name"] = 10
    wl = {"spec": {"podGroupTemplates": templates}}
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
    assert paths(issues) == [
        ("spec", "podGroupTemplates", 2, "name"),
        ("spec", "podGroupTemplates", 10, "name"),
    ]


# --------------------------------------------------------------------------- fragments


def test_job_scheduling_fragment() -> None:
    assert has_fragment("1.37", "JobSchedulingConfiguration")
    base = ("spec", "scheduling")
    good = {
        "schedulingPolicy": {"gang": {}},  # minCount optional on Jobs
        "schedulingConstraints": {"topology": [{"key": "zone"}]},
        "disruptionMode": {"all": {}},
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}],
    }
    assert validate_fragment("1.37", "JobSchedulingConfiguration", good, base) == []
    bad = {"schedulingPolicy": {"gang": {"minCount": "2"}}, "policy": {}}
    issues = validate_fragment("1.37", "JobSchedulingConfiguration", bad, base)
    assert issues == [
        SchemaIssue(
            ("spec", "scheduling", "policy"),
            "unknown field 'policy' in spec.scheduling (not in batch/v1 JobSchedulingConfiguration)",
        ),
        SchemaIssue(
            ("spec", "scheduling", "schedulingPolicy", "gang", "minCount"),
            "spec.scheduling.schedulingPolicy.gang.minCount: expected integer, got string '2'",
        ),
    ]


def test_pod_scheduling_group_fragment() -> None:
    base = ("spec", "template", "spec", "schedulingGroup")
    for release in ("1.36", "1.37"):
        assert has_fragment(release, "PodSchedulingGroup")
        assert validate_fragment(release, "PodSchedulingGroup", {"podGroupName": "pg"}, base) == []
        issues = validate_fragment(release, "PodSchedulingGroup", {"podGroup": "pg"}, base)
        assert paths(issues) == [(*base, "podGroup")]
        issues = validate_fragment(release, "PodSchedulingGroup", "pg", base)
        assert issues == [SchemaIssue(base, "spec.template.spec.schedulingGroup: expected object, got string 'pg'")]


def test_workload_reference_fragment() -> None:
    assert has_fragment("1.35", "WorkloadReference")
    base = ("spec", "workloadRef")
    ok = {"name": "train", "podGroup": "workers", "podGroupReplicaKey": "r0"}
    assert validate_fragment("1.35", "WorkloadReference", ok, base) == []
    issues = validate_fragment("1.35", "WorkloadReference", {"name": "train"}, base)
    assert issues == [
        SchemaIssue(base, "missing required field 'podGroup' in spec.workloadRef"),
    ]


def test_fragment_default_base_path() -> None:
    issues = validate_fragment("1.37", "PodSchedulingGroup", {"x": 1})
    assert paths(issues) == [("x",)]


def test_fragment_availability() -> None:
    assert not has_fragment("1.35", "PodSchedulingGroup")
    assert not has_fragment("1.36", "JobSchedulingConfiguration")
    assert not has_fragment("1.36", "WorkloadReference")
    assert not has_fragment("1.37", "WorkloadReference")
    assert not has_fragment("1.37", "Nope")
    assert not has_fragment("1.34", "PodSchedulingGroup")
    issues = validate_fragment("1.36", "JobSchedulingConfiguration", {}, ("spec", "scheduling"))
    assert paths(issues) == [("spec", "scheduling")]


# --------------------------------------------------------------------------- has_schema


@pytest.mark.parametrize(
    ("release", "api_version", "kind", "expected"),
    [
        ("1.35", f"{SCHED}/v1alpha1", "Workload", True),
        ("1.35", f"{SCHED}/v1alpha1", "PodGroup", False),  # embedded struct, not a kind
        ("1.36", f"{SCHED}/v1alpha2", "Workload", True),
        ("1.36", f"{SCHED}/v1alpha2", "PodGroup", True),
        ("1.36", f"{SCHED}/v1alpha1", "Workload", False),
        ("1.37", f"{SCHED}/v1beta1", "Workload", True),
        ("1.37", f"{SCHED}/v1beta1", "PodGroup", True),
        ("1.37", f"{SCHED}/v1beta1", "CompositePodGroup", False),
        ("1.37", f"{SCHED}/v1alpha3", "Workload", True),
        ("1.37", f"{SCHED}/v1alpha3", "PodGroup", True),
        ("1.37", f"{SCHED}/v1alpha3", "CompositePodGroup", True),
        ("1.37", f"{SCHED}/v1alpha2", "Workload", False),
        ("1.37", f"{SCHED}/v1alpha2", "PodGroup", False),
        ("1.37", f"{SCHED}/v1beta1", "WorkloadList", False),
        ("1.37", f"{SCHED}/v1", "PriorityClass", False),
        ("1.37", "batch/v1", "Job", False),
        ("1.37", "v1", "Pod", False),
        ("1.37", f"{SCHED}/v1beta1", "workload", False),
        ("1.38", f"{SCHED}/v1beta1", "Workload", False),
        ("nonsense", f"{SCHED}/v1beta1", "Workload", False),
        ("../1.37", f"{SCHED}/v1beta1", "Workload", False),
        ("v1.37.0", f"{SCHED}/v1beta1", "Workload", True),
    ],
)
def test_has_schema(release: str, api_version: str, kind: str, expected: bool) -> None:
    assert has_schema(release, api_version, kind) is expected


def test_no_schema_gives_issue_not_exception() -> None:
    issues = validate_object("1.37", f"{SCHED}/v1alpha2", "Workload", workload_v1alpha2())
    assert issues == [SchemaIssue((), "no schema for scheduling.k8s.io/v1alpha2 Workload in Kubernetes 1.37")]


def test_schema_kinds() -> None:
    assert schema.schema_kinds("1.36") == [
        (f"{SCHED}/v1alpha2", "PodGroup"),
        (f"{SCHED}/v1alpha2", "Workload"),
    ]
    assert schema.schema_kinds("0.1") == []


def test_import_does_not_import_jsonschema() -> None:
    code = (
        "import waslint.knowledge.schema as s, sys; "
        "assert 'jsonschema' not in sys.modules; "
        "assert s.has_schema('1.37', 'scheduling.k8s.io/v1beta1', 'Workload'); "
        "assert s.has_fragment('1.37', 'PodSchedulingGroup'); "
        "assert 'jsonschema' not in sys.modules; "
        "assert s.validate_object('1.37', 'scheduling.k8s.io/v1beta1', 'Workload', {'x': 1}); "
        "assert s.validate_fragment('1.37', 'PodSchedulingGroup', {'x': 1}); "
        "assert not {'jsonschema', 'referencing'} & set(sys.modules)"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": ""},
        cwd=REPO,
    )


# --------------------------------------------------------------------------- compiled validator


def _schema_files() -> list[tuple[str, str]]:
    out = []
    for release in ("1.35", "1.36", "1.37"):
        index = json.loads((SCHEMAS / release / "index.json").read_text())
        out += [(release, f) for f in (*index["kinds"].values(), *index["fragments"].values())]
    return out


@pytest.mark.parametrize(("release", "filename"), _schema_files(), ids=lambda v: str(v))
def test_every_schema_file_compiles(release: str, filename: str) -> None:
    data = json.loads((SCHEMAS / release / filename).read_text())
    compiler = schema._Compiler(data, "t")
    compiler.compile_root()
    assert set(compiler.done) == set(data.get("$defs", {}))  # every definition reached, once
    assert callable(schema._compiled(release, filename))


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "object", "minProperties": 1},
        {"pattern": "^a$"},
        {"properties": {"a": {"oneOf": [{"type": "string"}]}}},
        {"items": True},
        {"type": "float"},
        {"type": []},
        {"enum": [1]},
        {"enum": []},
        {"required": "a"},
        {"additionalProperties": None},
        {"$ref": "#/definitions/a"},
        {"$ref": "#/$defs/missing"},
        {"$ref": "#/$defs/a/properties/b", "$defs": {"a": {}}},
        {"$ref": "other.json#/$defs/a", "$defs": {"a": {}}},
    ],
    ids=repr,
)
def test_compiler_rejects_keywords_outside_the_subset(raw: dict[str, Any]) -> None:
    with pytest.raises(schema._UnsupportedSchema):
        schema._Compiler(raw, "t").compile_root()


def test_compiler_resolves_escaped_refs_and_recursion() -> None:
    raw = {
        "$ref": "#/$defs/a~1b%7E",
        "$defs": {
            "a/b~": {"type": "object", "properties": {"next": {"$ref": "#/$defs/a~1b%7E"}, "n": {"type": "integer"}}},
        },
    }
    check = schema._Compiler(raw, "t").compile_root()
    value = {"next": {"next": {"n": "x"}}}
    issues = schema._run(lambda: check, value, ())
    assert issues == [SchemaIssue(("next", "next", "n"), "next.next.n: expected integer, got string 'x'")]


def test_additional_properties_schema_paths() -> None:
    # like jsonschema: an int key is an index-like path element, a None key adds none
    check = schema._Compiler({"additionalProperties": {"type": "string"}}, "t").compile_root()
    issues = schema._run(lambda: check, {None: 1, 2: 3, "a": "ok", "b": None}, ())
    assert issues == [
        SchemaIssue((), "expected string, got integer 1"),
        SchemaIssue((2,), "[2]: expected string, got integer 3"),
        SchemaIssue(("b",), "b: expected string, got null"),
    ]


def test_integer_semantics() -> None:
    path = ("spec", "podGroupTemplates", 0, "schedulingPolicy", "gang", "minCount")
    cases: list[tuple[object, str | None]] = [
        (4, None),
        (4.0, None),  # integral floats are integers (JSON Schema)
        (2**40, None),  # int32 is not range-checked
        (-0.0, None),
        (True, "boolean true"),
        (4.5, "number 4.5"),
        (float("inf"), "number inf"),
        (float("nan"), "number nan"),
        ("4", "string '4'"),
        (datetime.date(2026, 1, 2), "timestamp 2026-01-02"),
        (None, "null"),
        ([4], "array"),
        ((4,), "array"),
        ({4}, "set"),
    ]
    for value, got in cases:
        wl = workload_v1beta1()
        wl["spec"]["podGroupTemplates"][0]["schedulingPolicy"]["gang"]["minCount"] = value
        issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl)
        if got is None:
            assert issues == [], value
        else:
            assert issues == [SchemaIssue(path, f"{render(path)}: expected integer, got {got}")], value


def render(path: tuple[str | int, ...]) -> str:
    return schema.render_path(path)


def test_enum_and_type_errors_both_reported() -> None:
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", {"apiVersion": 1, "kind": None, "spec": {}})
    assert issues == [
        SchemaIssue(("apiVersion",), "apiVersion: expected 'scheduling.k8s.io/v1beta1', got integer 1"),
        SchemaIssue(("apiVersion",), "apiVersion: expected string, got integer 1"),
        SchemaIssue(("kind",), "kind: expected 'Workload', got null"),  # null is typed fine
    ]


def _nested_templates(levels: int) -> dict[str, Any]:
    deep: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
    cur = deep
    for _ in range(levels):
        nxt: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
        cur["compositePodGroupTemplates"] = [nxt]
        cur = nxt
    return {"spec": {"compositePodGroupTemplates": [deep]}}


def test_depth_limit_is_exact() -> None:
    # the innermost schedulingPolicy.basic sits at a path of 5 + 2 * levels elements;
    # containers at a path of _MAX_DEPTH elements or more are not descended into
    assert schema._MAX_DEPTH == 256
    ok = _nested_templates(125)  # deepest container path: 255 elements
    assert validate_object("1.37", f"{SCHED}/v1beta1", "Workload", ok) == []
    ok["spec"]["compositePodGroupTemplates"][0]["name"] = 1
    assert paths(validate_object("1.37", f"{SCHED}/v1beta1", "Workload", ok)) == [
        ("spec", "compositePodGroupTemplates", 0, "name")
    ]
    too_deep = _nested_templates(126)  # schedulingPolicy of the innermost template: 256
    too_deep["bogus"] = 1  # other issues are dropped: the result is the single too-deep issue
    assert validate_object("1.37", f"{SCHED}/v1beta1", "Workload", too_deep) == [
        SchemaIssue((), "value is nested too deeply to validate")
    ]


def test_deep_value_that_is_not_descended_into() -> None:
    # a value that is only type-checked is not walked, however deep (or cyclic) it is
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    for value in (deep, cyclic):
        wl = workload_v1beta1()
        wl["spec"]["podGroupTemplates"][0]["name"] = value
        assert validate_object("1.37", f"{SCHED}/v1beta1", "Workload", wl) == [
            SchemaIssue(
                ("spec", "podGroupTemplates", 0, "name"),
                "spec.podGroupTemplates[0].name: expected string, got array",
            )
        ]


def test_deep_caller_stack_still_gives_an_issue() -> None:
    def nested(depth: int) -> list[SchemaIssue]:
        if depth:
            return nested(depth - 1)
        return validate_object("1.37", f"{SCHED}/v1beta1", "Workload", _nested_templates(120))

    limit = sys.getrecursionlimit()
    issues = nested(limit - 250)
    assert issues == [SchemaIssue((), "value is nested too deeply to validate")]


# --------------------------------------------------------------------------- robustness


class Weird:
    pass


WEIRD_VALUES: list[object] = [
    None,
    "",
    "spec",
    0,
    -1,
    1.5,
    True,
    [],
    [None],
    {},
    {"spec": None},
    {"spec": []},
    {"spec": "x"},
    {"spec": {"podGroupTemplates": None}},
    {"spec": {"podGroupTemplates": "x"}},
    {"spec": {"podGroupTemplates": [None, 1, "x", [], {}]}},
    {"spec": {"podGroupTemplates": [{"schedulingPolicy": "gang"}]}},
    {"spec": {"podGroupTemplates": [{"name": None, "schedulingPolicy": {"gang": None}}]}},
    {1: 2, None: 3, (1, 2): 4, 2.5: "x"},
    {"spec": {3: "x"}},
    {"metadata": "x", "spec": {}},
    {"spec": {"compositePodGroupTemplates": [{"name": "x", "podGroupTemplates": [[[]]]}]}},
    {"spec": {"podGroupTemplates": [{"name": Weird(), "schedulingPolicy": Weird()}]}},
    {"spec": {"podGroupTemplates": [{"name": b"bytes", "schedulingPolicy": {1, 2}}]}},
    datetime.date(2026, 1, 1),
    Weird(),
]


@pytest.mark.parametrize("value", WEIRD_VALUES, ids=[repr(v)[:40] for v in WEIRD_VALUES])
def test_weird_input_never_raises(value: object) -> None:
    for release, api_version, kind in [
        ("1.35", f"{SCHED}/v1alpha1", "Workload"),
        ("1.36", f"{SCHED}/v1alpha2", "PodGroup"),
        ("1.37", f"{SCHED}/v1beta1", "Workload"),
        ("1.37", f"{SCHED}/v1alpha3", "CompositePodGroup"),
    ]:
        issues = validate_object(release, api_version, kind, copy.deepcopy(value))
        assert all(isinstance(i, SchemaIssue) for i in issues)
        assert all(isinstance(p, str | int) for i in issues for p in i.path)
        assert issues == sorted(set(issues), key=lambda i: (schema._sort_key(i.path), i.message))
    for fragment in ("JobSchedulingConfiguration", "PodSchedulingGroup"):
        issues = validate_fragment("1.37", fragment, copy.deepcopy(value), ("spec", 0))
        assert all(i.path[:2] == ("spec", 0) for i in issues)


def test_root_must_be_object() -> None:
    cases: list[tuple[object, str]] = [
        (None, "null"),
        ([], "array"),
        ("x", "string 'x'"),
        (3, "integer 3"),
    ]
    for value, got in cases:
        issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", value)
        assert issues == [SchemaIssue((), f"expected object, got {got}")]


def test_cyclic_and_deep_input() -> None:
    tpl: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
    tpl["compositePodGroupTemplates"] = [tpl]
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", {"spec": {"compositePodGroupTemplates": [tpl]}})
    assert issues and all(isinstance(i, SchemaIssue) for i in issues)

    deep: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
    cur = deep
    for _ in range(5000):
        nxt: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
        cur["compositePodGroupTemplates"] = [nxt]
        cur = nxt
    issues = validate_object("1.37", f"{SCHED}/v1beta1", "Workload", {"spec": {"compositePodGroupTemplates": [deep]}})
    assert issues == [SchemaIssue((), "value is nested too deeply to validate")]


_KEYS = st.sampled_from(
    [
        "spec",
        "podGroupTemplates",
        "compositePodGroupTemplates",
        "name",
        "schedulingPolicy",
        "gang",
        "minCount",
        "basic",
        "disruptionMode",
        "all",
        "single",
        "workloadRef",
        "x",
        "",
    ]
) | st.integers(-2, 2)
_LEAVES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
_VALUES = st.recursive(
    _LEAVES,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=examples(150))
@given(value=_VALUES)
def test_hypothesis_never_raises(value: object) -> None:
    for api_version, kind in [(f"{SCHED}/v1beta1", "Workload"), (f"{SCHED}/v1beta1", "PodGroup")]:
        issues = validate_object("1.37", api_version, kind, {"spec": value})
        assert all(isinstance(i, SchemaIssue) for i in issues)
        assert len(issues) == len(set(issues))
    issues = validate_fragment("1.37", "JobSchedulingConfiguration", value, ("spec", "scheduling"))
    assert all(i.path[:2] == ("spec", "scheduling") for i in issues)


# --------------------------------------------------------------------------- generated files


def _all_schema_files() -> list[Path]:
    return sorted(p for p in SCHEMAS.rglob("*.json") if p.name != "index.json")


def test_generated_files_match_index() -> None:
    listed: set[Path] = set()
    for release in ("1.35", "1.36", "1.37"):
        index = json.loads((SCHEMAS / release / "index.json").read_text())
        assert index["source"] == f"kubernetes-validate 1.37.0 v{release}.0-local-strict"
        for key, fname in index["kinds"].items():
            api_version, _, kind = key.rpartition("/")
            assert has_schema(release, api_version, kind)
            data = json.loads((SCHEMAS / release / fname).read_text())
            gvk = data["x-kubernetes-group-version-kind"]
            assert [f"{g['group']}/{g['version']}/{g['kind']}" for g in gvk] == [key]
            listed.add(SCHEMAS / release / fname)
        for fname in index["fragments"].values():
            listed.add(SCHEMAS / release / fname)
    assert listed == set(_all_schema_files())


def _walk(node: object) -> Any:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


@pytest.mark.parametrize("path", _all_schema_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_schema_files_are_self_contained(path: Path) -> None:
    data = json.loads(path.read_text())
    defs = data.get("$defs", {})
    refs = {n["$ref"] for n in _walk(data) if isinstance(n.get("$ref"), str)}
    for ref in refs:
        assert ref.startswith("#/$defs/"), ref
        assert ref.removeprefix("#/$defs/") in defs, ref
    # no unused definitions either
    assert {r.removeprefix("#/$defs/") for r in refs} == set(defs)
    assert "description" not in json.dumps(data)
    if path.name != "objectmeta-meta-v1.json":  # kinds keep metadata loose (fix checks it apart)
        assert "ObjectMeta" not in json.dumps(data)


def test_schema_files_ship_as_package_resources() -> None:
    root = resources.files("waslint.knowledge") / "schemas" / "1.37" / "index.json"
    assert json.loads(root.read_text(encoding="utf-8"))["kinds"]


def test_v1alpha3_equals_v1beta1_for_workload_and_podgroup() -> None:
    for kind in ("workload", "podgroup"):
        alpha = (SCHEMAS / "1.37" / f"{kind}-scheduling-v1alpha3.json").read_text()
        beta = (SCHEMAS / "1.37" / f"{kind}-scheduling-v1beta1.json").read_text()
        assert alpha.replace("v1alpha3", "VERSION") == beta.replace("v1beta1", "VERSION")


def test_gen_schemas_check_passes() -> None:
    pytest.importorskip("kubernetes_validate")
    result = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr


def test_gen_schemas_check_detects_drift(tmp_path: Path) -> None:
    pytest.importorskip("kubernetes_validate")
    out = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, out)
    target = out / "1.37" / "podgroup-scheduling-v1beta1.json"
    target.write_text(target.read_text().replace('"integer"', '"string"'))
    (out / "1.37" / "stale.json").write_text("{}\n")
    result = subprocess.run(
        [sys.executable, str(GEN), "--check", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 1
    assert "differs: 1.37/podgroup-scheduling-v1beta1.json" in result.stderr
    assert "stale:   1.37/stale.json" in result.stderr
