"""`waslint snapshot capture`: a cluster snapshot for `feasibility`, written as it is read.

The file is the snapshot `List` that `--snapshot` reads (`sources/snapshot.py`). Each item is
reduced to an allow-list of the fields capacity, placement and queue admission read, so nothing
secret can slip in: Secrets and ConfigMaps are never requested, and Pods keep no env, command,
args, volumes or annotations, and of their labels only those that charge them to a queue
(`objects/queues.py` queue_labels_to_keep). Kueue Workloads keep only their admission (the quota
they hold), not their pod templates. Items are written one by one while the lists are paged, so memory is
bounded by the page size, not the cluster.

The output is a regular file or stdout (`-`): a device, a FIFO, a socket or a symbolic link at
`-o` is refused before anything is read, and the snapshot is written to `FILE.partial-PID` and
renamed over FILE only when it is whole. It stops at MAX_SNAPSHOT_BYTES, the size `--snapshot`
reads; an error, Ctrl-C or SIGTERM removes the partial file.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from waslint.core.failure import signals_deferred
from waslint.io.reading import kind_of
from waslint.objects.queues import queue_labels_to_keep
from waslint.sources.cluster.connection import ClusterError, Connection, RequestFailed
from waslint.sources.cluster.discovery import APIResource, Discovery, discover
from waslint.sources.cluster.lists import DEFAULT_PAGE_SIZE, ListRead, iter_items
from waslint.sources.snapshot import MAX_SNAPSHOT_BYTES

Item = dict[str, Any]
# (prefix, name) -> the name to write: the identity, or a Redactor
Rename = Callable[[str, Any], Any]


def _pick(source: Any, keys: tuple[str, ...]) -> Item:
    if not isinstance(source, dict):
        return {}
    return {key: source[key] for key in keys if source.get(key) not in (None, {}, [])}


def _map(value: Any) -> Item:
    return value if isinstance(value, dict) else {}


def _maps(value: Any) -> list[Item]:
    """The objects of a JSON list; anything else (a number where a list belongs) is empty."""
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


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
# Label keys whose values are names the redaction replaces: a namespace's, a Job's.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")


def _redact_selector(selector: Any, redact: Rename, namespaces: bool) -> Any:
    """matchLabels values and matchExpressions values of the name-carrying keys, redacted."""
    if not isinstance(selector, dict):
        return selector
    prefixes = {NAMESPACE_NAME_LABEL: "ns"} if namespaces else dict.fromkeys(JOB_NAME_LABELS, "owner")
    result = dict(selector)
    labels = selector.get("matchLabels")
    if isinstance(labels, dict):
        result["matchLabels"] = {
            key: redact(prefixes[key], value) if key in prefixes else value for key, value in labels.items()
        }
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        result["matchExpressions"] = [_redact_expression(expression, redact, prefixes) for expression in expressions]
    return result


def _redact_expression(expression: Any, redact: Rename, prefixes: dict[str, str]) -> Any:
    if not isinstance(expression, dict) or expression.get("key") not in prefixes:
        return expression
    values = expression.get("values")
    if not isinstance(values, list):
        return expression
    prefix = prefixes[expression["key"]]
    return {**expression, "values": [redact(prefix, value) for value in values]}


def _redact_term(term: Any, redact: Rename) -> Any:
    """A pod (anti-)affinity term: its namespaces, namespace selector and job-name selectors."""
    if not isinstance(term, dict):
        return term
    result = dict(term)
    if isinstance(term.get("namespaces"), list):
        result["namespaces"] = [redact("ns", name) for name in term["namespaces"]]
    if "namespaceSelector" in term:
        result["namespaceSelector"] = _redact_selector(term["namespaceSelector"], redact, namespaces=True)
    if "labelSelector" in term:
        result["labelSelector"] = _redact_selector(term["labelSelector"], redact, namespaces=False)
    return result


def redact_affinity(affinity: Any, redact: Rename) -> Any:
    """The Pod's affinity with the names redaction hides (namespaces, Jobs) redacted inside it."""
    if not isinstance(affinity, dict):
        return affinity
    result = dict(affinity)
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = affinity.get(kind)
        if not isinstance(rules, dict):
            continue
        redacted = dict(rules)
        required = rules.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, list):
            redacted["requiredDuringSchedulingIgnoredDuringExecution"] = [_redact_term(t, redact) for t in required]
        preferred = rules.get("preferredDuringSchedulingIgnoredDuringExecution")
        if isinstance(preferred, list):
            redacted["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {**entry, "podAffinityTerm": _redact_term(entry.get("podAffinityTerm"), redact)}
                if isinstance(entry, dict)
                else entry
                for entry in preferred
            ]
        result[kind] = redacted
    return result


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
    owners = [_pick(owner, ("apiVersion", "kind", "name", "controller")) for owner in _maps(owner_references)]
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
    if "affinity" in reduced_spec:
        reduced_spec["affinity"] = redact_affinity(reduced_spec["affinity"], redact)
    group = _pick(spec.get("schedulingGroup"), ("podGroupName",))
    if group:
        reduced_spec["schedulingGroup"] = {"podGroupName": redact("podgroup", group["podGroupName"])}
    for key in ("containers", "initContainers"):
        if isinstance(spec.get(key), list):
            reduced_spec[key] = [_container(container) for container in spec[key]]
    claims = [_pick(claim, ("name",)) for claim in _maps(spec.get("resourceClaims"))]
    if claims:
        reduced_spec["resourceClaims"] = claims
    labels = _pick(_map(pod.get("metadata")).get("labels"), queue_labels_to_keep())
    if labels:
        metadata["labels"] = {key: str(value) for key, value in labels.items()}
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
    conditions = [_pick(condition, ("type", "status")) for condition in _maps(status.get("conditions"))]
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


