"""Read the objects an audit lints from a live cluster, one page at a time, into an `ObjectStore`.

The store keeps each object as its one-line JSON text, zlib-packed 64 at a time against a preset
dictionary of its list (about 15 bytes an object), by namespace: the audit lints one group of namespaces at a time
(audit/run.py), so only those namespaces' objects are ever decoded at once. Each becomes a
one-document source whose path is `cluster://<context>/<namespace>/<kind>/<name>`
(`cluster://<context>/<kind>/<name>` when cluster-scoped), so findings and suppressions work as they
do for files. The WAS kinds are listed in every served version (CompositePodGroup exists only in
v1alpha3) and kept once per uid. Pods are many: only those naming a PodGroup
(`spec.schedulingGroup`) are kept, reduced to what the rules read. Env, command and args are
dropped from every pod template so a report can never quote them.
"""

from __future__ import annotations

import functools
import gc
import json
import zlib
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from waslint.escape.uri import segment
from waslint.io.loader import Document, SourceFile
from waslint.knowledge.releases import Release, milestone
from waslint.lint.lookups import cluster_wide
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import WAS_KINDS, as_list, as_map, as_str, dig, split_api_version
from waslint.objects.members import controller_ref, membership
from waslint.report.base import SourceTexts
from waslint.sources.cluster.capture import reduce_pod
from waslint.sources.cluster.connection import Connection, RequestFailed
from waslint.sources.cluster.discovery import APIResource, Discovery
from waslint.sources.cluster.lists import ListRead, iter_items

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
SCRUBBED_CONTAINER_KEYS = ("env", "envFrom", "command", "args")
CONTROL_PLANE_COMPONENTS = {"kube-scheduler", "kube-controller-manager"}
Item = dict[str, Any]
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Wanted:
    group: str
    plural: str
    every_version: bool = False


# What an audit reads (where served), beside Nodes (names only, for the kubelets' gates).
WANTED = (
    Wanted(SCHEDULING, "workloads", every_version=True),
    Wanted(SCHEDULING, "podgroups", every_version=True),
    Wanted(SCHEDULING, "compositepodgroups", every_version=True),
    Wanted(SCHEDULING, "priorityclasses"),
    Wanted("batch", "jobs"),
    Wanted("batch", "cronjobs"),
    Wanted("", "pods"),
    Wanted("resource.k8s.io", "resourceclaims"),
    Wanted("scheduling.run.ai", "queues"),
    Wanted("scheduling.run.ai", "podgroups"),
    Wanted("kueue.x-k8s.io", "clusterqueues"),
    Wanted("kueue.x-k8s.io", "localqueues"),
    Wanted("kueue.x-k8s.io", "resourceflavors"),
    Wanted("kueue.x-k8s.io", "topologies"),
    Wanted("scheduling.volcano.sh", "podgroups"),
    Wanted("scheduling.volcano.sh", "queues"),
    Wanted("batch.volcano.sh", "jobs"),
    Wanted("jobset.x-k8s.io", "jobsets"),
    Wanted("leaderworkerset.x-k8s.io", "leaderworkersets"),
)
AUDITED_GROUPS = sorted({wanted.group for wanted in WANTED})


@dataclass
class Writer:
    how: str  # "managedFields: kubectl (Apply)" or "last-applied annotation"
    api_version: str


@dataclass(slots=True)
class StoredObject:
    """A stored WAS object that records the apiVersions it was written with (the report's table)."""

    kind: str
    api_version: str
    namespace: str
    name: str
    writers: tuple[Writer, ...]


@dataclass
class Growth:
    """What enabling WorkloadWithJob would create: one Workload and one PodGroup per managed Job."""

    root_jobs: int = 0
    cronjob_jobs: int = 0
    cronjobs: int = 0


@dataclass
class Collection:
    store: ObjectStore = field(default_factory=lambda: ObjectStore(""))  # what the audit lints
    per_version: Counter[tuple[str, str]] = field(default_factory=Counter)  # (kind, apiVersion) -> objects
    # The stored WAS objects, each once (not per served version): (kind, apiVersion) -> objects
    was_objects: Counter[tuple[str, str]] = field(default_factory=Counter)
    written: list[StoredObject] = field(default_factory=list)  # those that record their writers
    listed_kinds: dict[tuple[str, str], Any] = field(default_factory=dict)  # "*" or set of namespaces
    warnings: list[str] = field(default_factory=list)
    pods_total: int = 0
    node_names: list[str] = field(default_factory=list)
    control_plane_pods: dict[str, list[str]] = field(default_factory=dict)
    growth: Growth = field(default_factory=Growth)
    objects_read: int = 0


