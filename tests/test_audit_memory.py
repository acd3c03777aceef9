"""What `waslint audit` keeps of a big cluster (issue 21, "Big clusters"): the stored objects as
lint sources whose text is compressed and whose values are shared between objects, with the same
findings as the plain sources the audit used to build. Not timed: the figures are in
`bench/bench_cluster.py` and docs/performance.md."""

from __future__ import annotations

import copy
import gc
import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import CORPUS, FIXTURES, lint_options
from waslint.audit.collect import Collector, StoredSource, TextPacker, ValueSharer
from waslint.audit.run import release_of
from waslint.findings import Finding
from waslint.io.config import Config
from waslint.io.loader import Document, SourceFile, load_all
from waslint.knowledge.releases import default_target
from waslint.lint.engine import lint_sources
from waslint.sources.cluster.connection import ConnectOptions, connect
from waslint.sources.cluster.discovery import discover

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def _items(folder: Path) -> list[dict[str, Any]]:
    """Every object of the folder's YAML and JSON files, as the API server would serve it."""
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
                        items.append(item)
    return items


def _plain(path: str, item: dict[str, Any], readable: bool) -> SourceFile:
    """The source the audit built before: the object's JSON text and its parsed values, kept whole."""
    text = json.dumps(item, indent=2) if readable else json.dumps(item, separators=(",", ":"))
    source = SourceFile(path=path, text=text, is_json=True)
    source.documents.append(Document(source, 0, item, None, 0, 1, text.count("\n") + 1))
    return source


def _shape(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [(f.code, f.severity, f.message, f.path, f.span, f.object_id, f.field_path) for f in findings]


def _findings_both_ways(folder: str) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], list[str]]:
    items = _items(Path(folder))
    assert len(items) > 5
    packer, sharer = TextPacker(), ValueSharer()
    plain, stored = [], []
    for number, item in enumerate(items):
        readable = item.get("kind") != "Pod"  # as the audit writes member Pods: one line
        path = f"cluster://test/{number}/{item.get('kind')}"
        plain.append(_plain(path, copy.deepcopy(item), readable))
        stored.append(StoredSource(path, sharer.share_item(copy.deepcopy(item)), packer, readable))
        assert stored[-1].documents[0].data == item  # shared values are equal values
        assert stored[-1].text == plain[-1].text
    before = lint_sources(plain, lint_options(), Config())
    after = lint_sources(stored, lint_options(), Config())
    return _shape(before.findings), _shape(after.findings), before.internal_errors + after.internal_errors


@pytest.mark.parametrize("folder", [FIXTURES / "rules", FIXTURES / "demo", CORPUS])
def test_stored_sources_give_the_findings_of_plain_ones(folder: Path) -> None:
    """In a forked child: the corpus, linted twice, would grow this process by 250 MB for the rest
    of the suite (and every child it forks after)."""
    if not folder.is_dir():
        pytest.skip(f"no {folder}")
    with multiprocessing.get_context("fork").Pool(1) as pool:
        before, after, errors = pool.apply(_findings_both_ways, (str(folder),))
    assert len(before) > 0
    assert errors == []
    assert after == before


def test_a_stored_source_answers_words_as_its_text_does() -> None:
    item = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "x"}, "spec": {}}
    source = StoredSource("cluster://t/Pod/p", item, TextPacker(), readable=False)
    for word in ("creationTimestamp", "schedulingGroup", "Pod", '"name":"p"', "kai.scheduler"):
        assert source.mentions(word) is (word in source.text)
        assert source.mentions(word) is (word in source.text)  # the remembered answer


def test_values_are_shared_by_content_and_type() -> None:
    sharer = ValueSharer()
    one = sharer.share_item({"spec": {"a": {"x": 1}, "b": [True], "c": {"x": 1.0}}})
    two = sharer.share_item({"spec": {"a": {"x": 1}, "b": [1], "c": {"x": 1}}})
    assert one["spec"]["a"] is two["spec"]["a"] is two["spec"]["c"]
    assert one["spec"]["b"] is not two["spec"]["b"] and one["spec"]["b"] == [True] and two["spec"]["b"] == [1]
    assert one["spec"]["c"] is not two["spec"]["c"] and isinstance(one["spec"]["c"]["x"], float)
    assert one["spec"] is not two["spec"]  # an object's own top-level fields are never shared


def _unique_bytes(values: list[Any]) -> int:
    """Bytes of a set of values, each object counted once however many hold it."""
    seen: set[int] = set()
    total = 0
    pending = list(values)
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        total += sys.getsizeof(value)
        if isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return total


def test_an_audit_of_3500_pods_keeps_a_bounded_amount_per_object(serve: Any, tmp_path: Path) -> None:
    """The bench cluster, small: 250 gangs of 8 Pods and 250 Jobs of 4 (3,000 member Pods in all)
    and 500 plain Pods. What the collection keeps per object is bounded by what the rules read and
    what differs between objects of one template, not by what the server sends."""
    from bench_cluster import build

    server, kubeconfig = serve(build(nodes=100, pods=3500, jobs=250), token="bench-token")
    connection = connect(ConnectOptions(kubeconfig=str(kubeconfig)))
    discovery = discover(connection, ["", "batch", "scheduling.k8s.io"])
    target = release_of(discovery.server_version) or default_target()
    enabled = gc.isenabled()
    gc.collect()  # the earlier tests' cycles: only the collection's own are counted
    gc.disable()  # as the audit runs it: what the collection leaves behind stays until collected
    try:
        collection = Collector(connection, discovery, None, 500, target, lambda _message: None).run()
        left_behind = gc.collect()
    finally:
        if enabled:
            gc.enable()
    # Indented JSON leaves a cycle of about 30 objects per call; the collection collects them
    # page by page, so at most the last page's are left (before that: all 1,250 objects' cycles).
    assert left_behind < 30 * 500
    pods = [source for source in collection.sources if source.documents[0].data.get("kind") == "Pod"]
    assert len(pods) == 3000 and collection.pods_total == 3500
    assert len(collection.sources) == 3000 + 250 + 2 * 500  # member Pods, Jobs, Workloads and PodGroups
    packed = sum(len(source._packed) for source in collection.sources if isinstance(source, StoredSource))
    assert packed / len(collection.sources) < 120  # about 40 bytes an object on this cluster
    values = _unique_bytes([source.documents[0].data for source in collection.sources])
    assert values / len(collection.sources) < 1400  # about 1,040 bytes of values an object here
    shared = _unique_bytes([pod.documents[0].data for pod in pods[:100]])
    unshared = _unique_bytes([copy.deepcopy(pod.documents[0].data) for pod in pods[:100]])
    assert shared < unshared / 2  # 100 member Pods: what they have in common, once
    first, second = (pod.documents[0].data for pod in pods[:2])
    assert first["spec"]["containers"] is second["spec"]["containers"]
    assert "managedFields" not in json.dumps([pod.text for pod in pods[:10]])
    assert server.methods() == {"GET"}