QUEUE_STATUS_KEYS = ("allocated", "allocatedNonPreemptible", "state")


def reduce_queue(item: Item, redact: Rename) -> Item:
    """KAI and Volcano Queues: their spec (quotas, limits, parent) and the use their status records."""
    reduced = reduce_spec_object(item, redact)
    status = _pick(item.get("status"), QUEUE_STATUS_KEYS)
    if status:
        reduced["status"] = status
    return reduced


def reduce_local_queue(item: Item, redact: Rename) -> Item:
    metadata = _metadata(item)
    metadata["namespace"] = redact("ns", metadata.get("namespace"))
    return {
        "apiVersion": item.get("apiVersion"),
        "kind": "LocalQueue",
        "metadata": metadata,
        "spec": _pick(item.get("spec"), ("clusterQueue",)),
    }


def reduce_kueue_workload(item: Item, redact: Rename) -> Item:
    """A Kueue Workload: only the quota its admission holds (ClusterQueue, flavors, usage) and
    whether it has finished; its pod sets (templates) are left out."""
    metadata = _metadata(item)
    metadata["name"] = redact("owner", metadata.get("name"))
    metadata["namespace"] = redact("ns", metadata.get("namespace"))
    status = _map(item.get("status"))
    admission = _map(status.get("admission"))
    reduced: Item = {"apiVersion": item.get("apiVersion"), "kind": "Workload", "metadata": metadata}
    if admission:
        assignments = [
            _pick(entry, ("name", "flavors", "resourceUsage", "count"))
            for entry in _maps(admission.get("podSetAssignments"))
        ]
        kept: Item = {"clusterQueue": admission.get("clusterQueue"), "podSetAssignments": assignments}
        conditions = [
            _pick(condition, ("type", "status"))
            for condition in _maps(status.get("conditions"))
            if condition.get("type") in ("Finished", "QuotaReserved", "Admitted")
        ]
        reduced["status"] = {"admission": kept, **({"conditions": conditions} if conditions else {})}
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
    Captured("scheduling.run.ai", "queues", reduce_queue, "KAI queues"),
    Captured("kueue.x-k8s.io", "topologies", reduce_spec_object, "Kueue topologies"),
    Captured("kueue.x-k8s.io", "clusterqueues", reduce_spec_object, "Kueue ClusterQueues"),
    Captured("kueue.x-k8s.io", "localqueues", reduce_local_queue, "Kueue LocalQueues"),
    Captured("kueue.x-k8s.io", "resourceflavors", reduce_spec_object, "Kueue ResourceFlavors"),
    Captured("kueue.x-k8s.io", "workloads", reduce_kueue_workload, "Kueue Workloads"),
    Captured("scheduling.volcano.sh", "queues", reduce_queue, "Volcano queues"),
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


class SnapshotTooLarge(ClusterError):
    """The snapshot passed MAX_SNAPSHOT_BYTES: `--snapshot` could not read it."""


