"""Helm chart templates linted and fixed at their source positions (template actions masked)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, examples, lint_path, lint_texts, run_cli
from waslint.fix.run import FixOptions, fix_paths
from waslint.io.helm import is_template, mask_template
from waslint.io.helmtext import PLACEHOLDER
from waslint.io.loader import parse_bytes

CHART = FIXTURES / "helm" / "trainer"
EXPECTED = FIXTURES / "helm" / "expected" / "trainer"
ACTION = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def test_masking_keeps_every_offset_and_blanks_lines_of_actions_only() -> None:
    text = 'a:\n  {{- if .x }}\n  b: "{{ .y }}-z"\n  c: {{ .q | quote }}\n  {{- end }}\n'
    masked = mask_template(text)
    assert masked is not None
    assert len(masked.text) == len(text) and masked.text.count("\n") == text.count("\n")
    lines = masked.text.splitlines()
    assert lines[1].strip() == "" and lines[4].strip() == ""
    assert lines[2] == '  b: "' + PLACEHOLDER * 8 + '-z"'
    assert lines[3] == "  c: " + PLACEHOLDER * 16
    assert masked.touches(masked.offset(4, 6), masked.offset(4, 8))
    assert not masked.touches(masked.offset(3, 3), masked.offset(3, 4))
    assert mask_template("a: b\n") is None


@settings(max_examples=examples(60))
@given(st.lists(st.sampled_from(["a: ", "{{ .x }}", "{{- if .y -}}", "\n", "  ", "- ", "b", "{{/* c\n */}}"])))
def test_masking_preserves_length_and_line_breaks(parts: list[str]) -> None:
    text = "".join(parts)
    masked = mask_template(text)
    if masked is None:
        assert "{{" not in text
        return
    assert len(masked.text) == len(text)
    assert [i for i, c in enumerate(masked.text) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]
    assert "{{" not in masked.text and "}}" not in masked.text


def test_a_chart_template_gets_its_findings_at_its_own_lines() -> None:
    result = lint_path(CHART)
    found = [(Path(f.path).name, f.code, f.span.line, f.span.column) for f in result.findings]
    assert ("workload.yaml", "WAS101", 2, 1) in found
    assert ("workload.yaml", "WAS103", 16, 5) in found
    assert ("podgroup.yaml", "WAS101", 1, 1) in found
    assert ("launcher.yaml", "WAS101", 1, 1) in found
    assert [f[0] for f in found if f[1] == "WAS001"] == ["broken.yaml"]
    # A value that comes from an action is unknown until rendered: nothing is said about it
    # (line 21 holds `disruptionMode: {{ .Values.evictionMode }}`, line 10 of the launcher a
    # templated priorityClassName).
    assert not [f for f in found if f[0] == "workload.yaml" and f[2] == 21]
    assert not [f for f in found if f[0] == "launcher.yaml" and f[2] != 1]
    assert all(PLACEHOLDER not in f.message for f in result.findings)
    broken = next(f for f in result.findings if f.code == "WAS001")
    assert "Helm/Go template" in broken.message


def test_fix_rewrites_templates_keeping_every_action_byte_identical(tmp_path: Path) -> None:
    chart = tmp_path / "trainer"
    shutil.copytree(CHART, chart)
    result, errors = fix_paths([str(chart)], FixOptions())
    assert not errors and result.internal_errors == []
    for state in result.files:
        relative = Path(state.path).relative_to(chart)
        assert state.encoded() == (EXPECTED / relative).read_bytes(), relative
        assert ACTION.findall(state.source.text) == ACTION.findall(state.original), relative
    changed = sorted(Path(state.path).name for state in result.changed)
    assert changed == ["podgroup.yaml", "workload.yaml"]
    reasons = {(Path(r.finding.path).name, r.finding.code): r.reason for r in result.remaining}
    assert "holds a Helm template action" in reasons[("launcher.yaml", "WAS101")]
    assert "template, not YAML" in reasons[("broken.yaml", "WAS001")]


def test_a_fixed_template_still_reads_as_the_same_template() -> None:
    fixed = parse_bytes("workload.yaml", (EXPECTED / "templates" / "workload.yaml").read_bytes())
    assert fixed.template is not None and not fixed.problems
    assert fixed.documents[0].data["apiVersion"] == "scheduling.k8s.io/v1beta1"


def test_lint_cli_on_the_chart_points_into_the_template() -> None:
    result = run_cli("lint", "--format", "json", str(CHART / "templates" / "workload.yaml"))
    assert result.returncode == 1
    assert '"line": 2' in result.stdout and PLACEHOLDER not in result.stdout


# -- which files are templates: a chart's templates/ folder, or actions outside YAML comments ----------

PLAIN_WITH_COMMENT_ACTIONS = [
    "a: b # {{ .Values.x }}\n",
    "# {{- if .Values.enabled }}\na: b\n",
    'a: "#" # {{ .x }}\n',
    "a:\n  # {{ .x }}\n  b: c  #{{ .y }}\n",
]
TEMPLATES = [
    "a: {{ .Values.x }}\n",
    'a: "x # {{ .y }}"\n',  # a `#` inside a quoted scalar starts no comment
    "a: |\n  # {{ .y }}\n",  # nor one inside a block scalar
    "a: b # {{ .x }}\nc: {{ .y }}\n",
    'a: "b # {{ .x }}\n',  # YAML's scanner cannot tell: read as a template, as before
]


@pytest.mark.parametrize("text", PLAIN_WITH_COMMENT_ACTIONS)
def test_actions_only_in_yaml_comments_leave_a_plain_file_plain(text: str) -> None:
    assert not is_template("m.yaml", text)
    assert parse_bytes("m.yaml", text.encode()).template is None


@pytest.mark.parametrize("text", TEMPLATES)
def test_an_action_outside_comments_makes_a_template(text: str) -> None:
    assert is_template("m.yaml", text)


def test_a_chart_template_is_a_template_even_with_actions_only_in_comments(tmp_path: Path) -> None:
    """Helm renders every action of a chart's templates/, comments included."""
    text = PLAIN_WITH_COMMENT_ACTIONS[0]
    chart = tmp_path / "chart"
    (chart / "templates" / "sub").mkdir(parents=True)
    assert not is_template(str(chart / "templates" / "a.yaml"), text)  # no Chart.yaml: no chart
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: chart\nversion: 0.1.0\n")
    for path in (chart / "templates" / "a.yaml", chart / "templates" / "sub" / "b.yaml"):
        path.write_text(text)
        assert is_template(str(path), text)
        assert parse_bytes(str(path), text.encode()).template is not None
    assert not is_template(str(chart / "a.yaml"), text)  # beside templates/, not in it


