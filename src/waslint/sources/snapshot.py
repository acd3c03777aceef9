"""Cluster snapshots: a `kind: List` (YAML or JSON, or a folder of them) of Nodes, Pods,
PriorityClasses, KAI Queues, ResourceSlices and Topologies, Kueue ClusterQueues, LocalQueues,
ResourceFlavors and Workloads, and Volcano Queues, as `kubectl get ... -o yaml` prints.

Read through the same loader as manifests; items of other kinds are ignored. KAI-Scheduler's
captures (`snapshot.zip` holding `snapshot.json`, or `snapshot.json` itself: `{config,
schedulerParams, rawObjects{pods, nodes, queues, podGroups, priorityClasses, resourceSlices,
topologies, ...}}`) are read too: their `rawObjects` lists become one `kind: List` (the Go structs
carry no apiVersion/kind, so each list's kind is set from its key). ConfigMaps and everything
else in them are dropped.

Limits: a snapshot file (or the `snapshot.json` inside a zip, counted in real bytes while it is
decompressed, whatever its header says) is at most MAX_SNAPSHOT_BYTES, the limit `snapshot
capture` writes within; JSON nests at most MAX_DEPTH levels. An object that appears twice (the
same Node in one List or in two files of a folder) is counted once, with a warning.
"""

from __future__ import annotations

import gc
import json
import os
from dataclasses import dataclass, field
from typing import Any

from waslint.io.discover import discover
from waslint.io.loader import Document, Problem, SourceFile, decode, parse_bytes, read_source
from waslint.io.reading import BadJSON, InputError, TooLarge, loads_json, read_bounded
from waslint.objects.kobject import KObject, objects_of

MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024  # what `snapshot capture` writes at most, and --snapshot reads

# KAI snapshot.json rawObjects key -> the apiVersion and kind of its items
KAI_RAW_OBJECTS = {
    "nodes": ("v1", "Node"),
    "pods": ("v1", "Pod"),
    "priorityClasses": ("scheduling.k8s.io/v1", "PriorityClass"),
    "queues": ("scheduling.run.ai/v2", "Queue"),
    "resourceSlices": ("resource.k8s.io/v1", "ResourceSlice"),
    "topologies": ("kai.scheduler/v1alpha1", "Topology"),
}
KAI_SNAPSHOT_MEMBER = "snapshot.json"


class SnapshotError(Exception):
    """The snapshot cannot be used at all (unreadable, not YAML/JSON, no items): exit status 2."""


@dataclass
class Snapshot:
    path: str
    nodes: list[KObject] = field(default_factory=list)
    pods: list[KObject] = field(default_factory=list)
    priority_classes: list[KObject] = field(default_factory=list)
    queues: list[KObject] = field(default_factory=list)
    resource_slices: list[KObject] = field(default_factory=list)
    topologies: list[KObject] = field(default_factory=list)
    kueue: list[KObject] = field(default_factory=list)  # ClusterQueues, LocalQueues, ResourceFlavors, Workloads
    volcano_queues: list[KObject] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # for stderr: the run goes on

    def buckets(self) -> dict[tuple[str, str], list[KObject]]:
        """The list that holds each kind of item the snapshot keeps, by (group, kind)."""
        return {
            ("", "Node"): self.nodes,
            ("", "Pod"): self.pods,
            ("scheduling.k8s.io", "PriorityClass"): self.priority_classes,
            ("scheduling.run.ai", "Queue"): self.queues,
            ("resource.k8s.io", "ResourceSlice"): self.resource_slices,
            ("kueue.x-k8s.io", "Topology"): self.topologies,
            ("kai.scheduler", "Topology"): self.topologies,
            ("kueue.x-k8s.io", "ClusterQueue"): self.kueue,
            ("kueue.x-k8s.io", "LocalQueue"): self.kueue,
            ("kueue.x-k8s.io", "ResourceFlavor"): self.kueue,
            ("kueue.x-k8s.io", "Workload"): self.kueue,
            ("scheduling.volcano.sh", "Queue"): self.volcano_queues,
        }

    def summary(self) -> dict[str, int]:
        return {
            "nodes": len(self.nodes),
            "pods": len(self.pods),
            "priority_classes": len(self.priority_classes),
            "queues": len(self.queues),
            "resource_slices": len(self.resource_slices),
            "topologies": len(self.topologies),
            "kueue_objects": len(self.kueue),
            "volcano_queues": len(self.volcano_queues),
        }

    def queue_objects(self) -> list[KObject]:
        """Every queue object of every scheduler, and Kueue's flavors and admitted Workloads."""
        return [*self.queues, *self.kueue, *self.volcano_queues]


