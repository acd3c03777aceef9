"""What `waslint audit` keeps of a big cluster (issue 21, "Big clusters"): every object packed in
an `ObjectStore` by namespace, decoded again a group of namespaces at a time for the lint, with the
findings of the whole cluster linted at once. Not timed: the figures are in `bench/bench_cluster.py`
and docs/performance.md."""

from __future__ import annotations

import copy
import gc
import json
import multiprocessing
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES, lint_options
from waslint.audit.collect import (
    NO_NAMESPACE,
    Collector,
    ObjectStore,
    StoredSource,
    ValueSharer,
    compact_json,
    object_path,
)
from waslint.audit.run import lint_store, release_of, shards
from waslint.findings import Finding
from waslint.io.config import Config
from waslint.io.loader import Document, SourceFile, load_all
from waslint.knowledge.releases import default_target
from waslint.lint.engine import lint_sources
from waslint.objects.kobject import make_object
from waslint.sources.cluster.connection import ConnectOptions, connect
from waslint.sources.cluster.discovery import discover

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def _items(folder: Path) -> list[dict[str, Any]]:
    """Every object of the folder's YAML and JSON files, as the API server would serve it: a
    namespaced object always has its namespace."""
    items = []
    for source in load_all(
        sorted(str(path) for path in folder.rglob("*") if path.suffix in (".yaml", ".yml", ".json"))
    ):
        for doc in source.documents:
            data = doc.data
            if isinstance(data, dict) and isinstance(data.get("kind"), str) and isinstance(data.get("apiVersion"), str):
                listed = data.get("items") if data["kind"].endswith("List") else None
                for item in listed if isinstance(listed, list) else [data]:
                    if isinstance(item, dict):
                        items.append(_served(item, doc))
    return items


def _served(item: dict[str, Any], doc: Document) -> dict[str, Any]:
    obj = make_object(doc, (), item, "default")
    metadata = item.get("metadata")
    if obj is not None and obj.is_namespaced_guess and isinstance(metadata, dict) and "namespace" not in metadata:
        return {**item, "metadata": {**metadata, "namespace": "default"}}
    return item


def _as_listed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """In the order an audit reads them: list by list (one apiVersion and kind, written on one
    line or not), the lists in the order first seen."""
    lists: dict[tuple[Any, ...], int] = {}
    for item in items:
        lists.setdefault(_list_of(item), len(lists))
    return sorted(items, key=lambda item: lists[_list_of(item)])


def _list_of(item: dict[str, Any]) -> tuple[Any, ...]:
    return (item.get("apiVersion"), item.get("kind"), item.get("kind") != "Pod")


def _keep(store: ObjectStore, item: dict[str, Any], readable: bool) -> None:
    """As the collection keeps it: an object that names no namespace is of a cluster-scoped resource."""
    metadata = item.get("metadata")
    store.add(item, readable, namespaced=isinstance(metadata, dict) and "namespace" in metadata)


def _plain(path: str, item: dict[str, Any], readable: bool) -> SourceFile:
    """The source the audit built before: the object's JSON text and its parsed values, kept whole."""
    text = json.dumps(item, indent=2) if readable else compact_json(item)
    source = SourceFile(path=path, text=text, is_json=True)
    source.documents.append(Document(source, 0, item, None, 0, 1, text.count("\n") + 1))
    return source