def test_regression_a_comment_action_in_a_pods_workload_ref_does_not_stop_its_unsafe_fix() -> None:
    """Found by tests/test_fix_property.py: a `{{...}}` comment inside a Pod's workloadRef block
    made the plain file a Helm template, and `fix --unsafe-fixes` left WAS105 unfixed."""
    from waslint.fix.run import fix_states, state_of

    text = (
        "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w, namespace: n}\n"
        "spec:\n  podGroups:\n  - name: g\n    policy: {basic: {}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: pod-0, namespace: n}\nspec:\n"
        "  workloadRef:\n    name: w # {{x}}\n    podGroup: g\n  containers: [{name: main, image: busybox}]\n"
    )
    result = fix_states([state_of("m.yaml", text.encode())], FixOptions(unsafe=True))
    assert result.internal_errors == [] and result.remaining == []
    body = result.files[0].encoded().decode()
    assert "# {{x}}" in body and "workloadRef:\n    name" not in body
    assert "schedulingGroup:" in body
    assert [f.code for f in lint_texts({"m.yaml": body}).findings] == []


def _read(text: str):  # type: ignore[no-untyped-def]
    source = parse_bytes("templates/t.yaml", text.encode())
    assert source.template is not None
    return source


def test_branches_of_one_if_else_writing_the_same_key_are_not_duplicates() -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
        "  {{- if .Values.secure }}\n  securityContext:\n    runAsNonRoot: true\n"
        "  {{- else if .Values.root }}\n  securityContext:\n    runAsUser: 0\n"
        "  {{- else }}\n  securityContext: {}\n  {{- end }}\n  containers: []\n"
    )
    source = _read(text)
    assert source.problems == []
    assert source.documents[0].data["spec"]["securityContext"] == {"runAsNonRoot": True}  # the first branch
    # A key written inside an `if` and again after it is a duplicate only when the `if` renders:
    # not a certain one, so not a parse error. Two keys always rendered together are.
    inside = text.replace("  securityContext: {}\n", "  securityContext: {}\n  containers: [a]\n")
    assert _read(inside).problems == []
    twice = text + "  containers: [b]\n"
    problems = _read(twice).problems
    assert [(p.line, "duplicate key 'containers'" in p.message) for p in problems] == [(16, True)]


