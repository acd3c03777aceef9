"""The set index: every object of one run, looked up by group/kind/namespace/name across files."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from waslint.kube import KObject, PodTemplate, as_map, as_str, objects_of, pod_templates
from waslint.loader import SourceFile


class ObjectIndex:
    def __init__(self, objects: Iterable[KObject] = ()) -> None:
        self.objects: list[KObject] = []
        self._by_kind: dict[tuple[str, str], list[KObject]] = defaultdict(list)
        self._by_name: dict[tuple[str, str, str, str], list[KObject]] = defaultdict(list)
        self._kind_namespaces: dict[tuple[str, str], set[str]] = defaultdict(set)
        self._members: dict[tuple[str, str], list[PodTemplate]] | None = None
        for obj in objects:
            self.add(obj)

    @classmethod
    def build(cls, files: Iterable[SourceFile], default_namespace: str) -> ObjectIndex:
        index = cls()
        for source in files:
            for doc in source.documents:
                for obj in objects_of(doc, default_namespace):
                    index.add(obj)
        return index

    def add(self, obj: KObject) -> None:
        self.objects.append(obj)
        kind_key = (obj.group, obj.kind)
        self._by_kind[kind_key].append(obj)
        self._kind_namespaces[kind_key].add(obj.namespace)
        if obj.name is not None:
            self._by_name[(obj.group, obj.kind, obj.namespace, obj.name)].append(obj)

    def of_kind(self, group: str, kind: str) -> list[KObject]:
        return self._by_kind.get((group, kind), [])

    def get(self, group: str, kind: str, namespace: str, name: str) -> KObject | None:
        found = self._by_name.get((group, kind, namespace, name))
        return found[0] if found else None

    def get_all(self, group: str, kind: str, namespace: str, name: str) -> list[KObject]:
        return self._by_name.get((group, kind, namespace, name), [])

    def has_kind_in_namespace(self, group: str, kind: str, namespace: str) -> bool:
        return namespace in self._kind_namespaces.get((group, kind), ())

    def has_kind(self, group: str, kind: str) -> bool:
        return bool(self._by_kind.get((group, kind)))

    def pod_group_members(self, namespace: str, pod_group: str) -> list[PodTemplate]:
        """Pod templates (bare Pods included) whose spec.schedulingGroup.podGroupName names a PodGroup."""
        return self._member_map().get((namespace, pod_group), [])

    def _member_map(self) -> dict[tuple[str, str], list[PodTemplate]]:
        if self._members is None:
            members: dict[tuple[str, str], list[PodTemplate]] = defaultdict(list)
            for obj in self.objects:
                if "schedulingGroup" not in obj.file.text:
                    continue
                for template in pod_templates(obj):
                    group = as_str(as_map(template.spec.get("schedulingGroup")).get("podGroupName"))
                    if group is not None:
                        members[(obj.namespace, group)].append(template)
            self._members = dict(members)
        return self._members

    def __len__(self) -> int:
        return len(self.objects)
