"""Property tests: random and mutated documents never crash lint; findings always have locations."""

from __future__ import annotations

import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, lint_texts
from waslint.io.loader import parse_bytes

SEEDS: list[dict[str, Any]] = [
    {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": "ml"},
        "spec": {
            "podGroupTemplates": [
                {
                    "name": "workers",
                    "schedulingPolicy": {"gang": {"minCount": 4}},
                    "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
                    "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpu-tpl"}],
                    "disruptionMode": {"all": {}},
                    "priorityClassName": "high",
                }
            ]
        },
    },
    {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "w-0", "namespace": "ml"},
        "spec": {
            "podGroupTemplateRef": {"workload": {"workloadName": "w", "podGroupTemplateName": "workers"}},
            "schedulingPolicy": {"gang": {"minCount": 4}},
            "disruptionMode": "PodGroup",
            "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "gpu-tpl"}],
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml"},
        "spec": {
            "schedulingGroup": {"podGroupName": "w-0"},
            "schedulerName": "kai-scheduler",
            "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "other"}],
            "containers": [{"name": "c", "image": "i", "resources": {"requests": {"nvidia.com/gpu": 1}}}],
        },
    },
    {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "ml"},
        "spec": {
            "parallelism": 2,
            "completions": 2,
            "completionMode": "Indexed",
            "scheduling": {"schedulingPolicy": {"gang": {"minCount": 3}}, "disruptionMode": "Pod"},
            "template": {
                "spec": {
                    "workloadRef": {"name": "w", "podGroup": "workers"},
                    "containers": [{"name": "c", "image": "i"}],
                }
            },
        },
    },
    {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": "q"},
        "spec": {"parentQueue": "root", "resources": {"gpu": {"quota": 4}, "cpu": {"quota": -1, "limit": 0}}},
    },
    {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": {"name": "c"},
        "spec": {
            "workloadRef": {"workloadName": "w", "templateName": "t"},
            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
        },
    },
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**10),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["Pod", "PodGroup", "gang", "", "v1beta1", "kai-scheduler", "-1"]),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.sampled_from(["name", "spec", "gang", "minCount", "basic", "items", "x"]), children, max_size=4
        ),
    ),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found += _paths(item, (*prefix, position))
    return found


def _replace(document: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return document


@st.composite
def mutated_documents(draw: st.DrawFn) -> Any:
    document = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 3))):
        paths = _paths(document)
        path = draw(st.sampled_from(paths))
        document = _replace(document, path, draw(values))
    return document


def _check(files: dict[str, str]) -> None:
    result = lint_texts(files)
    assert result.internal_errors == []
    for finding in result.findings:
        assert finding.span.line >= 1 and finding.span.column >= 1
        assert finding.message


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutated_documents(), min_size=1, max_size=4), st.booleans())
def test_mutated_was_documents_never_crash(documents: list[Any], flow: bool) -> None:
    text = yaml.safe_dump_all(documents, default_flow_style=flow, sort_keys=False)
    _check({"a.yaml": text, "b.yaml": yaml.safe_dump_all(list(reversed(documents)))})


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.data())
def test_byte_mutations_never_crash(seed: dict[str, Any], data: st.DataObject) -> None:
    raw = bytearray(yaml.safe_dump(seed, sort_keys=False).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        position = data.draw(st.integers(0, len(raw)))
        action = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = data.draw(st.sampled_from(list(b":-[]{}&*!|>'\"#\n\t \x00\xff%@`,?")))
        if action == "insert":
            raw.insert(position, byte)
        elif raw and position < len(raw):
            if action == "delete":
                del raw[position]
            else:
                raw[position] = byte
    source = parse_bytes("m.yaml", bytes(raw))
    for problem in source.problems:
        assert problem.line >= 1 and problem.column >= 1
    _check({"m.yaml": bytes(raw).decode("utf-8", "replace")})


@settings(max_examples=examples(100))
@given(st.lists(values, min_size=1, max_size=3))
def test_random_values_never_crash(documents: list[Any]) -> None:
    _check({"r.yaml": yaml.safe_dump_all(documents), "r.json": __import__("json").dumps(documents[0])})