def object_path(context: str, item: Item) -> str:
    """`cluster://CONTEXT/NAMESPACE/KIND/NAME`, each part one quoted URI segment: a `../` or `/` in
    a name (or kind) from the server can never point the path, or a report's annotation, elsewhere."""
    metadata = as_map(item.get("metadata"))
    namespace = as_str(metadata.get("namespace"))
    parts = [context, namespace, as_str(item.get("kind")), as_str(metadata.get("name"))]
    return "cluster://" + "/".join(segment(part) for part in parts if part)


def writers_of(item: Item) -> tuple[Writer, ...]:
    """The apiVersions the object was last written with, per manager and by `kubectl apply`."""
    metadata = as_map(item.get("metadata"))
    found = []
    for entry in as_list(metadata.get("managedFields")):
        entry = as_map(entry)
        version = as_str(entry.get("apiVersion"))
        if version:
            how = f"managedFields: {entry.get('manager', '?')} ({entry.get('operation', '?')})"
            found.append(Writer(how, version))
    applied = as_str(as_map(metadata.get("annotations")).get(LAST_APPLIED))
    if applied:
        try:
            version = as_str(as_map(json.loads(applied)).get("apiVersion"))
        except ValueError:
            version = None
        if version:
            found.append(Writer("last-applied annotation", version))
    return tuple(found)


def _scrub_templates(value: Any) -> None:
    """Drop env, envFrom, command and args from every container list in place."""
    if isinstance(value, dict):
        for key, child in value.items():
            if key in ("containers", "initContainers", "ephemeralContainers") and isinstance(child, list):
                for container in child:
                    if isinstance(container, dict):
                        for secret_key in SCRUBBED_CONTAINER_KEYS:
                            container.pop(secret_key, None)
            _scrub_templates(child)
    elif isinstance(value, list):
        for child in value:
            _scrub_templates(child)


def lint_view(item: Item) -> Item:
    """The object as the rules see it: no managedFields, no last-applied copy, no env/command/args."""
    metadata = as_map(item.get("metadata"))
    metadata.pop("managedFields", None)
    annotations = as_map(metadata.get("annotations"))
    annotations.pop(LAST_APPLIED, None)
    if "annotations" in metadata and not annotations:
        del metadata["annotations"]
    _scrub_templates(item.get("spec"))
    return item


def pod_view(pod: Item) -> Item:
    """A member Pod as the rules see it: capture's reduction plus labels, claims and claim statuses."""
    reduced = reduce_pod(pod, lambda _prefix, name: name)
    metadata = as_map(pod.get("metadata"))
    for key in ("labels", "creationTimestamp", "deletionTimestamp", "uid"):
        if key in metadata:
            reduced["metadata"][key] = metadata[key]
    claims = dig(pod, "spec", "resourceClaims")
    if isinstance(claims, list):
        reduced["spec"]["resourceClaims"] = claims
    statuses = dig(pod, "status", "resourceClaimStatuses")
    if isinstance(statuses, list):
        reduced.setdefault("status", {})["resourceClaimStatuses"] = statuses
    return reduced


class StoredTexts(SourceTexts):
    """path -> text of an audit's objects, for the reports: the text of each object a finding
    points at (the others' texts are never written), and every object's path (the store's, decoded
    again when listed: a JUnit report lists them all)."""

    def __init__(self, store: ObjectStore, quoted: list[SourceFile]) -> None:
        super().__init__(quoted)
        self._store = store
        self._paths: list[str] | None = None

    def __iter__(self) -> Iterator[str]:
        return iter(self._listed())

    def __len__(self) -> int:
        return len(self._listed())

    def _listed(self) -> list[str]:
        if self._paths is None:
            self._paths = list(dict.fromkeys(self._store.paths()))
        return self._paths