def load_snapshot(path: str) -> Snapshot:
    """Read a snapshot; the cyclic garbage collector is paused meanwhile (see io.loader.load_all)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load_snapshot(path)
    finally:
        if enabled:
            gc.enable()


def _load_snapshot(path: str) -> Snapshot:
    if not os.path.exists(path):
        raise SnapshotError(f"snapshot {path}: no such file or directory")
    files, errors = discover([path])
    if errors:
        raise SnapshotError(f"snapshot {errors[0]}")
    snapshot = Snapshot(path)
    buckets = snapshot.buckets()
    seen: set[tuple[str, str, str | None, str | None]] = set()
    repeated: dict[str, int] = {}
    readable = 0
    for file_path in files:
        source = _read_snapshot_file(file_path)
        if source.read_error is not None:
            raise SnapshotError(f"snapshot {source.read_error}")
        for problem in source.problems:
            snapshot.problems.append(f"{file_path}:{problem.line}:{problem.column}: {problem.message}")
        readable += len(source.documents)
        for doc in source.documents:
            reason = _not_a_list(doc.data)
            if reason is not None:
                where = f"document {doc.index + 1}" if len(source.documents) > 1 or doc.index else "it"
                raise SnapshotError(f"snapshot {file_path}: {where} {reason}")
            for obj in objects_of(doc, "default"):
                bucket = buckets.get((obj.group, obj.kind))
                if bucket is None:
                    continue
                identity = (obj.group, obj.kind, obj.namespace, obj.name)
                if obj.name is not None and identity in seen:
                    repeated[obj.kind] = repeated.get(obj.kind, 0) + 1
                    continue
                seen.add(identity)
                bucket.append(obj)
    for kind, count in repeated.items():
        snapshot.warnings.append(
            f"snapshot {path}: {count} {kind} item(s) appear more than once (same name); each is counted once"
        )
    if readable == 0:
        detail = f": {snapshot.problems[0]}" if snapshot.problems else ""
        raise SnapshotError(f"snapshot {path}: no readable Kubernetes List in it{detail}")
    snapshot.warnings.extend(f"snapshot {problem}" for problem in snapshot.problems)
    if not snapshot.nodes:
        snapshot.warnings.append(
            f"snapshot {path} holds no Nodes: the rules that need node capacity (WAS603) check nothing"
        )
    return snapshot


def _read_snapshot_file(path: str) -> SourceFile:
    import zipfile  # KAI captures only

    if zipfile.is_zipfile(path):
        return _kai_zip(path)
    source = _read_json(path) if path.endswith(".json") else None
    if source is None:
        source = _read_any(path)
    if source.is_json and len(source.documents) == 1 and isinstance(source.documents[0].data, dict):
        raw_objects = source.documents[0].data.get("rawObjects")
        if isinstance(raw_objects, dict):
            return _kai_list(path, raw_objects)
    return source


def _kai_zip(path: str) -> SourceFile:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            member = next((n for n in archive.namelist() if n.rsplit("/", 1)[-1] == KAI_SNAPSHOT_MEMBER), None)
            if member is None:
                raise SnapshotError(f"snapshot {path}: a zip without {KAI_SNAPSHOT_MEMBER} (not a KAI snapshot)")
            data = loads_json(_member_bytes(archive, member, path))
    except BadJSON as err:
        raise SnapshotError(f"snapshot {path}!{member}:{err.line}:{err.column}: {err.reason}") from None
    except (OSError, zipfile.BadZipFile, ValueError, EOFError, NotImplementedError) as err:
        raise SnapshotError(f"snapshot {path}: cannot read the KAI snapshot: {err}") from None
    raw_objects = data.get("rawObjects") if isinstance(data, dict) else None
    if not isinstance(raw_objects, dict):
        raise SnapshotError(f"snapshot {path}: {KAI_SNAPSHOT_MEMBER} has no rawObjects")
    return _kai_list(f"{path}!{member}", raw_objects)


def _member_bytes(archive: Any, member: str, path: str) -> bytes:
    """The member's bytes, counted while they are decompressed: a header may lie about the size."""
    parts: list[bytes] = []
    total = 0
    with archive.open(member) as stream:
        while True:
            chunk = stream.read(1024 * 1024)
            if not chunk:
                return b"".join(parts)
            total += len(chunk)
            if total > MAX_SNAPSHOT_BYTES:
                raise SnapshotError(
                    f"snapshot {path}: {member} decompresses to more than {MAX_SNAPSHOT_BYTES // 2**20} MiB"
                )
            parts.append(chunk)


