"""The set index: every object of one run, looked up by group/kind/namespace/name across files."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from waslint.io.loader import SourceFile
from waslint.objects.kobject import KObject, as_map, as_str, objects_of
from waslint.objects.walks import PodTemplate, pod_templates


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

    def nearest(self, group: str, kind: str, namespace: str, name: str, near: KObject) -> KObject | None:
        """The object of that identity. When the set holds several (copies of an example in many
        folders), the one in `near`'s file, else the only one in its folder, else the common value
        when all copies are identical; otherwise None: comparing against the wrong twin would
        report nonsense."""
        found = self.get_all(group, kind, namespace, name)
        if len(found) <= 1:
            return found[0] if found else None
        for candidates in (
            [obj for obj in found if obj.file is near.file],
            [obj for obj in found if _folder(obj) == _folder(near)],
        ):
            if len(candidates) == 1:
                return candidates[0]
        first = found[0]
        return first if all(obj.data == first.data for obj in found[1:]) else None

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
                if not obj.doc.mentions("schedulingGroup"):
                    continue
                for template in pod_templates(obj):
                    group = as_str(as_map(template.spec.get("schedulingGroup")).get("podGroupName"))
                    if group is not None:
                        members[(obj.namespace, group)].append(template)
            self._members = dict(members)
        return self._members

    def __len__(self) -> int:
        return len(self.objects)


def _folder(obj: KObject) -> str:
    return os.path.dirname(obj.file.path)


def distinct_members(templates: Iterable[PodTemplate], near: KObject) -> list[PodTemplate]:
    """Member templates with one entry per object identity (copies of one object in several
    files are one object in the cluster); the copy nearest to `near` is kept."""

    def rank(template: PodTemplate) -> int:
        owner = template.owner
        return 0 if owner.file is near.file else 1 if _folder(owner) == _folder(near) else 2

    chosen: dict[tuple[Any, ...], PodTemplate] = {}
    for template in sorted(templates, key=rank):
        owner = template.owner
        identity = (owner.group, owner.kind, owner.namespace, owner.name or id(owner), template.path)
        chosen.setdefault(identity, template)
    return list(chosen.values())