def _shape(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [(f.code, f.severity, f.message, f.path, f.span, f.object_id, f.field_path) for f in findings]


def _findings_both_ways(
    folder: str,
) -> tuple[list[tuple[object, ...]], dict[tuple[int, int], list[tuple[object, ...]]], list[str]]:
    """The folder's objects linted as one cluster at once, and from a store a group of namespaces
    at a time (groups of one namespace, of about 50 objects, all in one; and one group because
    the shared objects are more than the limit)."""
    items = _as_listed(_items(Path(folder)))
    assert len(items) > 5
    store = ObjectStore("test")
    plain = []
    for item in items:
        readable = item.get("kind") != "Pod"  # as the audit writes member Pods: one line
        plain.append(_plain(object_path("test", item), copy.deepcopy(item), readable))
        _keep(store, copy.deepcopy(item), readable)
    before = lint_sources(plain, lint_options(), Config())
    errors = list(before.internal_errors)
    after = {}
    for size, shared_limit in ((1, 10**9), (50, 10**9), (10**9, 10**9), (1, 0)):
        result = lint_store(store, lint_options(), Config(), size=size, shared_limit=shared_limit)
        after[(size, shared_limit)] = _shape(result.findings)
        errors += result.internal_errors
        assert result.file_count == result.documents == len(items)
    return _shape(before.findings), after, errors


@pytest.mark.parametrize("folder", [FIXTURES / "rules", FIXTURES / "demo", CORPUS])
def test_a_cluster_linted_by_groups_of_namespaces_gives_the_findings_of_the_whole(folder: Path) -> None:
    """The namespaced objects of a cluster refer only to their own namespace's and to
    cluster-scoped objects: every rule fixture, the demo and the corpus, each served as one
    cluster, give the same findings linted whole and by groups. In a forked child: the corpus,
    linted four times, would grow this process for the rest of the suite."""
    if not folder.is_dir():
        pytest.skip(f"no {folder}")
    with multiprocessing.get_context("fork").Pool(1) as pool:
        before, after, errors = pool.apply(_findings_both_ways, (str(folder),))
    assert len(before) > 0
    assert errors == []
    for (size, shared_limit), found in after.items():
        assert found == before, f"groups of {size} objects, at most {shared_limit} shared"


def test_groups_hold_whole_namespaces_of_about_the_given_size() -> None:
    store = ObjectStore("t")
    for namespace, count in (("a", 3), ("b", 1), ("c", 4), ("d", 2)):
        for number in range(count):
            store.add(
                {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{number}", "namespace": namespace}}, False
            )
    store.add(
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}}, True, False
    )
    assert shards(store, 4) == [["a", "b"], ["c"], ["d"]]
    assert shards(store, 1) == [["a"], ["b"], ["c"], ["d"]]
    assert [source.path for source, _ in store.shared()] == ["cluster://t/PriorityClass/high"]
    assert [source.path for source in store.sources("b")] == ["cluster://t/b/Pod/p0"]
    assert store.count == 11


def test_an_object_of_a_namespaced_resource_without_a_namespace_is_never_cluster_scoped() -> None:
    """A server that leaves out a Pod's namespace does not make every group read that Pod."""
    store = ObjectStore("t")
    store.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "lost"}}, False, namespaced=True)
    store.add(
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}}, True, False
    )
    assert [(source.path, namespace) for source, namespace in store.shared()] == [
        ("cluster://t/PriorityClass/high", None)
    ]
    assert store.namespaces() == [NO_NAMESPACE]
    assert shards(store) == [["default", NO_NAMESPACE]]  # where the lint puts it
    assert [source.path for source in store.sources(NO_NAMESPACE)] == ["cluster://t/Pod/lost"]


def test_a_static_pod_of_the_control_plane_is_read_by_every_group() -> None:
    store = ObjectStore("t")
    static = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kube-apiserver-cp", "namespace": "kube-system"}}
    command = ["kube-apiserver", "--feature-gates=GenericWorkload=true"]
    store.add({**static, "spec": {"containers": [{"name": "apiserver", "command": command}]}}, False)
    member = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "worker", "namespace": "ml"}}
    store.add({**member, "spec": {"containers": [{"name": "kube-scheduler-plugin-test"}]}}, False)
    shared = [(source.path, namespace) for source, namespace in store.shared()]
    assert shared == [("cluster://t/kube-system/Pod/kube-apiserver-cp", "kube-system")]
    assert store.namespaces() == ["kube-system", "ml"] and store.sources("kube-system") == []
    # a Pod with no command line is no gate source, whatever its text names: its own namespace's
    assert [source.path for source in store.sources("ml")] == ["cluster://t/ml/Pod/worker"]


