"""Read the objects an audit lints from a live cluster, one page at a time, into lint sources.

Each stored object becomes a one-document source whose path is `cluster://<context>/<namespace>/<kind>/<name>`
(`cluster://<context>/<kind>/<name>` when cluster-scoped), so findings and suppressions work as they
do for files. The WAS kinds are listed in every served version (CompositePodGroup exists only in
v1alpha3) and kept once per uid. Pods are many: only those naming a PodGroup
(`spec.schedulingGroup`) are kept, reduced to what the rules read. Env, command and args are
dropped from every pod template so a report can never quote them.
"""

from __future__ import annotations

import json
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


def source_of(path: str, item: Item, readable: bool = True) -> SourceFile:
    """A one-document source for a live object (JSON text, so no YAML round trip). Indented JSON is
    what a report quotes; member Pods are many, so they are written on one line (the json module's C
    encoder only runs without indentation)."""
    text = json.dumps(item, indent=2) if readable else json.dumps(item, separators=(",", ":"))
    source = SourceFile(path=path, text=text, is_json=True)
    source.documents.append(Document(source, 0, item, None, 0, 1, text.count("\n") + 1))
    return source


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

    def run(self) -> Collection:
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
        self.result.sources.append(source_of(object_path(self.connection.context, item), item, readable))
