"""Loading: positions of findings in every YAML style, and bad input that must become WAS001."""

from __future__ import annotations

import pytest

from conftest import CORPUS, codes, lint_text, needs_corpus
from waslint.io import loader
from waslint.io.loader import parse_bytes

PODGROUP_OLD = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  disruptionMode: PodGroup
"""


def _only(findings: list, code: str):  # type: ignore[no-untyped-def]
    mine = [f for f in findings if f.code == code]
    assert len(mine) == 1, [(f.code, f.message) for f in findings]
    return mine[0]


def test_position_in_plain_block_yaml() -> None:
    finding = _only(lint_text(PODGROUP_OLD), "WAS103")
    assert (finding.span.line, finding.span.column) == (9, 3)
    assert (finding.span.end_line, finding.span.end_column) == (9, 27)
    assert finding.document == 0


def test_position_in_later_document_with_comments() -> None:
    text = "# leading comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# c\n" + PODGROUP_OLD
    finding = _only(lint_text(text), "WAS103")
    assert finding.span.line == 7 + 9
    assert finding.document == 1  # a comment before the first '---' opens no document


def test_position_with_crlf_and_bom() -> None:
    raw = ("\ufeff" + PODGROUP_OLD).replace("\n", "\r\n")
    source = parse_bytes("x.yaml", raw.encode("utf-8"))
    assert not source.problems
    finding = _only(lint_text(raw), "WAS103")
    assert (finding.span.line, finding.span.column) == (9, 3)


def test_position_in_flow_style() -> None:
    text = (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: w}\n"
        "spec: {schedulingPolicy: {gang: {minCount: 2}}, disruptionMode: Pod}\n"
    )
    finding = _only(lint_text(text), "WAS103")
    assert finding.span.line == 4
    assert text.splitlines()[3][finding.span.column - 1 :].startswith("disruptionMode")


def test_position_through_anchor_and_merge_key() -> None:
    text = (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\nspec:\n"
        "  podGroupTemplates:\n"
        "  - &base\n    name: a\n    schedulingPolicy: {gang: {minCount: 1}}\n    disruptionMode: Pod\n"
        "  - <<: *base\n    name: b\n"
    )
    findings = [f for f in lint_text(text) if f.code == "WAS103"]
    assert [f.span.line for f in findings] == [9, 9]  # the merged copy points at the anchored source


def test_position_of_list_item_object() -> None:
    text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: scheduling.k8s.io/v1alpha2\n  kind: PodGroup\n  metadata: {name: a}\n  spec: {schedulingPolicy: {basic: {}}}\n"
    finding = _only(lint_text(text), "WAS101")
    assert (finding.span.line, finding.span.column) == (4, 3)
    assert finding.object_id is not None and finding.object_id.kind == "PodGroup"


def test_json_positions_are_computed_on_demand() -> None:
    text = '{\n  "apiVersion": "scheduling.k8s.io/v1beta1",\n  "kind": "PodGroup",\n  "metadata": {"name": "w"},\n  "spec": {\n    "schedulingPolicy": {"basic": {}},\n    "disruptionMode": "Pod"\n  }\n}\n'
    finding = _only(lint_text(text, path="pg.json"), "WAS103")
    assert (finding.span.line, finding.span.column) == (7, 5)


JSON_PODGROUP = '{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "%s"}, "spec": {"schedulingPolicy": {"basic": {}}, "disruptionMode": "Pod"}}'


@pytest.mark.parametrize("path", ["stream.json", "-"])
def test_a_json_stream_is_several_documents_each_located(path: str) -> None:
    """Objects back to back on one line, then one per line, as kubectl reads them."""
    text = JSON_PODGROUP % "a" + JSON_PODGROUP % "b" + "\n\n" + JSON_PODGROUP % "c" + "\n"
    source = parse_bytes(path, text.encode())
    assert not source.problems
    assert [doc.data["metadata"]["name"] for doc in source.documents] == ["a", "b", "c"]
    found = [(f.document, f.span.line, f.span.column) for f in lint_text(text, path=path) if f.code == "WAS103"]
    second = len(JSON_PODGROUP % "a") + (JSON_PODGROUP % "b").index('"disruptionMode"') + 1
    assert found == [(0, 1, (JSON_PODGROUP % "a").index('"disruptionMode"') + 1), (1, 1, second), (2, 3, found[0][2])]
    assert text.splitlines()[0][second - 1 :].startswith('"disruptionMode"')


def test_a_json_stream_reports_its_broken_value_and_keeps_the_ones_before() -> None:
    source = parse_bytes("s.json", (JSON_PODGROUP % "a" + '\n{"kind": "Pod",\n "kind": "Job"}\n{"a": \n').encode())
    assert [doc.index for doc in source.documents] == [0]
    assert [(p.message, p.line, p.column, p.document) for p in source.problems] == [
        ("duplicate key 'kind' in one JSON object", 3, 2, 1)
    ]
    broken = parse_bytes("s.json", (JSON_PODGROUP % "a" + '\n{"a": 1\n').encode())
    assert [(p.line, p.document) for p in broken.problems] == [(3, 1)] and len(broken.documents) == 1


@pytest.mark.parametrize("path", ["s.json", "-"])
def test_every_value_of_a_json_stream_goes_through_the_bounded_reader(path: str) -> None:
    """The depth and number bounds of io/reading.loads_json hold for each value of a stream: the
    values before the one past a bound are documents, that one is WAS001 where it passes it, and
    nothing after it is parsed (nor raises)."""
    first = JSON_PODGROUP % "a" + "\n"
    deep = '{"kind": "Pod", "spec": ' + "[" * 250 + "]" * 250 + "}\n"
    source = parse_bytes(path, (first + deep + JSON_PODGROUP % "c").encode())
    assert [doc.data["metadata"]["name"] for doc in source.documents] == ["a"]
    column = deep.index("[") + 200  # the 200th `[` is the 201st level, the object being the first
    assert [(p.message, p.line, p.column, p.document) for p in source.problems] == [
        ("nesting deeper than 200 levels", 2, column, 1)
    ]
    digits = "7" * 5000
    long_number = '{"kind": "Pod", "n": ' + digits + "}\n"
    source = parse_bytes(path, (first + long_number).encode())
    assert len(source.documents) == 1
    assert [(p.message, p.line, p.column, p.document) for p in source.problems] == [
        ("a number of more than 4,300 digits", 2, long_number.index(digits) + 1, 1)
    ]
    # a duplicate key in an inner object, a long number after it: located, never an internal error
    twice = '{"metadata": {"name": "x", "name": "y"}, "n": ' + digits + "}\n"
    source = parse_bytes(path, (first + twice).encode())
    assert [(p.message, p.line, p.column) for p in source.problems] == [
        ("duplicate key 'name' in one JSON object", 2, twice.rindex('"name"') + 1)
    ]
    found = [(f.code, f.span.line) for f in lint_text(first + deep, path="s.json") if f.code == "WAS001"]
    assert found == [("WAS001", 2)]


@pytest.mark.parametrize(
    ("raw", "fragment", "line"),
    [
        (b"a: 1\nb: [1, 2\n", "YAML syntax error", 3),
        (b"kind: Pod\n\xff\xfe bad\n", "invalid UTF-8", 2),
        (b"\x00\x01\x02binary", "binary file", 1),
        (b"a: 1\na: 2\n", "duplicate key 'a'", 2),
        (b'{"a": 1,}', "JSON syntax error", 1),
    ],
)
def test_bad_input_is_a_located_parse_error(raw: bytes, fragment: str, line: int) -> None:
    path = "x.json" if raw.startswith(b"{") else "x.yaml"
    source = parse_bytes(path, raw)
    assert len(source.problems) == 1
    problem = source.problems[0]
    assert fragment in problem.message
    assert problem.line == line


def test_alias_bomb_is_refused() -> None:
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    for level in range(1, 9):
        previous = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([previous] * 10)}]")
    source = parse_bytes("bomb.yaml", ("\n".join(lines) + "\n").encode())
    assert source.problems and "alias" in source.problems[0].message
    assert source.documents == []


def test_small_aliases_are_fine() -> None:
    source = parse_bytes("ok.yaml", b"base: &b {x: 1}\nother: *b\n")
    assert not source.problems
    assert source.documents[0].data == {"base": {"x": 1}, "other": {"x": 1}}


@pytest.mark.parametrize("depth", [300, 2000, 20000])
def test_deep_nesting_is_refused(depth: int) -> None:
    source = parse_bytes("deep.yaml", ("a: " + "[" * depth + "]" * depth + "\n").encode())
    assert source.problems and "nest" in source.problems[0].message.lower()


def test_deep_block_nesting_is_refused() -> None:
    text = "".join(" " * i + "k:\n" for i in range(400)) + " " * 400 + "k: 1\n"
    source = parse_bytes("deep.yaml", text.encode())
    assert source.problems and "nest" in source.problems[0].message.lower()


def test_huge_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 100)
    source = parse_bytes("big.yaml", b"a: 1\n" * 50)
    assert "larger than" in source.problems[0].message


def test_good_documents_after_a_broken_one_are_still_linted() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: [broken\n---\n" + PODGROUP_OLD
    findings = lint_text(text)
    assert sorted(codes(findings)) == ["WAS001", "WAS103"]
    broken = _only(findings, "WAS001")
    assert broken.span.line == 6 and broken.document == 1
    assert _only(findings, "WAS103").document == 2
    assert _only(findings, "WAS103").span.line == 6 + 9


def test_empty_documents_and_non_objects_are_skipped() -> None:
    text = "---\n---\n# only a comment\n---\n- a\n- b\n---\njust a string\n---\n{}\n"
    assert lint_text(text) == []


def test_helm_template_that_cannot_be_masked_gets_a_clear_message() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: [{{ .Values.x }}\n"
    finding = _only(lint_text(text), "WAS001")
    assert "Helm/Go template" in finding.message
    assert "after `{{ .Values.x }}` (line 6)" in finding.message  # located and worded from the masked view
    # The branches of an if/else writing one key are alternatives, not a duplicate key.
    branches = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        "  {{- if .Values.a }}\n  labels: {a: b}\n  {{- else }}\n  labels: {c: d}\n  {{- end }}\n"
    )
    assert lint_text(branches) == []


def test_helm_template_that_masks_into_yaml_is_linted() -> None:
    text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    {{- include "x" . | nindent 4 }}\n'
    assert lint_text(text) == []


def test_template_braces_inside_strings_parse_normally() -> None:
    text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  t: "{{.app.metadata.name}}"\n'
    assert lint_text(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: x\nspec: 3\n",
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nspec: {podGroupTemplates: [1, null, {name: [a]}]}\n",
        "apiVersion: v1\nkind: Pod\nspec: {containers: x, workloadRef: 7, schedulingGroup: [1]}\n",
        "apiVersion: batch/v1\nkind: Job\nspec: {scheduling: {disruptionMode: 5}, template: {spec: []}}\n",
        "apiVersion: 5\nkind: [Pod]\n",
        "apiVersion: v1\nkind: List\nitems: [1, 'a', {kind: 3}]\n",
    ],
)
def test_wrong_types_never_crash(text: str) -> None:
    lint_text(text)  # fails on an internal error (a rule that raised): conftest.checked


def test_condition_name_inside_a_command_is_pointed_at_exactly() -> None:
    text = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: w\n        image: k\n"
        '        args: ["wait", "--for=condition=PodGroupScheduled"]\n'
    )
    finding = _only(lint_text(text), "WAS106")
    line = text.splitlines()[finding.span.line - 1]
    assert line[finding.span.column - 1 : finding.span.end_column - 1] == "PodGroupScheduled"


def test_node_trees_are_not_kept_but_positions_still_work() -> None:
    source = parse_bytes(
        "x.yaml", ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n" + PODGROUP_OLD).encode()
    )
    assert all(doc.stored_node is None for doc in source.documents)
    span = source.documents[1].locate(("spec", "disruptionMode"))
    assert (span.line, span.column) == (5 + 8, 3)
    assert source.documents[1].node is source.documents[1].node  # composed once
    assert source._nodes is None  # for that document only, not for the whole file


def _marks(root: object) -> list[tuple[str, int, int, int, int, int, int]]:
    import yaml

    found = []
    pending = [root]
    while pending:
        node = pending.pop()
        assert isinstance(node, yaml.Node)
        start, end = node.start_mark, node.end_mark
        found.append((type(node).__name__, start.index, start.line, start.column, end.index, end.line, end.column))
        if isinstance(node, yaml.MappingNode):
            pending.extend(item for pair in node.value for item in pair)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return found


@needs_corpus
def test_one_document_composed_alone_has_the_marks_of_the_whole_file() -> None:
    compared = 0
    for path in sorted(CORPUS.rglob("*.y*ml"))[::7]:
        source = parse_bytes(str(path), path.read_bytes())
        for doc in source.documents:
            assert _marks(doc.node) == _marks(source.document_node(doc.index)), (path, doc.index)
            compared += 1
    assert compared > 100


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\n---\nkind: [broken\n---\n# c\nb: &x {c: 2}\nd: *x\n",
        "x: 1\r\n---\r\ny: [1, 2]\r\n---\r\nz: {q: r}\r\n",
        "--- |\n  block\n--- {a: 1, b: [x]}\n---\n- é: ü\n- 日本: 語\n",
        "%YAML 1.1\n---\na: 1\n...\n---\nb:\n  - c\n  - d\n",
        "a: 1\rb: 2\r---\rc: 3\r",
    ],
    ids=["after-broken", "crlf", "markers", "directive", "cr"],
)
def test_documents_composed_alone_match_the_whole_file(text: str) -> None:
    source = parse_bytes("x.yaml", text.encode())
    assert source.documents
    for doc in source.documents:
        assert _marks(doc.node) == _marks(source.document_node(doc.index)), doc.index


def test_fix_rewrites_every_value_of_a_json_stream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from waslint.fix.run import FixOptions, fix_paths

    old = JSON_PODGROUP.replace("v1beta1", "v1alpha2").replace(', "disruptionMode": "Pod"', "")
    path = tmp_path / "stream.json"
    path.write_text(old % "a" + old % "b" + "\n" + old % "c" + "\n")
    result, errors = fix_paths([str(path)], FixOptions())
    assert not errors and result.internal_errors == []
    fixed = parse_bytes("stream.json", result.changed[0].encoded())
    assert [doc.data["apiVersion"] for doc in fixed.documents] == ["scheduling.k8s.io/v1beta1"] * 3
    assert not fixed.problems
