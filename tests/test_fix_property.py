"""Property tests: random WAS documents written in random styles, with random comments and line
endings, mixed with non-WAS documents. The fix output parses, keeps every comment and the file's
line breaks, leaves the non-WAS documents byte-identical, passes kubernetes-validate 1.37 strict,
leaves nothing fixable, and a second run changes nothing. With --unsafe-fixes, every old Pod ends
up pointing at exactly one PodGroup, and no two PodGroups share a name."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import kubernetes_validate
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import examples, lint_texts
from waslint.fix.run import FixOptions
from waslint.io.loader import parse_bytes

NAME = st.from_regex(r"[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,3})?", fullmatch=True)
COMMENT = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x85\ufeff"),
    max_size=16,
)
FREE_TEXT = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\x85\ufeff"),
    max_size=24,
)
PLAIN = re.compile(r"^[a-z][a-z0-9./-]*$")
WAS = "scheduling.k8s.io"
PROFILE = settings(max_examples=examples(120), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- documents


@st.composite
def policy(draw: Any, composite: bool = False) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"basic": {}}
    field_name = "minGroupCount" if composite else "minCount"
    return {"gang": {field_name: draw(st.integers(1, 64))}}


@st.composite
def group_fields(draw: Any, legacy_mode: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if draw(st.booleans()):
        fields["disruptionMode"] = (
            draw(st.sampled_from(["Pod", "PodGroup"]))
            if legacy_mode
            else draw(st.sampled_from([{"single": {}}, {"all": {}}]))
        )
    if draw(st.booleans()):
        fields["priorityClassName"] = draw(NAME)
        if draw(st.booleans()):
            fields["priority"] = draw(st.integers(0, 1000))
    return fields


def _shuffled(draw: Any, mapping: dict[str, Any]) -> dict[str, Any]:
    keys = draw(st.permutations(list(mapping)))
    return {key: mapping[key] for key in keys}


@st.composite
def was_document(draw: Any) -> dict[str, Any]:
    shape = draw(st.sampled_from(["wl-a1", "wl-a2", "pg-a2", "wl-a3", "pg-a3", "cpg"]))
    metadata: dict[str, Any] = {"name": draw(NAME)}
    if draw(st.booleans()):
        metadata["namespace"] = draw(NAME)
    spec: dict[str, Any]
    if shape == "wl-a1":
        names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
        spec = {"podGroups": [_shuffled(draw, {"name": n, "policy": draw(policy())}) for n in names]}
        version, kind = "v1alpha1", "Workload"
    elif shape in ("wl-a2", "wl-a3"):
        names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
        legacy = shape == "wl-a2" or draw(st.booleans())
        templates = [
            _shuffled(draw, {"name": n, "schedulingPolicy": draw(policy()), **draw(group_fields(legacy))})
            for n in names
        ]
        if shape == "wl-a3":  # 1.37 forbids priority next to a class; keep the v1alpha3 input valid
            for template in templates:
                template.pop("priority", None)
        spec = {"podGroupTemplates": templates}
        version, kind = ("v1alpha2" if shape == "wl-a2" else "v1alpha3"), "Workload"
    elif shape in ("pg-a2", "pg-a3"):
        legacy = shape == "pg-a2" or draw(st.booleans())
        spec = {"schedulingPolicy": draw(policy()), **draw(group_fields(legacy))}
        if shape == "pg-a3":
            spec.pop("priority", None)
        if draw(st.booleans()):
            inner = _shuffled(draw, {"workloadName": draw(NAME), "podGroupTemplateName": draw(NAME)})
            spec["podGroupTemplateRef"] = {"workload": inner} if shape == "pg-a2" or draw(st.booleans()) else inner
        spec = _shuffled(draw, spec)
        version, kind = ("v1alpha2" if shape == "pg-a2" else "v1alpha3"), "PodGroup"
    else:
        spec = {
            "workloadRef": {"workloadName": draw(NAME), "templateName": draw(NAME)},
            "schedulingPolicy": draw(policy(composite=True)),
        }
        if draw(st.booleans()):
            spec["disruptionMode"] = draw(st.sampled_from(["Pod", "PodGroup"]))
        version, kind = draw(st.sampled_from(["v1alpha2", "v1beta1"])), "CompositePodGroup"
    return {"apiVersion": f"{WAS}/{version}", "kind": kind, "metadata": metadata, "spec": spec}


@st.composite
def other_document(draw: Any) -> dict[str, Any]:
    if draw(st.booleans()):
        data = draw(st.dictionaries(NAME, FREE_TEXT, max_size=3))
        # Text that looks like WAS material but is data: never touched.
        data["example"] = f"apiVersion: {WAS}/v1alpha2\ndisruptionMode: Pod  # not a comment"
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": draw(NAME)}, "data": data}
    ports = [{"port": p} for p in draw(st.lists(st.integers(1, 65535), min_size=1, max_size=2))]
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": draw(NAME)}, "spec": {"ports": ports}}


# --------------------------------------------------------------------------- writing YAML


@dataclass
class Writer:
    """Writes a value as YAML, choosing styles and comments with `draw`."""

    draw: Callable[[Any], Any]
    step: int
    indentless: bool
    density: float = 0.25  # how likely a comment is at each place one can go
    comments: list[str] = field(default_factory=list)

    def comment(self) -> str:
        text = self.draw(COMMENT)
        self.comments.append(text)
        return "# " + text

    def maybe(self, p: float) -> bool:
        return bool(self.draw(st.floats(0, 1)) < p)

    def trailing(self, key: Any = None) -> str:
        if key == "priority" or not self.maybe(self.density):
            return ""
        return " " * self.draw(st.integers(1, 3)) + self.comment()

    def scalar(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        text = str(value)
        plain_ok = PLAIN.match(text) and yaml.safe_load(text) == text  # not `no`, `on`, `1e3`...
        styles = ["single", "double"] + (["plain"] * 3 if plain_ok else [])
        style = self.draw(st.sampled_from(styles))
        if style == "plain":
            return text
        if style == "single" and "\n" not in text:
            return "'" + text.replace("'", "''") + "'"
        return json.dumps(text, ensure_ascii=False)

    def key(self, key: str) -> str:
        return self.scalar(key) if self.maybe(0.1) or yaml.safe_load(key) != key else key

    def flow(self, value: Any) -> str:
        if isinstance(value, dict):
            return "{" + ", ".join(f"{self.key(k)}: {self.flow(v)}" for k, v in value.items()) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.flow(v) for v in value) + "]"
        return self.scalar(value)

    def mapping(self, value: dict[str, Any], indent: int, first_in_item: bool = False) -> list[str]:
        lines: list[str] = []
        for position, (key, item) in enumerate(value.items()):
            lead = first_in_item and position == 0
            if not lead and self.maybe(self.density * 0.6):
                lines.append(" " * indent + self.comment())
            if not lead and self.maybe(0.05):
                lines.append("")
            head = " " * indent + self.key(key) + ":"
            block = isinstance(item, (dict, list)) and item and not self.maybe(0.2)
            if block and isinstance(item, dict):
                lines.append(head + self.trailing())
                lines.extend(self.mapping(item, indent + self.step))
            elif block and isinstance(item, list):
                lines.append(head + self.trailing())
                lines.extend(self.sequence(item, indent + (0 if self.indentless else self.step)))
            else:
                lines.append(head + " " + self.flow(item) + self.trailing(key))
        return lines

    def sequence(self, value: list[Any], indent: int) -> list[str]:
        lines: list[str] = []
        for item in value:
            if isinstance(item, dict) and item and not self.maybe(0.2):
                sub = self.mapping(item, indent + 2, first_in_item=True)
                sub[0] = " " * indent + "- " + sub[0][indent + 2 :]
                lines.extend(sub)
            else:
                lines.append(" " * indent + "- " + self.flow(item) + self.trailing())
        return lines


@dataclass
class Generated:
    text: str
    docs: list[dict[str, Any]]
    chunks: list[str]  # the text of each document (its separator line first)
    comments: list[str]
    eol: str
    bom: bool


@st.composite
def manifest(draw: Any, documents: Any = None) -> Generated:
    docs = draw(
        documents
        if documents is not None
        else st.lists(st.one_of(was_document(), other_document()), min_size=1, max_size=5)
    )
    writer = Writer(draw, draw(st.sampled_from([2, 4])), draw(st.booleans()), draw(st.sampled_from([0.05, 0.25, 0.7])))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    chunks: list[list[str]] = []
    for position, doc in enumerate(docs):
        lines: list[str] = []
        if position or draw(st.booleans()):
            lines.append("---" + (" " + writer.comment() if writer.maybe(0.3) else ""))
        if writer.maybe(0.3):
            lines.append(writer.comment())
        lines.extend(writer.mapping(doc, 0))
        if writer.maybe(0.1) and position == len(docs) - 1:
            lines.append("...")
        chunks.append(lines)
    final = draw(st.booleans())
    texts = [eol.join(lines) for lines in chunks]
    text = eol.join(texts) + (eol if final else "")
    return Generated(text, docs, texts, writer.comments, eol, draw(st.booleans()))


def _split(text: str) -> list[str]:
    """Document chunks of a generated-style text (a chunk starts at a `---` line)."""
    chunks: list[list[str]] = [[]]
    for line in text.splitlines(keepends=True):
        if line.startswith("---") and any(x.strip() for x in chunks[-1]):
            chunks.append([])
        chunks[-1].append(line)
    return ["".join(c) for c in chunks]


def _run(generated: Generated, unsafe: bool = False) -> tuple[str, str]:
    raw = ("\ufeff" if generated.bom else "") + generated.text
    name = "m.yaml"
    from waslint.fix.run import fix_states, state_of

    result = fix_states([state_of(name, raw.encode("utf-8"))], FixOptions(unsafe=unsafe))
    assert result.internal_errors == [], result.internal_errors
    out = result.files[0].encoded().decode("utf-8")
    return raw, out


# --------------------------------------------------------------------------- properties


@PROFILE
@given(manifest())
def test_fix_properties(generated: Generated) -> None:
    raw, out = _run(generated)
    event("fixed" if out != raw else "nothing to fix")
    event(f"eol={generated.eol!r}")
    assert out.startswith("\ufeff") == generated.bom
    body = out.removeprefix("\ufeff")
    # It parses, and keeps the line breaks and the final newline.
    source = parse_bytes("m.yaml", body.encode("utf-8"))
    assert source.problems == []
    if generated.eol == "\r\n":
        assert "\n" not in body.replace("\r\n", "")
    else:
        assert "\r" not in body
    assert body.endswith(generated.eol) == generated.text.endswith(generated.eol)
    # Every comment is still there.
    for text in set(generated.comments):
        assert body.count("# " + text) >= generated.text.count("# " + text), text
    # Non-WAS documents are byte-identical; so is everything when nothing was fixable.
    before, after = _split(generated.text), _split(body)
    assert len(before) == len(after)
    for doc, old, new in zip(generated.docs, before, after, strict=True):
        if not doc["apiVersion"].startswith(WAS):
            assert old.rstrip("\r\n") == new.rstrip("\r\n")
    # The WAS objects pass the 1.37 strict schema, nothing fixable is left, and a rerun is a no-op.
    for data in yaml.safe_load_all(body):
        if data["apiVersion"].startswith(WAS):
            kubernetes_validate.validate(data, "1.37.0", strict=True)
    leftover = [f for f in lint_texts({"m.yaml": body}, select=["WAS1"]).findings if f.fixable]
    assert leftover == []
    _, again = _run(Generated(body, generated.docs, [], [], generated.eol, False))
    assert again == body


@st.composite
def pods_and_workload(draw: Any) -> list[dict[str, Any]]:
    namespace = draw(NAME)
    workload = draw(NAME)
    templates = draw(st.lists(NAME, min_size=1, max_size=2, unique=True))
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": f"{WAS}/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": workload, "namespace": namespace},
            "spec": {"podGroups": [{"name": t, "policy": draw(policy())} for t in templates]},
        }
    ]
    for number in range(draw(st.integers(1, 4))):
        reference: dict[str, Any] = {"name": workload, "podGroup": draw(st.sampled_from(templates))}
        if draw(st.booleans()):
            reference["podGroupReplicaKey"] = draw(st.sampled_from(["0", "1", "a"]))
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"pod-{number}", "namespace": namespace},
                "spec": {"workloadRef": reference, "containers": [{"name": "main", "image": "busybox"}]},
            }
        )
    docs.extend(draw(st.lists(other_document(), max_size=2)))
    return draw(st.permutations(docs))


@PROFILE
@given(manifest(pods_and_workload()))
def test_unsafe_fix_properties(generated: Generated) -> None:
    _, out = _run(generated, unsafe=True)
    body = out.removeprefix("\ufeff")
    source = parse_bytes("m.yaml", body.encode("utf-8"))
    assert source.problems == []
    objects = [doc.data for doc in source.documents]
    groups = [o["metadata"]["name"] for o in objects if o["kind"] == "PodGroup"]
    assert len(groups) == len(set(groups))
    expected = {
        (p["spec"]["workloadRef"]["podGroup"], p["spec"]["workloadRef"].get("podGroupReplicaKey"))
        for p in generated.docs
        if p["kind"] == "Pod"
    }
    assert len(groups) == len(expected)
    for pod in (o for o in objects if o["kind"] == "Pod"):
        assert "workloadRef" not in pod["spec"]
        assert pod["spec"]["schedulingGroup"]["podGroupName"] in groups
        kubernetes_validate.validate(pod, "1.37.0", strict=True)
    for obj in objects:
        if obj["apiVersion"].startswith(WAS):
            kubernetes_validate.validate(obj, "1.37.0", strict=True)
    for text in set(generated.comments):
        assert body.count("# " + text) >= generated.text.count("# " + text), text
    # The other documents are untouched, in order.
    old_other = [
        c for c, d in zip(_split(generated.text), generated.docs, strict=True) if d["kind"] in ("ConfigMap", "Service")
    ]
    new_chunks = [c.rstrip("\r\n") for c in _split(body)]
    for chunk in old_other:
        assert chunk.rstrip("\r\n") in new_chunks
    _, again = _run(Generated(body, [], [], [], generated.eol, False), unsafe=True)
    assert again == body