class StoredSource(SourceFile):
    """A live object's one-document source. Its text is the object's JSON, indented because a
    report quotes it (member Pods are many, so theirs is the one-line form): the indented text is
    built only when a finding locates or quotes the object; until then the one-line text answers
    the rules' word prefilters (`mentions`), which find a word in both texts alike when the word
    cannot span JSON's punctuation (`_same_in_both`)."""

    _text: str | None

    def __init__(self, path: str, item: Item, compact: str, readable: bool = True) -> None:
        self._compact = compact
        self._readable = readable
        super().__init__(path=path, text="", is_json=True)
        self.documents.append(StoredDocument(self, 0, item, None))

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            text = self._text = json.dumps(json.loads(self._compact), indent=2) if self._readable else self._compact
        return text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value or None

    def mentions(self, word: str) -> bool:
        return word in (self._compact if _same_in_both(word) else self.text)

    def forget_text(self) -> None:
        """Drop the indented text, its lines and the node tree its findings were located in
        (written again if a report quotes the object): what a finding's object keeps after its
        group is its one-line text and values."""
        self._text = None
        self._lines = None
        self._json_root = None
        self._json_tried = False
        self._nodes = None


class StoredDocument(Document):
    """The one document of a StoredSource: its last line is counted in the text only if asked for
    (nothing does in an audit: JSON holds no suppression comment), so the text is not written."""

    __slots__ = ()

    @property
    def last_line(self) -> int:
        return self.file.text.count("\n") + 1

    @last_line.setter
    def last_line(self, _value: int) -> None:
        pass


def compact_json(item: Item) -> str:
    """The one-line JSON of an object (the json module's C encoder: it runs only without indent)."""
    return json.dumps(item, separators=(",", ":"))


@functools.lru_cache(maxsize=256)
def _same_in_both(word: str) -> bool:
    """Whether `word` occurs in an object's indented JSON exactly when it occurs in its one-line
    JSON. The two differ only in white space after a structural `:` or `,` (and around brackets):
    a word without white space, quotes, brackets or commas lies within one token there, and tokens
    are written alike; a colon in it is a structural one only right after a key's closing quote."""
    if not word or any(char in word for char in ' \t\n\r",[]{}'):
        return False
    return word[0] != ":"


class TextPacker:
    """zlib with a preset dictionary per list: the list's first chunk, cut to zlib's window (the
    objects of one kind share most of their keys and many values)."""

    def __init__(self) -> None:
        self._dictionaries: dict[Hashable, bytes] = {}

    def pack(self, key: Hashable, text: str) -> bytes:
        data = text.encode()
        dictionary = self._dictionaries.setdefault(key, data[:ZDICT_BYTES])
        packer = zlib.compressobj(zdict=dictionary)
        return packer.compress(data) + packer.flush()

    def unpack(self, key: Hashable, packed: bytes) -> str:
        return zlib.decompressobj(zdict=self._dictionaries[key]).decompress(packed).decode()


ZDICT_BYTES = 32 * 1024  # zlib's window: a longer dictionary is cut to its end
CHUNK_OBJECTS = 64  # objects packed together (a list's objects come in namespace order)
NO_NAMESPACE = "<none>"  # a namespaced object without a namespace (no namespace is spelled so)
WIDE = "*"  # before a namespace: the bucket of its cluster-wide objects
# One list of the store: the objects of one apiVersion and kind, written indented (readable) or not.
ListKey = tuple[str, str, bool]