def test_values_are_shared_by_content_and_type() -> None:
    sharer = ValueSharer()
    one = sharer.share_item({"spec": {"a": {"x": 1}, "b": [True], "c": {"x": 1.0}}})
    two = sharer.share_item({"spec": {"a": {"x": 1}, "b": [1], "c": {"x": 1}}})
    assert one["spec"]["a"] is two["spec"]["a"] is two["spec"]["c"]
    assert one["spec"]["b"] is not two["spec"]["b"] and one["spec"]["b"] == [True] and two["spec"]["b"] == [1]
    assert one["spec"]["c"] is not two["spec"]["c"] and isinstance(one["spec"]["c"]["x"], float)
    assert one["spec"] is not two["spec"]  # an object's own top-level fields are never shared


def test_a_namespace_too_large_for_a_group_holds_equal_values_once() -> None:
    store = ObjectStore("t")
    container = {"name": "app", "image": "registry.example/app:1", "resources": {"requests": {"cpu": "1"}}}
    for number in range(3):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{number}", "namespace": "big"}}
        store.add({**pod, "spec": {"containers": [dict(container)]}}, False)
    shared = [source.documents[0].data for source in store.sources("big", share=True)]
    plain = [source.documents[0].data for source in store.sources("big")]
    assert shared == plain
    assert shared[0]["spec"]["containers"] is shared[2]["spec"]["containers"]
    assert plain[0]["spec"]["containers"] is not plain[2]["spec"]["containers"]


def test_a_group_is_freed_as_its_last_reference_goes() -> None:
    """What a group held (sources, objects, the readings they memoise) has no cycle left once it
    is linted: the cyclic collector, paused through the lint, finds none of it. Only the
    sources findings point at (kept for the report, their documents' node trees) remain."""
    store = ObjectStore("t")
    for item in _items(FIXTURES / "demo"):
        _keep(store, item, item.get("kind") != "Pod")
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        result = lint_store(store, lint_options(), Config(), size=1, shared_limit=10**9)
        quoted = {id(source) for source in result.files}
        del result
        gc.collect()
        left = [type(garbage).__name__ for garbage in gc.garbage if id(garbage) not in quoted]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert len(quoted) > 0
    assert not {"StoredSource", "KObject", "PodTemplate", "Group"} & set(left)


def test_a_findings_object_keeps_its_values_not_its_located_text() -> None:
    """An upgrade audit flags every stored object of an unserved version: what each keeps past
    its group is its one-line text and values, not the indented text, lines and node tree its
    finding was located in (those are written again when a report quotes it)."""
    store = ObjectStore("t")
    for namespace in ("a", "b"):
        for number in range(3):
            metadata = {"name": f"pg{number}", "namespace": namespace, "creationTimestamp": "2026-01-01T00:00:00Z"}
            spec = {"schedulingPolicy": {"gang": {"minCount": 4}}}
            store.add(
                {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "PodGroup", "metadata": metadata, "spec": spec},
                True,
            )
    result = lint_store(store, lint_options(), Config(), size=1)
    sources = [source for source in result.files if isinstance(source, StoredSource)]
    assert len(sources) == 6 and len(result.findings) >= 6
    assert all(source._json_root is None and source._text is None and source._lines is None for source in sources)
    quoted = result.findings[0].doc.file.text if result.findings[0].doc is not None else ""
    assert quoted.startswith("{\n") and "v1alpha1" in quoted  # written again to be quoted


