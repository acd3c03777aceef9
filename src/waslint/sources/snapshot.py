"""Cluster snapshots: a `kind: List` (YAML or JSON, or a folder of them) of Nodes, Pods,
PriorityClasses, KAI Queues, ResourceSlices and Topologies, as `kubectl get ... -o yaml` prints.

Read through the same loader as manifests; items of other kinds are ignored.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from waslint.io.discover import discover
from waslint.io.loader import read_source
from waslint.objects.kobject import KObject, objects_of


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
        }

    def summary(self) -> dict[str, int]:
        return {
            "nodes": len(self.nodes),
            "pods": len(self.pods),
            "priority_classes": len(self.priority_classes),
            "queues": len(self.queues),
            "resource_slices": len(self.resource_slices),
            "topologies": len(self.topologies),
        }


def load_snapshot(path: str) -> Snapshot:
    if not os.path.exists(path):
        raise SnapshotError(f"snapshot {path}: no such file or directory")
    files, errors = discover([path])
    if errors:
        raise SnapshotError(f"snapshot {errors[0]}")
    snapshot = Snapshot(path)
    buckets = snapshot.buckets()
    readable = 0
    for file_path in files:
        source = read_source(file_path)
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
                if bucket is not None:
                    bucket.append(obj)
    if readable == 0:
        detail = f": {snapshot.problems[0]}" if snapshot.problems else ""
        raise SnapshotError(f"snapshot {path}: no readable Kubernetes List in it{detail}")
    if not snapshot.nodes:
        snapshot.warnings.append(
            f"snapshot {path} holds no Nodes: the rules that need node capacity (WAS603) check nothing"
        )
    return snapshot


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
