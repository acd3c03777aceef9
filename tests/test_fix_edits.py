"""The edit layer on small texts: each operation in block, flow and JSON style, odd layouts, and
the places it must refuse. Every result is also checked against the data-level oracle."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from waslint.fix.edits import DocText, Edit, EditConflict, apply_edits, edits_for
from waslint.fix.verify import same
from waslint.fix.yamltext import Unfixable, eol_of, indent_step, shared_nodes
from waslint.lint.fixers.ops import DeleteKey, Hoist, Op, RenameKey, ReplaceValue, SetScalar, apply_to_data, map_path

ALL = {"all": {}}


def fix(text: str, *ops: Op, json_mode: bool = False) -> str:
    root = yaml.compose(text, Loader=yaml.CSafeLoader)
    shared = shared_nodes(root) if "&" in text else set()
    doc = DocText(text, root, json_mode, eol_of(text), indent_step(root), shared)
    edits = [edit for op in ops for edit in edits_for(op, doc)]
    result = apply_edits(text, edits)
    before = yaml.load(text, Loader=yaml.CSafeLoader)
    assert same(yaml.load(result, Loader=yaml.CSafeLoader), apply_to_data(before, list(ops)))
    return result


# --------------------------------------------------------------------------- scalars and keys


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("apiVersion: scheduling.k8s.io/v1alpha2  # c\n", "apiVersion: scheduling.k8s.io/v1beta1  # c\n"),
        ("apiVersion: 'scheduling.k8s.io/v1alpha2'\n", "apiVersion: 'scheduling.k8s.io/v1beta1'\n"),
        ('apiVersion: "scheduling.k8s.io/v1alpha2"\n', 'apiVersion: "scheduling.k8s.io/v1beta1"\n'),
        ("apiVersion: !!str scheduling.k8s.io/v1alpha2\n", "apiVersion: !!str scheduling.k8s.io/v1beta1\n"),
        ("{apiVersion: scheduling.k8s.io/v1alpha2}", "{apiVersion: scheduling.k8s.io/v1beta1}"),
    ],
)
def test_set_scalar_keeps_quoting_and_tags(value: str, expected: str) -> None:
    assert fix(value, SetScalar(("apiVersion",), "scheduling.k8s.io/v1beta1")) == expected


def test_set_scalar_in_json() -> None:
    text = '{"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup"}'
    out = fix(text, SetScalar(("apiVersion",), "scheduling.k8s.io/v1beta1"), json_mode=True)
    assert out == '{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup"}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("spec:\n  podGroups: []\n", "spec:\n  podGroupTemplates: []\n"),
        ("spec:\n  'podGroups': []\n", "spec:\n  'podGroupTemplates': []\n"),
        ('spec: {"podGroups": []}\n', 'spec: {"podGroupTemplates": []}\n'),
    ],
)
def test_rename_key_keeps_style(text: str, expected: str) -> None:
    assert fix(text, RenameKey(("spec", "podGroups"), "podGroupTemplates")) == expected


def test_rename_key_of_an_aliased_value_is_fine() -> None:
    text = "a: &p {basic: {}}\nb:\n  policy: *p\n"
    assert fix(text, RenameKey(("b", "policy"), "schedulingPolicy")) == (
        "a: &p {basic: {}}\nb:\n  schedulingPolicy: *p\n"
    )


# --------------------------------------------------------------------------- replacing values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "- spec:\n    disruptionMode: PodGroup\n    x: 1\n",
            "- spec:\n    disruptionMode:\n      all: {}\n    x: 1\n",
        ),
        ("spec:\n  disruptionMode: PodGroup   # c\n  x: 1\n", "spec:\n  disruptionMode:\n    all: {}   # c\n  x: 1\n"),
        ("spec:\n    disruptionMode: PodGroup\n", "spec:\n    disruptionMode:\n        all: {}\n"),
        ("spec:\n  disruptionMode:  # c\n    PodGroup\n", "spec:\n  disruptionMode:  # c\n    all: {}\n"),
        ("spec:\n  disruptionMode: !!str PodGroup\n", "spec:\n  disruptionMode:\n    all: {}\n"),
        ("spec:\n  disruptionMode: >-\n    PodGroup\n  x: 1\n", "spec:\n  disruptionMode:\n    all: {}\n  x: 1\n"),
        ("spec: {disruptionMode: PodGroup, x: 1}\n", "spec: {disruptionMode: {all: {}}, x: 1}\n"),
        ("spec:\r\n  disruptionMode: PodGroup\r\n", "spec:\r\n  disruptionMode:\r\n    all: {}\r\n"),
        ("spec:\n  disruptionMode: PodGroup", "spec:\n  disruptionMode:\n    all: {}"),
    ],
)
def test_replace_scalar_with_a_mapping_in_the_documents_style(text: str, expected: str) -> None:
    path: tuple[Any, ...] = ((0,) if text.startswith("-") else ()) + ("spec", "disruptionMode")
    assert fix(text, ReplaceValue(path, ALL)) == expected


def test_replace_the_first_key_of_a_list_item() -> None:
    text = "- disruptionMode: PodGroup\n  x: 1\n"
    assert fix(text, ReplaceValue((0, "disruptionMode"), ALL)) == "- disruptionMode:\n    all: {}\n  x: 1\n"


def test_replace_in_json() -> None:
    text = '{\n  "spec": {\n    "disruptionMode": "PodGroup"\n  }\n}\n'
    out = fix(text, ReplaceValue(("spec", "disruptionMode"), ALL), json_mode=True)
    assert out == '{\n  "spec": {\n    "disruptionMode": {"all": {}}\n  }\n}\n'


def test_replace_a_block_mapping_keeps_its_comments() -> None:
    text = (
        "spec:\n"
        "  workloadRef:  # 1.35\n"
        "    # the workload\n"
        "    name: train  # wl\n"
        "    podGroup: workers\n"
        "  containers: []\n"
    )
    ops = (
        ReplaceValue(("spec", "workloadRef"), {"podGroupName": "train-workers"}),
        RenameKey(("spec", "workloadRef"), "schedulingGroup"),
    )
    assert fix(text, *ops) == (
        "spec:\n"
        "  schedulingGroup:  # 1.35\n"
        "    # the workload\n"
        "    # wl\n"
        "    podGroupName: train-workers\n"
        "  containers: []\n"
    )


# --------------------------------------------------------------------------- deleting keys


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a:\n  priorityClassName: x\n  priority: 7  # p\n  b: 1\n", "a:\n  priorityClassName: x\n  b: 1\n"),
        ("a:\n  priorityClassName: x\n  priority: 7\n", "a:\n  priorityClassName: x\n"),
        ("a:\n  priorityClassName: x\n  priority: 7", "a:\n  priorityClassName: x"),
        ("a:\n  priorityClassName: x  # c\n\n  \n  priority: 7", "a:\n  priorityClassName: x  # c"),
        ("a:\r\n  priorityClassName: x\r\n  priority: 7", "a:\r\n  priorityClassName: x"),
        ("- priority: 7\n  priorityClassName: x\n", "- priorityClassName: x\n"),
        ("- priority: 7  # p\n  # c\n\n  priorityClassName: x\n", "-\n  # c\n\n  priorityClassName: x\n"),
        ("a: {priority: 7, priorityClassName: x}\n", "a: {priorityClassName: x}\n"),
        ("a: {priorityClassName: x, priority: 7}\n", "a: {priorityClassName: x}\n"),
        ("a: {b: 1, priority: 7, priorityClassName: x}\n", "a: {b: 1, priorityClassName: x}\n"),
    ],
)
def test_delete_key(text: str, expected: str) -> None:
    assert (
        fix(text, DeleteKey(("a", "priority")) if text.startswith(("a", "{")) else DeleteKey((0, "priority")))
        == expected
    )


# --------------------------------------------------------------------------- hoisting


REF = ("spec", "podGroupTemplateRef")
INNER = (*REF, "workload", "podGroupTemplateName")
HOIST: tuple[Op, ...] = (Hoist(REF, "workload"), RenameKey(INNER, "templateName"), RenameKey(REF, "workloadRef"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "spec:\n  podGroupTemplateRef:\n    workload:  # w\n      # n\n      workloadName: a  # a\n"
            "      podGroupTemplateName: b\n  x: 1\n",
            "spec:\n  workloadRef:\n    # w\n    # n\n    workloadName: a  # a\n    templateName: b\n  x: 1\n",
        ),
        (
            "spec:\n    podGroupTemplateRef:\n        workload:\n            workloadName: a\n"
            "            podGroupTemplateName: b\n",
            "spec:\n    workloadRef:\n        workloadName: a\n        templateName: b\n",
        ),
        (
            "spec:\n  podGroupTemplateRef:\n    workload: {workloadName: a, podGroupTemplateName: b}\n",
            "spec:\n  workloadRef: {workloadName: a, templateName: b}\n",
        ),
        (
            "spec:\n  podGroupTemplateRef: {workload: {workloadName: a, podGroupTemplateName: b}}  # c\n",
            "spec:\n  workloadRef: {workloadName: a, templateName: b}  # c\n",
        ),
        (
            "spec:\n  podGroupTemplateRef:\n    workload:\n      workloadName: >-\n        a\n"
            "      podGroupTemplateName: b",
            "spec:\n  workloadRef:\n    workloadName: >-\n      a\n    templateName: b",
        ),
    ],
)
def test_hoist(text: str, expected: str) -> None:
    assert fix(text, *HOIST) == expected


def test_map_path_follows_the_operations() -> None:
    assert map_path((*REF, "workload", "podGroupTemplateName"), list(HOIST)) == ("spec", "workloadRef", "templateName")
    assert map_path((*REF, "workload"), list(HOIST)) == ("spec", "workloadRef")
    assert map_path(("spec", "priority"), [DeleteKey(("spec", "priority"))]) is None
    assert map_path(("spec", "disruptionMode"), [ReplaceValue(("spec", "disruptionMode"), ALL)]) is None
    assert map_path(("spec", "other"), list(HOIST)) == ("spec", "other")


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("text", "op"),
    [
        ("a: &m PodGroup\nspec:\n  disruptionMode: *m\n", ReplaceValue(("spec", "disruptionMode"), ALL)),
        ("spec:\n  disruptionMode: &m PodGroup\nb: *m\n", ReplaceValue(("spec", "disruptionMode"), ALL)),
        ("base: &b {disruptionMode: Pod}\nspec:\n  <<: *b\n", ReplaceValue(("spec", "disruptionMode"), ALL)),
        ("spec:\n  podGroupTemplateRef:\n    workload: 1\n", Hoist(REF, "workload")),
        ("spec:\n  podGroupTemplateRef:\n    workload: {a: 1}\n    other: 2\n", Hoist(REF, "workload")),
    ],
)
def test_refuses_what_it_cannot_edit_safely(text: str, op: Op) -> None:
    root = yaml.compose(text, Loader=yaml.CSafeLoader)
    doc = DocText(text, root, False, "\n", 2, shared_nodes(root))
    with pytest.raises(Unfixable):
        edits_for(op, doc)


def test_overlapping_edits_are_a_bug() -> None:
    with pytest.raises(EditConflict):
        apply_edits("abcdef", [Edit(0, 3, "x"), Edit(2, 4, "y")])
    assert apply_edits("abc", [Edit(1, 1, "X", 1), Edit(1, 1, "Y", 0), Edit(1, 2, "")]) == "aYXc"


def test_indent_step_and_eol() -> None:
    assert indent_step(yaml.compose("a:\n    b:\n        c: 1\n", Loader=yaml.CSafeLoader)) == 4
    assert indent_step(yaml.compose("a: 1\n", Loader=yaml.CSafeLoader)) == 2
    assert eol_of("a\r\nb\r\n") == "\r\n" and eol_of("a\nb\r\n") == "\r\n" and eol_of("a\nb\nc\r\n") == "\n"


def _data(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)