def test_many_shared_objects_make_one_group_and_say_so() -> None:
    store = ObjectStore("t")
    for number in range(3):
        store.add(
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{number}"}},
            True,
            False,
        )
    for namespace in ("a", "b"):
        store.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": namespace}}, False)
    assert lint_store(store, lint_options(), Config(), size=1).notes == []
    notes = lint_store(store, lint_options(), Config(), size=1, shared_limit=2).notes
    assert notes == [
        "3 cluster-scoped objects, more than 2: the cluster is linted as one group of namespaces,"
        " so its memory follows the whole cluster"
    ]


def test_a_stored_source_answers_words_as_its_text_does() -> None:
    item = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "creationTimestamp": "x", "annotations": {"note": "a # waslint: ignore"}},
        "spec": {"count": 1, "list": [1, {}], "empty": {}},
    }
    words = ("creationTimestamp", "schedulingGroup", "Pod", '"name":"p"', '"name": "p"', "waslint:", ":1", ": 1", "1,")
    for readable in (True, False):
        source = StoredSource("cluster://t/Pod/p", item, compact_json(item), readable)
        assert source.text == (json.dumps(item, indent=2) if readable else compact_json(item))
        assert source.documents[0].last_line == source.text.count("\n") + 1
        for word in words:
            assert source.mentions(word) is (word in source.text), word


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-999, 99999), st.text('ab:, {}[]"\\1-', max_size=6))
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("ab:, 1", max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(
    value=st.dictionaries(st.text("ab:1", max_size=3), _VALUES, max_size=4),
    word=st.text('ab:, {}[]"1-e', min_size=1, max_size=5),
)
def test_a_word_is_found_in_the_one_line_text_exactly_when_in_the_indented_one(
    value: dict[str, Any], word: str
) -> None:
    """The audit answers the rules' word prefilters from an object's one-line JSON without
    writing the indented text its report quotes: the answers must be the same (seeded)."""
    source = StoredSource("cluster://t/X/x", value, compact_json(value), readable=True)
    assert source.mentions(word) is (word in json.dumps(value, indent=2))


def test_an_audit_of_3500_pods_keeps_a_bounded_amount_per_object(serve: Any, tmp_path: Path) -> None:
    """The bench cluster, small: 250 gangs of 8 Pods and 250 Jobs of 4 (3,000 member Pods in all)
    and 500 plain Pods. The collection keeps each object packed (a few dozen bytes), what the
    rules read and nothing the server sent beside it."""
    from bench_cluster import build

    server, kubeconfig = serve(build(nodes=100, pods=3500, jobs=250), token="bench-token")
    connection = connect(ConnectOptions(kubeconfig=str(kubeconfig)))
    discovery = discover(connection, ["", "batch", "scheduling.k8s.io"])
    target = release_of(discovery.server_version) or default_target()
    enabled = gc.isenabled()
    gc.collect()  # the earlier tests' cycles: only the collection's own are counted
    gc.disable()  # as the audit runs it: what the collection leaves behind stays until collected
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        collection = Collector(connection, discovery, None, 500, target, lambda _message: None).run()
        left_behind = gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        if enabled:
            gc.enable()
    assert left_behind < 1000
    store = collection.store
    # all the collection holds: about 120 bytes an object at this size, the lists' preset
    # dictionaries and the test server's request log included (about 45 at 30,500 objects)
    assert kept / store.count < 200
    assert collection.pods_total == 3500
    assert store.count == 3000 + 250 + 2 * 500  # member Pods, Jobs, Workloads and PodGroups
    assert store.packed_bytes() / store.count < 40  # about 15 bytes an object on this cluster
    sources = [source for namespace in store.namespaces() for source in store.sources(namespace)]
    pods = [source for source in sources if source.documents[0].data.get("kind") == "Pod"]
    assert len(sources) == store.count and len(pods) == 3000
    assert all(source.documents[0].data["metadata"].get("uid") for source in sources)
    assert "managedFields" not in json.dumps([source.text for source in sources[:: len(sources) // 50]])
    assert "TOKEN" not in json.dumps([pod.documents[0].data for pod in pods[:50]])  # env values never kept
    assert server.methods() == {"GET"}