class ObjectStore:
    """The objects an audit lints, by namespace ("" for cluster-scoped objects) and, within one,
    by list in the order they were read: what an object holds is decoded again only when its
    namespace is linted. Consecutive objects of one list and namespace (a list comes in namespace
    order) are packed together, up to `CHUNK_OBJECTS`, as lines of one-line JSON (`TextPacker`:
    about 15 bytes an object on the bench cluster), so the store holds one chunk's text unpacked
    at a time.

    The namespaced objects of a cluster never refer to another namespace's (a PodGroup names a
    Workload, a Pod its PodGroup, a claim its template in its own namespace) but for the gate
    sources (lint/lookups.py `cluster_wide`), so a group of whole namespaces, with every
    cluster-scoped and cluster-wide object, lints as the whole cluster does (audit/run.py)."""

    def __init__(self, context: str) -> None:
        self.context = context
        self._packer = TextPacker()
        self._lists: dict[ListKey, int] = {}  # the lists in reading order
        # by bucket: a namespace, "" the cluster-scoped objects, WIDE + a namespace its
        # cluster-wide objects (lint/lookups.py cluster_wide)
        self._chunks: dict[str, dict[ListKey, list[bytes]]] = {}
        self._counts: dict[str, int] = {}  # by namespace, "" cluster-scoped
        self._open: tuple[str, ListKey] = ("", ("", "", False))
        self._pending: list[str] = []

    def add(self, item: Item, readable: bool, namespaced: bool = True) -> None:
        """Keep one object; `namespaced`: whether its resource is (discovery says so; an object of
        a namespaced resource that names no namespace is kept apart, never as cluster-scoped)."""
        api_version, kind = as_str(item.get("apiVersion")) or "", as_str(item.get("kind")) or ""
        key = (api_version, kind, readable)
        namespace = (as_str(dig(item, "metadata", "namespace")) or NO_NAMESPACE) if namespaced else ""
        compact = compact_json(item)
        bucket = namespace
        if namespaced and cluster_wide(split_api_version(api_version)[0], kind, compact):
            bucket = WIDE + namespace
        if (bucket, key) != self._open or len(self._pending) >= CHUNK_OBJECTS:
            self._flush()
            self._open = (bucket, key)
            self._lists.setdefault(key, len(self._lists))
        self._pending.append(compact)
        self._counts[namespace] = self._counts.get(namespace, 0) + 1

    def _flush(self) -> None:
        if self._pending:
            namespace, key = self._open
            packed = self._packer.pack(key, "\n".join(self._pending))  # one-line JSON holds no newline
            self._chunks.setdefault(namespace, {}).setdefault(key, []).append(packed)
            self._pending = []

    @property
    def count(self) -> int:
        return sum(self._counts.values())

    def namespaces(self) -> list[str]:
        """The namespaces that hold objects (cluster-wide ones included), in order."""
        return sorted(namespace for namespace in self._counts if namespace)

    def size(self, namespace: str) -> int:
        """The number of objects of one namespace."""
        return self._counts.get(namespace, 0)

    def packed_bytes(self) -> int:
        self._flush()
        return sum(len(chunk) for lists in self._chunks.values() for chunks in lists.values() for chunk in chunks)

    def paths(self) -> Iterator[str]:
        """Every object's path, decoded again chunk by chunk (a JUnit report lists them all)."""
        self._flush()
        for lists in self._chunks.values():
            for key, chunks in lists.items():
                for chunk in chunks:
                    for item in self._decoded(key, chunk)[1]:
                        yield object_path(self.context, item)

    def _decoded(self, key: ListKey, chunk: bytes) -> tuple[list[str], list[Item]]:
        """A chunk's one-line texts and their values, decoded in one call (so its objects share
        their key strings)."""
        texts = self._packer.unpack(key, chunk).split("\n")
        return texts, json.loads("[" + ",".join(texts) + "]")

    def shared(self) -> list[tuple[SourceFile, str | None]]:
        """The objects every group reads, in reading order, as lint sources, each with the
        namespace whose group owns its findings (None: a cluster-scoped object): the cluster-scoped
        objects and the cluster-wide ones (lint/lookups.py `cluster_wide`), which are not among
        their namespace's."""
        self._flush()
        buckets = ["", *sorted(bucket for bucket in self._chunks if bucket.startswith(WIDE))]
        found: list[tuple[SourceFile, str | None]] = []
        for key in self._keys(buckets):
            for bucket in buckets:  # a list is read in namespace order
                owner = bucket[len(WIDE) :] if bucket else None
                found.extend((source, owner) for source in self._decode(bucket, key, None))
        return found

    def sources(self, namespace: str, share: bool = False) -> list[SourceFile]:
        """The objects of one namespace as lint sources (see `group`)."""
        return self.group([namespace], share)

    def group(self, namespaces: list[str], share: bool = False) -> list[SourceFile]:
        """The objects of some namespaces (but their cluster-wide ones: `shared`) as lint
        sources, in reading order: list by list, each in namespace order. `share`: equal values
        are held once across the objects (`ValueSharer`), for a namespace too large to be linted
        in a small group."""
        self._flush()
        sharer = ValueSharer() if share else None
        buckets = sorted(namespaces, key=lambda namespace: (namespace != NO_NAMESPACE, namespace))
        return [
            source for key in self._keys(buckets) for bucket in buckets for source in self._decode(bucket, key, sharer)
        ]

    def _keys(self, buckets: list[str]) -> list[ListKey]:
        """The lists the buckets hold, in reading order."""
        keys = {key for bucket in buckets for key in self._chunks.get(bucket, {})}
        return sorted(keys, key=self._lists.__getitem__)

    def _decode(self, bucket: str, key: ListKey, sharer: ValueSharer | None) -> list[SourceFile]:
        found: list[SourceFile] = []
        for chunk in self._chunks.get(bucket, {}).get(key, ()):
            for compact, item in zip(*self._decoded(key, chunk), strict=True):
                if sharer is not None:
                    sharer.share_item(item)
                found.append(StoredSource(object_path(self.context, item), item, compact, key[2]))
        return found