class ListWriter:
    """Writes `{"apiVersion": "v1", "kind": "List", "items": [...]}` one item at a time (JSON or YAML),
    counting what it wrote against `limit`."""

    def __init__(self, stream: IO[str], as_yaml: bool, limit: int | None = None) -> None:
        self.stream = stream
        self.as_yaml = as_yaml
        self.count = 0
        self.limit = MAX_SNAPSHOT_BYTES if limit is None else limit
        self.written = 0
        if as_yaml:
            self._put("apiVersion: v1\nkind: List\nitems:\n")
        else:
            self._put('{"apiVersion": "v1", "kind": "List", "items": [\n')

    def _put(self, text: str) -> None:
        self.written += len(text)  # characters: the JSON is ASCII, the YAML nearly so
        if self.written > self.limit:
            raise SnapshotTooLarge(
                f"the snapshot passed {self.limit / 2**20:g} MiB, the most `--snapshot` reads; capture less"
                " (--namespace, --selector, --node-selector)"
            )
        self.stream.write(text)

    def write(self, item: Item) -> None:
        if self.as_yaml:
            import yaml

            dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            self._put(yaml.dump([item], Dumper=dumper, default_flow_style=False, sort_keys=False))
        else:
            self._put((",\n" if self.count else "") + json.dumps(item, separators=(",", ":")))
        self.count += 1

    def close(self) -> None:
        if self.as_yaml:
            if not self.count:
                self.stream.write("[]\n")  # `items:` followed by nothing would read as null
        else:
            self.stream.write("\n]}\n")


def _items(
    connection: Connection, resource: APIResource, captured: Captured, options: CaptureOptions, read: ListRead
) -> Iterator[Item]:
    if captured.plural == "pods":
        return iter_items(connection, resource, options.namespace, options.selector, options.page_size, read)
    if captured.plural == "nodes":
        return iter_items(connection, resource, None, options.node_selector, options.page_size, read)
    return iter_items(connection, resource, None, None, options.page_size, read)


class OutputRefused(OSError):
    """`-o` names something that is not a regular file (or a link): nothing is written."""


def check_output(path: str) -> None:
    """`-o` must be `-`, a new file, or a regular file (replaced whole): never a device, a FIFO,
    a socket or a symbolic link, which a rename would replace (as root, `-o /dev/null` would
    replace the device node) or whose target is not what the name says."""
    if path == "-":
        return
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise OutputRefused(f"-o {path}: {error.strerror or error}") from None
    if stat.S_ISLNK(status.st_mode):
        raise OutputRefused(f"-o {path}: a symbolic link; capture writes only regular files (or '-' for stdout)")
    if not stat.S_ISREG(status.st_mode):
        raise OutputRefused(
            f"-o {path}: not a regular file ({kind_of(status.st_mode)}); capture writes only regular files"
            " (or '-' for stdout)"
        )


def _open_partial(output: str) -> tuple[IO[str], str]:
    """The temporary file, created new (O_EXCL: never through a link planted at its name)."""
    temporary = f"{output}.partial-{os.getpid()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(temporary, flags, 0o644), "w", encoding="utf-8"), temporary


def capture(
    connection: Connection,
    options: CaptureOptions,
    discovery: Discovery | None = None,
    progress: Callable[[str], None] = lambda _message: None,
) -> CaptureResult:
    """Write the snapshot to options.output ('-' for stdout); on failure, Ctrl-C or SIGTERM no
    partial file is left. `progress` hears of each page read (the CLI's status line on a terminal)."""
    check_output(options.output)
    progress("discovery")
    discovery = discovery or discover(connection, CAPTURED_GROUPS)
    redact = Redactor(options.redact_names)
    result = CaptureResult(warnings=list(discovery.problems))
    to_stdout = options.output == "-"
    temporary = ""
    with signals_deferred():  # the file exists only together with the handler that removes it
        if to_stdout:
            stream: IO[str] = sys.stdout
        else:
            stream, temporary = _open_partial(options.output)
    try:
        writer = ListWriter(stream, options.output.endswith((".yaml", ".yml")))
        for captured in CAPTURED:
            resource = discovery.preferred(captured.group, captured.plural)
            count = 0
            progress(f"capturing {captured.label}")
            if resource is None:
                if captured.required:
                    raise ClusterError(f"the cluster serves no {captured.plural} resource")
                continue
            read = ListRead()
            try:
                for item in _items(connection, resource, captured, options, read):
                    writer.write(captured.reduce(item, redact))
                    count += 1
                    if count % options.page_size == 0:
                        progress(f"capturing {captured.label}: {count}")
            except RequestFailed as failure:
                if captured.required:
                    raise
                result.warnings.append(f"{captured.label} not captured: {failure}")
            skipped = read.warning(captured.label)
            if skipped:
                result.warnings.append(skipped)
            result.counts[captured.label] = count
        writer.close()
        if not to_stdout:
            with signals_deferred():
                stream.close()
                check_output(options.output)  # nothing else was put there meanwhile
                os.replace(temporary, options.output)
    except BaseException:
        if not to_stdout:
            with signals_deferred():
                stream.close()
                if os.path.lexists(temporary):
                    os.unlink(temporary)
        raise
    return result
