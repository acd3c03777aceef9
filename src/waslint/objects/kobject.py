"""Kubernetes objects as every pipeline sees them: `KObject` (one object: a document, or one item
of a `List`, its identity resolved once) and the typed getters that never raise on wrong types (a
string where a map is expected reads as absent; WAS002 reports the type error)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from waslint.core.model import ObjectId, Path
from waslint.core.records import dataclass
from waslint.io.loader import Document, SourceFile
from waslint.knowledge.lifecycle import FieldNames, field_names

WAS_KINDS = frozenset({"Workload", "PodGroup", "CompositePodGroup"})
IGNORE_ANNOTATION = "waslint.io/ignore"


def as_map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def dig(value: Any, *path: str | int) -> Any:
    """value[p0][p1]... or None when any step is missing or of the wrong type."""
    for step in path:
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return None
        elif not isinstance(value, dict) or step not in value:
            return None
        value = value[step]
    return value


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


@dataclass(eq=False, slots=True)
class KObject:
    """One Kubernetes object of a document, with where it sits in the document."""

    doc: Document
    base_path: Path
    data: dict[str, Any]
    api_version: str
    group: str
    version: str
    kind: str
    name: str | None
    namespace: str
    explicit_namespace: bool
    # Readings of the object made once and shared by every rule (objects/groups.py): the object
    # is read only, so they stay true while it lives.
    _memo: dict[str, Any] | None = None

    @property
    def memo(self) -> dict[str, Any]:
        if self._memo is None:
            self._memo = {}
        return self._memo

    def forget(self) -> None:
        """Drop the readings made once (they are made again if asked for): they point back at the
        object, so without this only the cyclic collector frees it."""
        self._memo = None

    @property
    def fields(self) -> FieldNames:
        """How the object's apiVersion spells the renamed group fields (`policy` in v1alpha1)."""
        return field_names(self.group, self.version, self.kind)

    @property
    def file(self) -> SourceFile:
        return self.doc.file

    @property
    def metadata(self) -> dict[str, Any]:
        return as_map(self.data.get("metadata"))

    @property
    def annotations(self) -> dict[str, Any]:
        return as_map(self.metadata.get("annotations"))

    @property
    def labels(self) -> dict[str, Any]:
        return as_map(self.metadata.get("labels"))

    @property
    def spec(self) -> dict[str, Any]:
        return as_map(self.data.get("spec"))

    @property
    def object_id(self) -> ObjectId:
        namespace = self.namespace if self.explicit_namespace or self.is_namespaced_guess else None
        return ObjectId(self.api_version, self.kind, namespace, self.name)

    @property
    def is_namespaced_guess(self) -> bool:
        return self.kind not in _CLUSTER_SCOPED

    def full_path(self, path: Path) -> Path:
        return self.base_path + path

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name or '<unnamed>'}"


_CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "Node",
        "PersistentVolume",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "PriorityClass",
        "StorageClass",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "APIService",
        "DeviceClass",
        "ResourceSlice",
        "Queue",
        "Topology",
        "ResourceFlavor",
        "ClusterQueue",
        "IngressClass",
        "RuntimeClass",
        "CSIDriver",
        "CSINode",
        "VolumeAttachment",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "KubeletConfiguration",
        "ClusterConfiguration",
        "JoinConfiguration",
        "InitConfiguration",
        "KubeSchedulerConfiguration",
    }
)


def objects_of(doc: Document, default_namespace: str) -> Iterator[KObject]:
    """The Kubernetes objects in a document: the document itself, or each item of a List."""
    data = doc.data
    if not isinstance(data, dict):
        return
    kind = data.get("kind")
    items = data.get("items")
    if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
        for position, item in enumerate(items):
            obj = make_object(doc, ("items", position), item, default_namespace)
            if obj is not None:
                yield obj
        return
    obj = make_object(doc, (), data, default_namespace)
    if obj is not None:
        yield obj


def make_object(doc: Document, base: Path, data: Any, default_namespace: str) -> KObject | None:
    if not isinstance(data, dict):
        return None
    api_version = data.get("apiVersion")
    kind = data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    metadata = as_map(data.get("metadata"))
    name = as_str(metadata.get("name")) or as_str(metadata.get("generateName"))
    namespace = as_str(metadata.get("namespace"))
    group, version = split_api_version(api_version)
    return KObject(
        doc=doc,
        base_path=base,
        data=data,
        api_version=api_version,
        group=group,
        version=version,
        kind=kind,
        name=name,
        namespace=namespace or default_namespace,
        explicit_namespace=namespace is not None,
    )