class ValueSharer:
    """One instance of each distinct string, list and map below an object's top-level fields. The
    objects of one template (the Pods of a Job, the Jobs of a CronJob) differ in a few fields:
    their containers, tolerations, labels and owner references are then held once. The audit never
    writes to a stored object's values, so sharing them is safe; equality includes the type of each
    scalar (true is not 1)."""

    def __init__(self) -> None:
        self._memo: dict[Any, Any] = {}

    def share_item(self, item: Item) -> Item:
        for value in item.values():
            if isinstance(value, dict):  # metadata, spec, status: each object's own
                for key, child in value.items():
                    value[key] = self._share(child)
        return item

    def _share(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._memo.setdefault(value, value)
        if isinstance(value, dict):
            for key, child in value.items():
                value[key] = self._share(child)
            parts = (part for key, child in value.items() for part in (key, *_part(child)))
            identity: tuple[Any, ...] = ("map", *parts)
        elif isinstance(value, list):
            for position, child in enumerate(value):
                value[position] = self._share(child)
            identity = ("list", *(part for child in value for part in _part(child)))
        else:
            return value
        return self._memo.setdefault(identity, value)


def _part(value: Any) -> tuple[Any, Any]:
    """How a shared value stands in its parent's identity: containers by their (shared) instance."""
    return (type(value), id(value) if isinstance(value, (dict, list)) else value)


def _job_is_managed(job: Item, target: Release) -> bool:
    """Whether the Job controller would make a Workload and PodGroup for this Job (kubernetes/kubernetes
    `pkg/controller/job/job_scheduling_manager.go`, KEP-5547)."""
    spec = as_map(job.get("spec"))
    template = as_map(spec.get("template"))
    if membership(as_map(template.get("metadata")), as_map(template.get("spec"))).scheduling_group:
        return False  # opted out: a bring-your-own PodGroup
    finished = any(
        as_map(c).get("type") in ("Complete", "Failed") and as_map(c).get("status") == "True"
        for c in as_list(dig(job, "status", "conditions"))
    )
    if finished:
        return False
    if target < milestone("beta-api"):  # 1.36 inferred gangs: only gang-eligible Jobs
        parallelism = spec.get("parallelism")
        return (
            isinstance(parallelism, int)
            and parallelism > 1
            and spec.get("completionMode") == "Indexed"
            and spec.get("completions") == parallelism
        )
    return True


class Collector:
    def __init__(
        self,
        connection: Connection,
        discovery: Discovery,
        namespace: str | None,
        page_size: int,
        target: Release,
        progress: Progress,
    ) -> None:
        self.connection = connection
        self.discovery = discovery
        self.namespace = namespace
        self.page_size = page_size
        self.target = target
        self.progress = progress
        self.result = Collection(store=ObjectStore(connection.context))
        self._uids: set[str] = set()
        self._namespaced = True  # the resource being listed

    def run(self) -> Collection:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._run()
        finally:
            if enabled:
                gc.enable()

    def _run(self) -> Collection:
        self._nodes()
        for wanted in WANTED:
            self._uids = set()  # a uid is looked for among the versions of one resource only
            served = self.discovery.find(wanted.group, wanted.plural)
            for resource in served if wanted.every_version else served[:1]:
                self._list(resource)
        if self.namespace is not None and self.namespace != "kube-system":
            pods = self.discovery.preferred("", "pods")
            if pods is not None:
                self._read(pods, self._control_plane_pod, "kube-system", "tier=control-plane")
        return self.result

    def _read(
        self, resource: APIResource, handle: Callable[[Item], None], namespace: str | None, selector: str | None = None
    ) -> bool:
        label = f"{resource.plural}.{resource.group_version}"
        read = ListRead()
        items = iter_items(self.connection, resource, namespace, selector, self.page_size, read)
        try:
            for count, item in enumerate(items, 1):
                handle(item)
                self.result.objects_read += 1
                if count % self.page_size == 0:
                    self.progress(f"reading {label}: {count}")
                    # The cyclic collector is paused (the store holds bytes, which it never
                    # scans); whatever cycles a page left behind are in the young generation.
                    gc.collect(0)
        except RequestFailed as failure:
            self.result.warnings.append(f"{label} not read: {failure}")
            return False
        finally:
            skipped = read.warning(label)
            if skipped:
                self.result.warnings.append(skipped)
        return True

    def _nodes(self) -> None:
        nodes = self.discovery.preferred("", "nodes")
        if nodes is not None:
            self._read(nodes, lambda item: self.result.node_names.append(str(dig(item, "metadata", "name"))), None)
            unique = list(dict.fromkeys(self.result.node_names))
            if len(unique) < len(self.result.node_names):
                repeated = len(self.result.node_names) - len(unique)
                self.result.warnings.append(f"nodes: {repeated} Node(s) listed more than once; each is counted once")
                self.result.node_names = unique

    def _list(self, resource: APIResource) -> None:
        self._namespaced = resource.namespaced
        namespace = self.namespace if resource.namespaced else None
        handle = self._pod if resource.plural == "pods" and resource.group == "" else self._object
        if self._read(resource, handle, namespace):
            scope: Any = "*" if namespace is None else {namespace}
            self.result.listed_kinds[(resource.group, resource.kind)] = scope

    def _control_plane_pod(self, pod: Item) -> None:
        component = as_str(dig(pod, "metadata", "labels", "component"))
        if as_str(dig(pod, "metadata", "namespace")) == "kube-system" and component in CONTROL_PLANE_COMPONENTS:
            name = str(dig(pod, "metadata", "name"))
            self.result.control_plane_pods.setdefault(component, []).append(name)

    def _pod(self, pod: Item) -> None:
        self.result.pods_total += 1
        self._control_plane_pod(pod)
        if not membership(as_map(pod.get("metadata")), as_map(pod.get("spec"))).scheduling_group:
            return
        self.result.per_version[("Pod with schedulingGroup", str(pod.get("apiVersion", "v1")))] += 1
        self._add(pod_view(pod), readable=False)

    def _object(self, item: Item) -> None:
        kind, api_version = str(item.get("kind", "")), str(item.get("apiVersion", ""))
        self.result.per_version[(kind, api_version)] += 1
        uid = as_str(dig(item, "metadata", "uid"))
        if uid is not None:
            if uid in self._uids:
                return  # the same stored object, served in another version
            self._uids.add(uid)
        if kind in WAS_KINDS and api_version.startswith(SCHEDULING + "/"):
            self.result.was_objects[(kind, api_version)] += 1
            writers = writers_of(item)
            if writers:
                metadata = as_map(item.get("metadata"))
                namespace, name = str(metadata.get("namespace", "")), str(metadata.get("name", ""))
                self.result.written.append(StoredObject(kind, api_version, namespace, name, writers))
        if kind == "Job" and api_version == "batch/v1" and _job_is_managed(item, self.target):
            owner = controller_ref(as_map(item.get("metadata")))
            if owner is None:
                self.result.growth.root_jobs += 1
            elif owner.kind == "CronJob":
                self.result.growth.cronjob_jobs += 1
        if kind == "CronJob":
            self.result.growth.cronjobs += 1
        self._add(lint_view(item))

    def _add(self, item: Item, readable: bool = True) -> None:
        self.result.store.add(item, readable, self._namespaced)