def test_a_key_named_by_an_action_is_never_a_duplicate() -> None:
    source = _read("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  {{ .a }}: x\n  {{ .b }}: y\n")
    assert source.problems == [] and len(source.documents) == 1


def test_a_block_scalar_whose_first_content_line_is_an_action() -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  config.yaml: |\n"
        "    {{- if .Values.x }}\n    a: 1\n    {{- end }}\n  other.yaml: |\n  {{- if .Values.y }}\n    b: 2\n"
        "  {{- end }}\n  last: z\n"
    )
    source = _read(text)
    assert source.problems == []
    data = source.documents[0].data["data"]
    assert data["last"] == "z" and "a: 1" in data["config.yaml"] and "b: 2" in data["other.yaml"]


def test_actions_side_by_side_on_a_line_read_as_blank() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n{{ if .Values.a -}} {{ if .Values.b -}}\ndata:\n  k: v\n{{ end -}} {{ end -}}\n"
    source = _read(text)
    assert source.problems == [] and source.documents[0].data["data"] == {"k": "v"}


def test_an_action_glued_to_a_keys_colon_is_its_value() -> None:
    text = 'apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: c\nspec:\n  issuerRef:{{ include "issuer" . | nindent 4 }}\n  secretName: s\n'
    source = _read(text)
    assert source.problems == []
    spec = source.documents[0].data["spec"]
    assert spec["secretName"] == "s" and PLACEHOLDER in spec["issuerRef"]


def test_a_define_body_is_not_read_where_it_stands() -> None:
    text = '{{- define "x" }}\nnot: [yaml\n{{- end }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n'
    source = _read(text)
    assert source.problems == [] and source.documents[0].data["kind"] == "ConfigMap"


def test_parse_error_is_located_and_worded_from_the_masked_view() -> None:
    text = "apiVersion: v1\nkind: ConfigMap\n{{- if .Values.x }}\nmetadata:\n  name: c\n  name: d\n{{- end }}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n"
    source = parse_bytes("templates/t.yaml", text.encode())
    assert [(p.line, p.column) for p in source.problems] == [(6, 3)]
    message = source.problems[0].message
    assert "duplicate key 'name'" in message and "inside `{{- if .Values.x }}` (line 3)" in message
    assert "helm template" in message
    assert [doc.data["kind"] for doc in source.documents] == ["Secret"]  # the other document is still read


def test_a_gpu_request_whose_value_is_an_action_still_needs_a_limit(tmp_path: Path) -> None:
    job = (
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: main\n        resources:\n          requests:\n"
        "            nvidia.com/gpu: {{ .Values.gpus }}\n"
    )
    chart = tmp_path / "chart" / "templates"
    chart.mkdir(parents=True)
    (chart / "job.yaml").write_text(job)
    (chart / "limits-by-include.yaml").write_text(job + '          {{- include "limits" . | nindent 10 }}\n')
    (chart / "limits-templated.yaml").write_text(job + "          limits: {{- toYaml .Values.limits | nindent 12 }}\n")
    found = [
        (Path(f.path).name, f.code, f.span.line, f.span.column, f.span.end_column) for f in lint_path(chart).findings
    ]
    assert found == [("job.yaml", "WAS502", 12, 13, 27)]
    message = next(f.message for f in lint_path(chart / "job.yaml").findings)
    assert "requests nvidia.com/gpu: {{…}} without a limit" in message
