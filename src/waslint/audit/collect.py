"""Read the objects an audit lints from a live cluster, one page at a time, into lint sources.

Each stored object becomes a one-document source whose path is `cluster://<context>/<namespace>/<kind>/<name>`
(`cluster://<context>/<kind>/<name>` when cluster-scoped), so findings and suppressions work as they
do for files. The WAS kinds are listed in every served version (CompositePodGroup exists only in
v1alpha3) and kept once per uid. Pods are many: only those naming a PodGroup
(`spec.schedulingGroup`) are kept, reduced to what the rules read. Env, command and args are
dropped from every pod template so a report can never quote them.
"""

from __future__ import annotations

import gc
import json
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from waslint.escape.uri import segment
from waslint.io.loader import Document, SourceFile
from waslint.knowledge.releases import Release, milestone
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import WAS_KINDS, as_list, as_map, as_str, dig
from waslint.objects.members import controller_ref, membership
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


@dataclass
class StoredObject:
    kind: str
    api_version: str
    namespace: str
    name: str
    writers: list[Writer]
    path: str


@dataclass
class Growth:
    """What enabling WorkloadWithJob would create: one Workload and one PodGroup per managed Job."""

    root_jobs: int = 0
    cronjob_jobs: int = 0
    cronjobs: int = 0


@dataclass
class Collection:
    sources: list[SourceFile] = field(default_factory=list)
    per_version: Counter[tuple[str, str]] = field(default_factory=Counter)  # (kind, apiVersion) -> objects
    stored: list[StoredObject] = field(default_factory=list)
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


def writers_of(item: Item) -> list[Writer]:
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
    return found


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


class StoredSource(SourceFile):
    """A live object's one-document source: JSON text (so no YAML round trip), indented because a
    report quotes it; member Pods are many, so they are written on one line (the json module's C
    encoder only runs without indentation). The text is needed only where a finding is located or
    quoted and for the rules' word prefilters, so it is kept compressed (about 40 bytes an object,
    against a preset dictionary of its kind: `TextPacker`) and decompressed when read; the words
    asked of it are remembered as two bit masks, not a map per object."""

    def __init__(self, path: str, item: Item, packer: TextPacker, readable: bool = True) -> None:
        text = json.dumps(item, indent=2) if readable else json.dumps(item, separators=(",", ":"))
        self._packer = packer
        self._key = (as_str(item.get("kind")) or "", readable)
        self._asked = self._found = 0
        super().__init__(path=path, text=text, is_json=True)
        self.documents.append(Document(self, 0, item, None, 0, 1, text.count("\n") + 1))

    @property
    def text(self) -> str:
        return self._packer.unpack(self._key, self._packed)

    @text.setter
    def text(self, value: str) -> None:
        self._packed = self._packer.pack(self._key, value)

    def mentions(self, word: str) -> bool:
        bit = self._packer.word_bit(word)
        if not self._asked & bit:
            self._asked |= bit
            if word in self.text:
                self._found |= bit
        return bool(self._found & bit)


class TextPacker:
    """zlib with a preset dictionary per kind and layout: the first text of each is the dictionary
    of the others (the objects of one kind share most of their keys and many values)."""

    def __init__(self) -> None:
        self._dictionaries: dict[tuple[str, bool], bytes] = {}
        self._words: dict[str, int] = {}

    def pack(self, key: tuple[str, bool], text: str) -> bytes:
        data = text.encode()
        dictionary = self._dictionaries.setdefault(key, data)
        packer = zlib.compressobj(zdict=dictionary)
        return packer.compress(data) + packer.flush()

    def unpack(self, key: tuple[str, bool], packed: bytes) -> str:
        return zlib.decompressobj(zdict=self._dictionaries[key]).decompress(packed).decode()

    def word_bit(self, word: str) -> int:
        """The bit of a word in StoredSource.mentions' masks (the rules ask a few dozen words)."""
        return self._words.setdefault(word, 1 << len(self._words))


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
        self.result = Collection()
        self._uids: set[str] = set()
        self._packer = TextPacker()
        self._sharer = ValueSharer()

    def run(self) -> Collection:
        # What is kept lives until the run ends: the cyclic collector would only rescan it, page
        # after page.
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
                    # The cyclic collector is paused, but indented JSON (the json module's Python
                    # encoder, a cycle of closures per call) leaves cycles behind: about 1.5 KB
                    # an object, 40 MB at 30,000 objects. The young generation holds only this
                    # page's objects, so collecting it is cheap.
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
            metadata = as_map(item.get("metadata"))
            self.result.stored.append(
                StoredObject(
                    kind,
                    api_version,
                    str(metadata.get("namespace", "")),
                    str(metadata.get("name", "")),
                    writers_of(item),
                    object_path(self.connection.context, item),
                )
            )
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
        path = object_path(self.connection.context, item)
        self.result.sources.append(StoredSource(path, self._sharer.share_item(item), self._packer, readable))