def _kai_list(path: str, raw_objects: dict[str, Any]) -> SourceFile:
    """The rawObjects this tool uses, as one v1 List (parsed again so positions exist); a key
    that holds no list is a problem of the snapshot, not a crash."""
    items: list[Any] = []
    problems: list[str] = []
    for key, (api_version, kind) in KAI_RAW_OBJECTS.items():
        listed = raw_objects.get(key)
        if listed is None:
            continue
        if not isinstance(listed, list):
            problems.append(f"rawObjects.{key} is a {type(listed).__name__}, not a list: ignored")
            continue
        for item in listed:
            if isinstance(item, dict):
                items.append({"apiVersion": api_version, "kind": kind, **item})
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=1)
    source = parse_bytes(path if path.endswith(".json") else f"{path}.json", text.encode(), limit=2**62)
    source.problems.extend(Problem(message, 1, 1, None) for message in problems)
    return source


def _read_json(path: str) -> SourceFile | None:
    """A JSON snapshot through the json module's C parser alone: a capture of tens of thousands
    of Pods is not linted, so the duplicate-key check of the manifest loader (a Python hook per
    object) is skipped. None when the file does not parse: the manifest loader then says why."""
    try:
        raw = read_bounded(path, MAX_SNAPSHOT_BYTES)
    except InputError:
        return None
    text, problem = decode(raw, MAX_SNAPSHOT_BYTES)
    if problem is not None:
        return None
    try:
        data = loads_json(text)
    except BadJSON:
        return None
    source = SourceFile(path=path, text=text, is_json=True)
    source.documents.append(Document(source, 0, data, None, 0, 1, text.count("\n") + 1))
    return source


def _read_any(path: str) -> SourceFile:
    """A YAML (or JSON that the fast path left) snapshot file, within the snapshot limit."""
    try:
        raw = read_bounded(path, MAX_SNAPSHOT_BYTES)
    except TooLarge:
        raise SnapshotError(f"snapshot {path}: larger than {MAX_SNAPSHOT_BYTES // 2**20} MiB") from None
    except InputError:
        return read_source(path)  # says why in its read_error
    return parse_bytes(path, raw, limit=MAX_SNAPSHOT_BYTES)


def _not_a_list(data: object) -> str | None:
    """Why a snapshot document is not what `kubectl get ... -o yaml` prints, or None."""
    if not isinstance(data, dict):
        return f"is not a kind: List (a {type(data).__name__})"
    kind = data.get("kind")
    if not isinstance(kind, str) or not kind.endswith("List"):
        return f"is a {kind if isinstance(kind, str) else 'document without a kind'}, not a kind: List"
    if not isinstance(data.get("items"), list):
        return "is a kind: List whose items is not a list"
    return None
