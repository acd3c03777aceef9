"""Mutated manifests through `lint` and `fix --diff`, in-process (issue 8, the bar).

Real files (the fix fixtures, the WAS1xx rule fixtures, old-version manifests of the corpus) get
one to three mutations: byte flips, truncation, indentation and line-ending changes, NULs,
invalid UTF-8, anchors and aliases, tags, values of the wrong type. Whatever comes out: exit 0
or 1 (never the run's own failure), the JSON report parses, every finding has a line and a
column, and every file `fix` changes parses and its changed objects pass the 1.37 strict schema.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes_validate import utils as kv_utils
from referencing import Registry, Resource

from conftest import CORPUS, FIXTURES, examples, in_process
from waslint.fix.command import FixRequest, run
from waslint.fix.run import FixOptions, fix_paths
from waslint.io.loader import parse_bytes


def _seeds() -> list[Path]:
    found = sorted((FIXTURES / "fix").glob("*/input.*"))
    found += sorted((FIXTURES / "rules").glob("WAS1*/bad.yaml"))
    if CORPUS.is_dir():
        old = [p for p in sorted((CORPUS / "was").rglob("*.yaml")) if b"v1alpha" in p.read_bytes()]
        found += old[::10][:20]
    return found


SEEDS = _seeds()
VALUE = re.compile(rb": ([^\s#][^\n#]*)")
WRONG_TYPES = [b"null", b"5", b"[1, 2]", b"{x: PodGroup}", b"true", b"''", b"-1.5", b"{}", b"podgroup"]
TAGS = [b"!!binary ", b"!custom ", b"!!int ", b"!!str ", b"!!map "]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    seed = draw(st.sampled_from(SEEDS))
    data = seed.read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        data = draw(_mutation(data))
    return seed.suffix, data


def _mutation(data: bytes) -> st.SearchStrategy[bytes]:
    size = max(len(data), 1)
    at = st.integers(0, size - 1)
    values = list(VALUE.finditer(data))
    lines = _lines(data)
    line = st.integers(0, max(len(lines) - 1, 0))
    choices: list[st.SearchStrategy[bytes]] = [
        st.tuples(at, st.integers(0, 7)).map(lambda p: _flip(data, *p)),
        at.map(lambda i: data[:i]),
        st.tuples(line, st.sampled_from([b" ", b"  ", b"\t", b""])).map(lambda p: _indent(lines, *p)),
        st.sampled_from([b"\r\n", b"\r"]).map(lambda eol: data.replace(b"\n", eol)),
        line.map(lambda i: b"\n".join(x + (b"\r" if n == i else b"") for n, x in enumerate(lines))),
        at.map(lambda i: data[:i] + b"\x00" + data[i:]),
        st.tuples(at, st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80"])).map(
            lambda p: data[: p[0]] + p[1] + data[p[0] :]
        ),
    ]
    if values:
        value = st.sampled_from(values)
        choices += [
            st.tuples(value, st.sampled_from(WRONG_TYPES)).map(lambda p: _replace(data, p[0], p[1])),
            st.tuples(value, st.sampled_from(TAGS)).map(lambda p: _replace(data, p[0], p[1] + p[0].group(1))),
            st.tuples(value, value).map(lambda p: _alias(data, *p)),
        ]
    return st.one_of(choices)


def _flip(data: bytes, index: int, bit: int) -> bytes:
    if not data:
        return data
    return data[:index] + bytes([data[index] ^ (1 << bit)]) + data[index + 1 :]


def _indent(lines: list[bytes], number: int, prefix: bytes) -> bytes:
    changed = list(lines)
    if changed:
        changed[number] = prefix + changed[number] if prefix else changed[number][1:]
    return b"\n".join(changed)


def _replace(data: bytes, match: re.Match[bytes], value: bytes) -> bytes:
    return data[: match.start(1)] + value + data[match.end(1) :]


def _alias(data: bytes, anchor: re.Match[bytes], alias: re.Match[bytes]) -> bytes:
    """`&a` on one value, `*a` instead of another (in file order)."""
    first, second = sorted((anchor, alias), key=lambda m: m.start())
    if first.start() == second.start():
        return _replace(data, first, b"&a " + first.group(1))
    head = data[: first.start(1)] + b"&a " + first.group(1) + data[first.end(1) : second.start(1)]
    return head + b"*a" + data[second.end(1) :]


def _objects(raw: bytes) -> list[dict[str, object]]:
    """The objects of a file as waslint reads them (tags left as strings, as Kubernetes does)."""
    found: list[dict[str, object]] = []
    for doc in parse_bytes("x.yaml", raw).documents:
        data = doc.data
        items = data.get("items") if isinstance(data, dict) and str(data.get("kind", "")).endswith("List") else None
        found.extend(item for item in (items if isinstance(items, list) else [data]) if isinstance(item, dict))
    return found


def _errors(obj: dict[str, object]) -> set[tuple[str, str]]:
    """Every kubernetes-validate 1.37 strict error of an object, as (path, message)."""
    try:
        kubernetes_validate.validate(obj, "1.37.0", strict=True)
        return set()
    except kubernetes_validate.ValidationError:
        pass
    api_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", str(obj["apiVersion"]))
    folder = "kubernetes-json-schema/v1.37.0-local-strict"
    schema = kv_utils.schema_contents(f"{folder}/{str(obj['kind']).lower()}-{api_version}.json", "1.37.0")
    definitions = kv_utils.schema_contents(f"{folder}/_definitions.json", "1.37.0")
    registry = Resource.from_contents(definitions) @ (Resource.from_contents(schema) @ Registry())
    validator = jsonschema.validators.Draft202012Validator(schema, registry=registry)
    return {("/".join(map(str, error.absolute_path)), error.message) for error in validator.iter_errors(obj)}


def _strict_problems(after: bytes, before: bytes) -> list[str]:
    """kubernetes-validate 1.37 strict errors of the objects the fix changed: none at all for WAS
    objects; for the others (a Job, whose spec.scheduling the fix edits) none the original lacked
    (waslint owns no Job schema: a broken pod template elsewhere is not the fix's doing)."""
    old = _objects(before)
    new = _objects(after)
    problems = []
    for position, obj in enumerate(new):
        if obj in old:
            continue
        errors = _errors(obj)
        was_object = str(obj.get("apiVersion", "")).startswith("scheduling.k8s.io/")
        if errors and not was_object and len(old) == len(new):
            errors -= _errors(old[position])
        problems.extend(f"{obj.get('kind')}: {path}: {message}" for path, message in sorted(errors))
    return problems


def _check_findings(findings: list[dict[str, object]]) -> None:
    for finding in findings:
        line, column = finding["line"], finding["column"]
        assert isinstance(line, int) and line >= 1, finding
        assert isinstance(column, int) and column >= 1, finding


@pytest.mark.skipif(not SEEDS, reason="no seed files")
@settings(
    max_examples=examples(60),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=mutated())
def test_mutated_manifests_never_break_lint_or_fix(tmp_path: Path, case: tuple[str, bytes]) -> None:
    suffix, data = case
    path = tmp_path / f"mutated{suffix}"
    path.write_bytes(data)

    linted = in_process("lint", "--format", "json", str(path))
    assert linted.returncode in (0, 1), linted.stdout + linted.stderr
    _check_findings(json.loads(linted.stdout)["findings"])

    out, err = io.StringIO(), io.StringIO()
    status = run(FixRequest([str(path)], FixOptions(), mode="diff", fmt="json"), stdout=out, stderr=err)
    assert status in (0, 1), err.getvalue()
    report = json.loads(err.getvalue())
    assert report["internal_errors"] == []
    _check_findings(report["remaining"])

    result, errors = fix_paths([str(path)], FixOptions())
    assert errors == [] and result.internal_errors == []
    for state in result.changed:
        fixed = state.encoded()
        assert parse_bytes(state.path, fixed).problems == [], state.text
        assert _strict_problems(fixed, state.raw) == []
    assert path.read_bytes() == data  # --diff and fix_paths change nothing on disk
