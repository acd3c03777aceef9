"""`waslint snapshot capture`: a cluster snapshot for `feasibility`, written as it is read.

The file is the snapshot `List` that `--snapshot` reads (`sources/snapshot.py`). Each item is
reduced to an allow-list of the fields capacity and placement read, so nothing secret can slip in:
Secrets and ConfigMaps are never requested, and Pods keep no env, command, args, volumes, labels or
annotations. Items are written one by one while the lists are paged, so memory is bounded by the
page size, not the cluster.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from waslint.sources.cluster.connection import ClusterError, Connection, RequestFailed
from waslint.sources.cluster.discovery import APIResource, Discovery, discover
from waslint.sources.cluster.lists import DEFAULT_PAGE_SIZE, iter_items

Item = dict[str, Any]
# (prefix, name) -> the name to write: the identity, or a Redactor
Rename = Callable[[str, Any], Any]


def _pick(source: Any, keys: tuple[str, ...]) -> Item:
    if not isinstance(source, dict):
        return {}
    return {key: source[key] for key in keys if source.get(key) not in (None, {}, [])}


def _map(value: Any) -> Item:
    return value if isinstance(value, dict) else {}


def _metadata(item: Item, keys: tuple[str, ...] = ("name", "namespace")) -> Item:
    return _pick(item.get("metadata"), keys)


class Redactor:
    """Replaces namespace and Pod names (and the names that point at them) by salted hashes.

    One salt per capture: names stay consistent inside the file, and cannot be guessed back from
    a dictionary of likely names."""

    def __init__(self, enabled: bool, salt: str | None = None) -> None:
        self.enabled = enabled
        self._salt = (salt or secrets.token_hex(16)).encode()

    def __call__(self, prefix: str, name: Any) -> Any:
        if not self.enabled or not isinstance(name, str):
            return name
        return f"{prefix}-{hashlib.sha256(self._salt + name.encode()).hexdigest()[:12]}"


CONTAINER_KEYS = ("name", "restartPolicy")


def _container(container: Any) -> Item:
    reduced = _pick(container, CONTAINER_KEYS)
    resources = _pick(_pick(container, ("resources",)).get("resources"), ("requests", "limits"))
    if resources:
        reduced["resources"] = resources
    return reduced


def reduce_pod(pod: Item, redact: Rename) -> Item:
    spec = _map(pod.get("spec"))
    metadata = _metadata(pod)
    metadata["name"] = redact("pod", metadata.get("name"))
    metadata["namespace"] = redact("ns", metadata.get("namespace"))
    owner_references = _map(pod.get("metadata")).get("ownerReferences")
    owners = [_pick(owner, ("apiVersion", "kind", "name", "controller")) for owner in owner_references or []]
    for owner in owners:
        owner["name"] = redact("owner", owner.get("name"))
    if owners:
        metadata["ownerReferences"] = owners
    reduced_spec = _pick(
        spec,
        (
            "nodeName",
            "priority",
            "priorityClassName",
            "schedulerName",
            "tolerations",
            "nodeSelector",
            "affinity",
            "overhead",
            "preemptionPolicy",
        ),
    )
    group = _pick(spec.get("schedulingGroup"), ("podGroupName",))
    if group:
        reduced_spec["schedulingGroup"] = {"podGroupName": redact("podgroup", group["podGroupName"])}
    for key in ("containers", "initContainers"):
        if isinstance(spec.get(key), list):
            reduced_spec[key] = [_container(container) for container in spec[key]]
    claims = [_pick(claim, ("name",)) for claim in spec.get("resourceClaims") or [] if isinstance(claim, dict)]
    if claims:
        reduced_spec["resourceClaims"] = claims
    reduced: Item = {
        "apiVersion": pod.get("apiVersion", "v1"),
        "kind": "Pod",
        "metadata": metadata,
        "spec": reduced_spec,
    }
    phase = _pick(pod.get("status"), ("phase",))
    if phase:
        reduced["status"] = phase
    return reduced


def reduce_node(node: Item, redact: Rename) -> Item:
    status = _map(node.get("status"))
    reduced_status = _pick(status, ("allocatable", "capacity"))
    conditions = [_pick(condition, ("type", "status")) for condition in status.get("conditions") or []]
    if conditions:
        reduced_status["conditions"] = conditions
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": _metadata(node, ("name", "labels")),
        "spec": _pick(node.get("spec"), ("taints", "unschedulable")),
        "status": reduced_status,
    }


def reduce_priority_class(item: Item, redact: Rename) -> Item:
    reduced = _pick(item, ("apiVersion", "kind", "value", "globalDefault", "preemptionPolicy"))
    reduced["metadata"] = _metadata(item, ("name",))
    return reduced


def reduce_spec_object(item: Item, redact: Rename) -> Item:
    """ResourceSlices, KAI Queues, Kueue Topologies: cluster-scoped, their spec is capacity data."""
    reduced = _pick(item, ("apiVersion", "kind", "spec"))
    reduced["metadata"] = _metadata(item, ("name", "labels"))
    return reduced


@dataclass(frozen=True)
class Captured:
    group: str
    plural: str
    reduce: Callable[[Item, Rename], Item]
    label: str
    required: bool = False  # a snapshot without it is useless: a failure ends the capture


CAPTURED = (
    Captured("", "nodes", reduce_node, "nodes", required=True),
    Captured("", "pods", reduce_pod, "pods", required=True),
    Captured("scheduling.k8s.io", "priorityclasses", reduce_priority_class, "priority classes"),
    Captured("resource.k8s.io", "resourceslices", reduce_spec_object, "resource slices"),
    Captured("scheduling.run.ai", "queues", reduce_spec_object, "KAI queues"),
    Captured("kueue.x-k8s.io", "topologies", reduce_spec_object, "Kueue topologies"),
)
CAPTURED_GROUPS = sorted({captured.group for captured in CAPTURED})


@dataclass
class CaptureOptions:
    output: str
    namespace: str | None = None
    selector: str | None = None  # label selector for Pods
    node_selector: str | None = None
    redact_names: bool = False
    page_size: int = DEFAULT_PAGE_SIZE


@dataclass
class CaptureResult:
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return ", ".join(f"{count} {label}" for label, count in self.counts.items())


class ListWriter:
    """Writes `{"apiVersion": "v1", "kind": "List", "items": [...]}` one item at a time (JSON or YAML)."""

    def __init__(self, stream: IO[str], as_yaml: bool) -> None:
        self.stream = stream
        self.as_yaml = as_yaml
        self.count = 0
        if as_yaml:
            stream.write("apiVersion: v1\nkind: List\nitems:\n")
        else:
            stream.write('{"apiVersion": "v1", "kind": "List", "items": [\n')

    def write(self, item: Item) -> None:
        if self.as_yaml:
            import yaml

            dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            self.stream.write(yaml.dump([item], Dumper=dumper, default_flow_style=False, sort_keys=False))
        else:
            self.stream.write((",\n" if self.count else "") + json.dumps(item, separators=(",", ":")))
        self.count += 1

    def close(self) -> None:
        if self.as_yaml:
            if not self.count:
                self.stream.write("[]\n")  # `items:` followed by nothing would read as null
        else:
            self.stream.write("\n]}\n")


def _items(
    connection: Connection, resource: APIResource, captured: Captured, options: CaptureOptions
) -> Iterator[Item]:
    if captured.plural == "pods":
        return iter_items(connection, resource, options.namespace, options.selector, options.page_size)
    if captured.plural == "nodes":
        return iter_items(connection, resource, None, options.node_selector, options.page_size)
    return iter_items(connection, resource, None, None, options.page_size)


def capture(connection: Connection, options: CaptureOptions, discovery: Discovery | None = None) -> CaptureResult:
    """Write the snapshot to options.output ('-' for stdout); on failure no partial file is left."""
    discovery = discovery or discover(connection, CAPTURED_GROUPS)
    redact = Redactor(options.redact_names)
    result = CaptureResult()
    to_stdout = options.output == "-"
    temporary = f"{options.output}.partial-{os.getpid()}"
    stream: IO[str] = sys.stdout if to_stdout else open(temporary, "w", encoding="utf-8")  # noqa: SIM115
    try:
        writer = ListWriter(stream, options.output.endswith((".yaml", ".yml")))
        for captured in CAPTURED:
            resource = discovery.preferred(captured.group, captured.plural)
            count = 0
            if resource is None:
                if captured.required:
                    raise ClusterError(f"the cluster serves no {captured.plural} resource")
                continue
            try:
                for item in _items(connection, resource, captured, options):
                    writer.write(captured.reduce(item, redact))
                    count += 1
            except RequestFailed as failure:
                if captured.required:
                    raise
                result.warnings.append(f"{captured.label} not captured: {failure}")
            result.counts[captured.label] = count
        writer.close()
    except BaseException:
        if not to_stdout:
            stream.close()
            os.unlink(temporary)
        raise
    if not to_stdout:
        stream.close()
        os.replace(temporary, options.output)
    return result
