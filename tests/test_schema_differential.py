"""Differential tests: the compiled validator in :mod:`waslint.knowledge.schema` against the
jsonschema-based implementation it replaced (ported below as the oracle).

Every (release, kind) and fragment schema is exercised with random instances
derived from the schema itself (valid objects, then mutated: wrong types,
unknown keys, deleted required keys, nulls, nested garbage, YAML oddities such
as timestamps, bytes and sets), and random schemas from the supported keyword
subset are exercised with random values.  Both implementations must return
exactly the same ``(path, message)`` lists.

The only intended differences are for input nested too deeply to validate
(beyond ``schema._MAX_DEPTH`` path elements, or Python's recursion limit for
the oracle); those are covered separately, and the generated instances stay far
below both limits.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from waslint.knowledge import schema

jsonschema = pytest.importorskip("jsonschema")

SCHEMAS = Path(__file__).resolve().parent.parent / "src" / "waslint" / "knowledge" / "schemas"
GEN_CORPUS = Path(__file__).resolve().parent.parent / "bench" / "gen_corpus.py"

Issues = list[tuple[tuple[str | int, ...], str]]


# --------------------------------------------------------------------------- oracle
#
# A port of waslint/schema.py as it was before the compiled validator: one
# jsonschema Draft 2020-12 validator per schema (string type extended to
# datetime/date), every error turned into issues by _oracle_issues_for.  It
# works on raw schema dicts so that it can also check synthetic schemas.

_SIMPLE_KEY_RE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")
_MAX_SHOWN = 60


def _is_string(checker: Any, instance: object) -> bool:
    return isinstance(instance, str | datetime.date)


@functools.cache
def _oracle_class() -> Any:
    from jsonschema import validators

    base: Any = jsonschema.Draft202012Validator
    return validators.extend(base, type_checker=base.TYPE_CHECKER.redefine("string", _is_string))


def _oracle_validator(raw: dict[str, Any]) -> Any:
    return _oracle_class()(raw)


@functools.cache
def _file_validator(release: str, filename: str) -> Any:
    return _oracle_validator(_load(release, filename))


def oracle_validate(validator: Any, title: str, value: object, base: tuple[str | int, ...]) -> Issues:
    issues: set[tuple[tuple[str | int, ...], str]] = set()
    try:
        for error in validator.iter_errors(value):
            issues.update(_oracle_issues_for(error, base, title))
    except RecursionError:
        issues.add((base, _prefixed(base, "value is nested too deeply to validate")))
    except Exception as exc:
        issues.add((base, _prefixed(base, f"could not validate ({type(exc).__name__})")))
    return sorted(issues, key=lambda issue: (_sort_key(issue[0]), issue[1]))


def _oracle_issues_for(
    error: Any, base: tuple[str | int, ...], title: str
) -> Iterable[tuple[tuple[str | int, ...], str]]:
    path = base + tuple(_path_part(p) for p in error.absolute_path)
    keyword = error.validator
    instance = error.instance
    if keyword == "additionalProperties" and isinstance(instance, dict):
        known = error.schema.get("properties") or {}
        where = f"in {_render_path(path)}" if path else "at top level"
        for key in instance:
            if key not in known:
                yield ((*path, str(key)), f"unknown field {_quote_key(key)} {where} (not in {title})")
        return
    if keyword == "required" and isinstance(instance, dict):
        where = f" in {_render_path(path)}" if path else ""
        for name in error.validator_value:
            if name not in instance:
                yield (path, f"missing required field {_quote_key(name)}{where}")
        return
    if keyword == "type":
        expected = _expected_types(error.validator_value)
        yield (path, _prefixed(path, f"expected {expected}, got {_describe(instance)}"))
        return
    if keyword == "enum":
        allowed = list(error.validator_value)
        expected = _show(allowed[0]) if len(allowed) == 1 else "one of " + ", ".join(_show(v) for v in allowed)
        yield (path, _prefixed(path, f"expected {expected}, got {_describe(instance)}"))
        return
    text = str(error.message)
    if len(text) > 200:
        text = text[:197] + "..."
    yield (path, _prefixed(path, text))


def _render_path(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _SIMPLE_KEY_RE.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def _prefixed(path: tuple[str | int, ...], text: str) -> str:
    return f"{_render_path(path)}: {text}" if path else text


def _path_part(part: object) -> str | int:
    if isinstance(part, int) and not isinstance(part, bool):
        return int(part)
    return str(part)


def _sort_key(path: tuple[str | int, ...]) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in path)


def _quote_key(key: object) -> str:
    return repr(str(key)) if isinstance(key, str) else repr(key)


def _expected_types(value: object) -> str:
    if isinstance(value, str):
        types = [value]
    elif isinstance(value, list | tuple):
        types = [str(t) for t in value]
    else:
        types = [str(value)]
    shown = [t for t in types if t != "null"] or types
    return " or ".join(shown)


def _short(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(_short(str(value)))
    if isinstance(value, int):
        return _short(str(int(value)))
    if isinstance(value, float):
        return _short(repr(float(value)))
    return _short(repr(value))


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {_show(value)}"
    if isinstance(value, int):
        return f"integer {_short(str(int(value)))}"
    if isinstance(value, float):
        return f"number {_short(repr(float(value)))}"
    if isinstance(value, str):
        return f"string {_show(value)}"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, datetime.date):
        return f"timestamp {value.isoformat()}"
    return type(value).__name__


# --------------------------------------------------------------------------- targets


@functools.cache
def _load(release: str, filename: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCHEMAS / release / filename).read_text(encoding="utf-8"))
    return data


def _targets() -> list[tuple[str, str, str, str]]:
    """``(release, "kind" | "fragment", key, filename)`` for every schema the index lists."""
    out = []
    for release_dir in sorted(SCHEMAS.iterdir()):
        index = json.loads((release_dir / "index.json").read_text(encoding="utf-8"))
        for key, filename in sorted(index["kinds"].items()):
            out.append((release_dir.name, "kind", key, filename))
        for key, filename in sorted(index["fragments"].items()):
            out.append((release_dir.name, "fragment", key, filename))
    return out


TARGETS = _targets()


def _new(target: tuple[str, str, str, str], value: object, base: tuple[str | int, ...]) -> Issues:
    release, what, key, _ = target
    if what == "kind":
        api_version, _, kind = key.rpartition("/")
        issues = schema.validate_object(release, api_version, kind, value)
    else:
        issues = schema.validate_fragment(release, key, value, base)
    return [(issue.path, issue.message) for issue in issues]


def _old(target: tuple[str, str, str, str], value: object, base: tuple[str | int, ...]) -> Issues:
    release, what, _, filename = target
    raw = _load(release, filename)
    title = str(raw.get("title", filename))
    return oracle_validate(_file_validator(release, filename), title, value, base if what == "fragment" else ())


def test_targets_cover_every_schema_file() -> None:
    files = {(r, f) for r, _, _, f in TARGETS}
    on_disk = {(p.parent.name, p.name) for p in SCHEMAS.rglob("*.json") if p.name != "index.json"}
    assert files == on_disk
    assert len([t for t in TARGETS if t[1] == "kind"]) == 8
    assert (
        len([t for t in TARGETS if t[1] == "fragment"]) == 7
    )  # JobSchedulingConfiguration, PodSchedulingGroup, WorkloadReference; ObjectMeta x3


# --------------------------------------------------------------------------- instances


class Weird:
    """An object YAML cannot produce; its type name shows in messages."""


def _all_property_names() -> list[str]:
    names: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                names.update(props)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for release, _, _, filename in TARGETS:
        walk(_load(release, filename))
    return sorted(names)


PROPERTY_NAMES = _all_property_names()

KEYS: st.SearchStrategy[Any] = (
    st.sampled_from(PROPERTY_NAMES)
    | st.sampled_from(["x", "", "a b", "x.y", "ünï", "1", "$ref", "-"])
    | st.sampled_from([1, 0, -3, True, False, None, 2.5, datetime.date(2026, 1, 2), (1, "a")])
)

LEAVES: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.sampled_from([0.0, -0.0, 1.0, 4.0, 1e20, 1.5, math.inf, -math.inf, math.nan]),
    st.floats(),
    st.text(max_size=8),
    st.text(min_size=55, max_size=80),
    st.sampled_from(["", "v1", "Workload", "PodGroup", "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3"]),
    st.dates(),
    st.datetimes(timezones=st.none() | st.just(datetime.timezone.utc)),
    st.binary(max_size=4),
    st.builds(Weird),
    st.frozensets(st.integers(0, 3), max_size=2),
)

GARBAGE: st.SearchStrategy[Any] = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(KEYS, children, max_size=4),
        st.tuples(children, children),
        st.lists(children, max_size=2).map(tuple),
    ),
    max_leaves=12,
)


def _types(node: dict[str, Any]) -> list[str]:
    value = node.get("type", ["object", "array", "string", "integer", "boolean", "null"])
    return [value] if isinstance(value, str) else list(value)


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def _valid(draw: st.DrawFn, root: dict[str, Any], node: dict[str, Any], budget: list[int]) -> Any:
    """A value that (most likely) satisfies ``node``.  ``budget`` bounds the size:
    once it is spent only required fields are filled in and arrays stay empty."""
    node = _resolve(root, node)
    budget[0] -= 1
    if "enum" in node:
        return draw(st.sampled_from(node["enum"]))
    types = _types(node)
    concrete = [t for t in types if t != "null"]
    if not concrete or ("null" in types and draw(_DIE10) == 0):
        return None
    kind = draw(st.sampled_from(concrete))
    if kind == "object":
        props = node.get("properties")
        if props is None:  # free-form map (metadata)
            return draw(st.dictionaries(st.sampled_from(["name", "labels", "x"]), st.text(max_size=3), max_size=2))
        required = set(node.get("required", []))
        out: dict[str, Any] = {}
        for name, sub in props.items():
            if name in required or (budget[0] > 0 and draw(st.booleans())):
                out[name] = _valid(draw, root, sub, budget)
        return out
    if kind == "array":
        count = draw(st.integers(0, 2)) if budget[0] > 0 else 0
        return [_valid(draw, root, node["items"], budget) for _ in range(count)]
    if kind == "string":
        return draw(st.text(max_size=6) | st.datetimes() | st.sampled_from(["gpu", "workers", "Never"]))
    if kind == "integer":
        return draw(st.integers(-5, 2**40) | st.sampled_from([4.0, -0.0, 2**31]))
    if kind == "number":
        return draw(st.floats(allow_nan=False) | st.integers())
    if kind == "boolean":
        return draw(st.booleans())
    raise AssertionError(kind)


_DIE10 = st.integers(0, 9)
_PERCENT = st.integers(0, 99)


def _mutate(draw: st.DrawFn, value: Any, rate: int) -> Any:
    """Randomly break ``value``: replace/null/wrap values, drop and add keys, grow lists.

    ``rate`` is the per-node mutation chance in percent (0 keeps the value as is)."""
    if rate and draw(_PERCENT) < rate:
        action = draw(_DIE10)
        if action == 0:
            return None
        if action == 1:
            return [value]
        if action == 2:
            return {"value": value}
        if action < 7:
            return draw(LEAVES)  # mostly a scalar of the wrong type
        return draw(GARBAGE)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if rate and draw(_PERCENT) < rate:
                continue  # drop the key (required ones too)
            out[key] = _mutate(draw, item, rate)
        if rate and draw(_PERCENT) < rate * 2:
            out[draw(KEYS)] = draw(GARBAGE)
        return out
    if isinstance(value, list):
        items = [_mutate(draw, item, rate) for item in value]
        if rate and draw(_PERCENT) < rate:
            items.insert(draw(st.integers(0, len(items))), draw(GARBAGE))
        return items
    return value


BASES: st.SearchStrategy[tuple[str | int, ...]] = st.sampled_from(
    [
        (),
        ("spec", "scheduling"),
        ("spec", "jobTemplate", "spec", "scheduling"),
        ("spec", "template", "spec", "schedulingGroup"),
        ("items", 3, "spec", "weird key", 0),
    ]
)


@st.composite
def instances(draw: st.DrawFn, target: tuple[str, str, str, str]) -> tuple[Any, tuple[str | int, ...]]:
    """A mutated valid instance of ``target`` (or, sometimes, of another schema)."""
    source = target if draw(st.integers(0, 3)) else draw(st.sampled_from(TARGETS))
    root = _load(source[0], source[3])
    value = _valid(draw, root, root, [draw(st.sampled_from([5, 15, 40]))])
    if source[1] == "kind" and isinstance(value, dict) and draw(st.booleans()):
        api_version, _, kind = source[2].rpartition("/")
        value = {"apiVersion": api_version, "kind": kind, **value}
    rate = draw(st.sampled_from([0, 2, 5, 10, 25]))
    return _mutate(draw, value, rate), draw(BASES)


DIFF = settings(
    max_examples=examples(150),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("target", TARGETS, ids=[f"{t[0]}-{t[2]}" for t in TARGETS])
@DIFF
@given(data=st.data())
def test_same_issues_as_jsonschema(target: tuple[str, str, str, str], data: st.DataObject) -> None:
    value, base = data.draw(instances(target))
    assert _new(target, value, base) == _old(target, value, base)


@pytest.mark.parametrize("target", TARGETS, ids=[f"{t[0]}-{t[2]}" for t in TARGETS])
@settings(DIFF, max_examples=examples(60))
@given(value=GARBAGE, base=BASES)
def test_same_issues_for_garbage(target: tuple[str, str, str, str], value: Any, base: tuple[str | int, ...]) -> None:
    assert _new(target, value, base) == _old(target, value, base)


@pytest.fixture(scope="module")
def bench_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A benchmark corpus made here (bench/gen_corpus.py, seeded): a test never waits for bench/out."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_gen_corpus", GEN_CORPUS)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generator
    spec.loader.exec_module(generator)
    out = tmp_path_factory.mktemp("bench-corpus")
    assert generator.main(["--out", str(out), "--docs", "1500", "--was-share", "0.3", "--seed", "1"]) == 0
    return out


def _documents(corpus: Path) -> Iterator[Any]:
    yaml = pytest.importorskip("yaml")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in sorted(corpus.rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json"):
            text = path.read_text(encoding="utf-8")
            if "scheduling.k8s.io" in text:
                yield from yaml.load_all(text, Loader=loader)


def test_same_issues_on_bench_corpus(bench_corpus: Path) -> None:
    """Every WAS object of a benchmark corpus against every kind schema of every release."""
    objects = [
        doc
        for doc in _documents(bench_corpus)
        if isinstance(doc, dict) and str(doc.get("apiVersion", "")).startswith("scheduling.k8s.io/")
    ]
    assert len(objects) > 100
    compared = 0
    for target in TARGETS:
        for obj in objects:
            assert _new(target, obj, ("spec", "x")) == _old(target, obj, ("spec", "x"))
            compared += 1
    assert compared == len(TARGETS) * len(objects)


# --------------------------------------------------------------------------- synthetic schemas
#
# Random schemas from the whole supported subset (including combinations the
# generated files do not use yet: $ref with sibling keywords, enum next to
# object keywords, additionalProperties schemas, integer/number/boolean types,
# items without type), checked with random values.

NAMES = ["a", "b", "spec", "x-y", "1"]
TYPE_NAMES = ["object", "array", "string", "integer", "number", "boolean", "null"]
_DIE = {n: st.integers(0, n) for n in range(1, 6)}
_TYPE_LISTS = st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=3, unique=True)
_PROPERTY_LISTS = st.lists(st.sampled_from(NAMES), max_size=3, unique=True)
_REQUIRED_LISTS = st.lists(st.sampled_from(NAMES), max_size=3)
_ENUMS = st.lists(st.sampled_from(["a", "b", "", "x" * 70]), min_size=1, max_size=3)


def _schema_node(draw: st.DrawFn, depth: int, defs: int, min_direct_ref: int) -> dict[str, Any]:
    """A random schema node; a ``$ref`` directly on the node only goes to a
    definition numbered ``>= min_direct_ref`` (no cycle without descending)."""
    node: dict[str, Any] = {}

    def sub() -> dict[str, Any]:
        return _schema_node(draw, depth + 1, defs, 0)

    if draw(_DIE[3]):
        names = draw(_TYPE_LISTS)
        node["type"] = names[0] if len(names) == 1 and draw(_DIE[1]) else names
    if depth < 3 and draw(_DIE[2]) == 0:
        node["properties"] = {name: sub() for name in draw(_PROPERTY_LISTS)}
    if draw(_DIE[3]) == 0:
        node["required"] = draw(_REQUIRED_LISTS)
    if draw(_DIE[3]) == 0:
        node["additionalProperties"] = sub() if depth < 3 and draw(_DIE[1]) else bool(draw(_DIE[1]))
    if depth < 3 and draw(_DIE[3]) == 0:
        node["items"] = sub()
    if draw(_DIE[5]) == 0:
        node["enum"] = draw(_ENUMS)
    if defs > min_direct_ref and draw(_DIE[4]) == 0:
        node["$ref"] = f"#/$defs/d{draw(st.integers(min_direct_ref, defs - 1))}"
    if draw(_DIE[5]) == 0:
        node["format"] = "int32"
        node["x-kubernetes-list-type"] = "atomic"
    return node


@st.composite
def synthetic_schemas(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(0, 3))
    root = _schema_node(draw, 0, count, 0)
    if count:
        root["$defs"] = {f"d{i}": _schema_node(draw, 1, count, i + 1) for i in range(count)}
    root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    if draw(st.booleans()):
        root["title"] = "example/v1 Thing"
    return root


SYNTHETIC_VALUES: st.SearchStrategy[Any] = st.recursive(
    LEAVES | st.sampled_from(["a", "b", "x" * 70]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(NAMES) | KEYS, children, max_size=4)
    ),
    max_leaves=15,
)


@settings(DIFF, max_examples=examples(300))
@given(raw=synthetic_schemas(), value=SYNTHETIC_VALUES, base=BASES)
def test_same_issues_on_synthetic_schemas(raw: dict[str, Any], value: Any, base: tuple[str | int, ...]) -> None:
    title = str(raw.get("title", "thing.json"))
    check = schema._Compiler(raw, title).compile_root()
    new = [(i.path, i.message) for i in schema._run(lambda: check, value, base)]
    assert new == oracle_validate(_oracle_validator(raw), title, value, base)


# --------------------------------------------------------------------------- nesting limits


def _deep_templates(levels: int) -> dict[str, Any]:
    deep: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
    cur = deep
    for _ in range(levels):
        nxt: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
        cur["compositePodGroupTemplates"] = [nxt]
        cur = nxt
    return {"spec": {"compositePodGroupTemplates": [deep]}}


WORKLOAD = ("1.37", "kind", "scheduling.k8s.io/v1beta1/Workload", "workload-scheduling-v1beta1.json")
TOO_DEEP = ((), "value is nested too deeply to validate")


def test_same_issues_up_to_the_depth_limit() -> None:
    # 2 path elements per level: the deepest container (schedulingPolicy.basic of the
    # innermost template) has a path of 3 + 2 * levels + 2 elements
    levels = (schema._MAX_DEPTH - 6) // 2
    obj = _deep_templates(levels)
    assert _new(WORKLOAD, obj, ()) == _old(WORKLOAD, obj, ()) == []
    obj["spec"]["bogus"] = 1
    assert _new(WORKLOAD, obj, ()) == _old(WORKLOAD, obj, ()) != []


def test_too_deep_and_cyclic_input() -> None:
    """Both report the too-deep issue; the new validator reports only that (the
    oracle also kept whatever jsonschema had yielded before it ran out of stack)."""
    deep = _deep_templates(sys.getrecursionlimit())
    deep["extra"] = 1
    assert _new(WORKLOAD, deep, ()) == [TOO_DEEP]
    assert TOO_DEEP in _old(WORKLOAD, deep, ())

    tpl: dict[str, Any] = {"name": "c", "schedulingPolicy": {"basic": {}}}
    tpl["compositePodGroupTemplates"] = [tpl]
    cyclic = {"spec": {"compositePodGroupTemplates": [tpl]}}
    assert _new(WORKLOAD, cyclic, ()) == [TOO_DEEP]
    assert TOO_DEEP in _old(WORKLOAD, cyclic, ())


def test_cyclic_value_that_is_not_descended_into() -> None:
    job = ("1.37", "fragment", "JobSchedulingConfiguration", "jobschedulingconfiguration-batch-v1.json")
    looped: dict[str, Any] = {"schedulingPolicy": {}}
    looped["schedulingPolicy"]["gang"] = looped  # 'schedulingPolicy' is no field of gang
    listed: list[Any] = []
    listed.append(listed)
    looped["disruptionMode"] = listed
    base = ("spec", "scheduling")
    assert (
        _new(job, looped, base)
        == _old(job, looped, base)
        == [
            (
                ("spec", "scheduling", "disruptionMode"),
                "spec.scheduling.disruptionMode: expected object, got array",
            ),
            (
                ("spec", "scheduling", "schedulingPolicy", "gang", "disruptionMode"),
                "unknown field 'disruptionMode' in spec.scheduling.schedulingPolicy.gang"
                " (not in batch/v1 JobSchedulingConfiguration)",
            ),
            (
                ("spec", "scheduling", "schedulingPolicy", "gang", "schedulingPolicy"),
                "unknown field 'schedulingPolicy' in spec.scheduling.schedulingPolicy.gang"
                " (not in batch/v1 JobSchedulingConfiguration)",
            ),
        ]
    )
