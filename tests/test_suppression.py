"""Suppression: annotations, line and file comments, strict mode, unused-suppression reports."""

from __future__ import annotations

from conftest import codes, lint_text, lint_texts

PODGROUP = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
  namespace: ml{annotations}
spec:
  schedulingPolicy:
    gang:
      minCount: 2
{comment}  disruptionMode: PodGroup{trailing}
"""


def _doc(annotations: str = "", comment: str = "", trailing: str = "") -> str:
    return PODGROUP.format(annotations=annotations, comment=comment, trailing=trailing)


def test_unsuppressed_finding() -> None:
    assert codes(lint_text(_doc())) == ["WAS103"]


def test_annotation_suppresses_listed_codes_and_prefixes() -> None:
    for value in ("WAS103", "WAS1", '"WAS302,WAS103"', "all"):
        text = _doc(annotations=f"\n  annotations:\n    waslint.io/ignore: {value}")
        assert codes(lint_text(text)) == [], value


def test_comment_on_line_above_and_trailing() -> None:
    assert codes(lint_text(_doc(comment="  # waslint: ignore[WAS103]\n"))) == []
    assert codes(lint_text(_doc(trailing="  # waslint: ignore[WAS103]"))) == []
    assert codes(lint_text(_doc(trailing="  # waslint: ignore"))) == []


def test_comment_for_another_code_does_not_suppress_and_is_not_reported_unused_if_unselected() -> None:
    findings = lint_text(_doc(trailing="  # waslint: ignore[WAS302]"))
    assert sorted(codes(findings)) == ["WAS000", "WAS103"]
    findings = lint_text(_doc(trailing="  # waslint: ignore[WAS302]"), select=["WAS1", "WAS000"])
    assert codes(findings) == ["WAS103"]


def test_ignore_file_comment_covers_its_document_only() -> None:
    other = _doc().replace("name: workers", "name: other")
    text = "# waslint: ignore-file[WAS1]\n" + _doc() + "---\n" + other
    findings = lint_text(text)
    assert codes(findings) == ["WAS103"]
    assert findings[0].document == 1


def test_quoted_hash_is_not_a_comment() -> None:
    text = _doc(annotations='\n  annotations:\n    note: "# waslint: ignore[WAS103]"')
    assert codes(lint_text(text)) == ["WAS103"]


def test_strict_mode_disregards_inline_suppressions() -> None:
    text = _doc(annotations="\n  annotations:\n    waslint.io/ignore: WAS103", trailing="  # waslint: ignore[WAS103]")
    assert codes(lint_text(text, inline_ignores=False)) == ["WAS103"]


def test_unused_suppressions_are_reported_where_they_are() -> None:
    text = _doc(annotations="\n  annotations:\n    waslint.io/ignore: WAS201").replace(
        "disruptionMode: PodGroup", "disruptionMode: {all: {}}"
    )
    text += "# waslint: ignore[WAS103]\n"
    findings = lint_text(text)
    assert codes(findings) == ["WAS000", "WAS000"]
    assert [f.span.line for f in findings] == [7, 13]
    assert all(f.severity.label == "info" for f in findings)


def test_suppression_on_list_items_is_per_item() -> None:
    text = """\
apiVersion: v1
kind: List
items:
- apiVersion: scheduling.k8s.io/v1alpha2
  kind: PodGroup
  metadata:
    name: a
    annotations: {waslint.io/ignore: WAS101}
  spec: {schedulingPolicy: {basic: {}}}
- apiVersion: scheduling.k8s.io/v1alpha2
  kind: PodGroup
  metadata: {name: b}
  spec: {schedulingPolicy: {basic: {}}}
"""
    findings = lint_text(text)
    assert [(f.code, f.object_id.name if f.object_id else None) for f in findings] == [("WAS101", "b")]


def test_split_files_suppress_independently() -> None:
    result = lint_texts({"a.yaml": _doc(trailing="  # waslint: ignore[WAS103]"), "b.yaml": _doc()})
    assert [(f.path, f.code) for f in result.findings] == [("b.yaml", "WAS103")]
