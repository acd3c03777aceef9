"""The set index: every object of one run, looked up by group/kind/namespace/name across files.

A streamed lint indexes only the files that may hold what cross-object rules look up (`Lookups`)
and checks every other file on its own; its index then refuses any other lookup, so a rule that
starts reading a kind nobody declared fails loudly (an internal error) instead of silently
missing the objects that were never indexed.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property
from typing import Any

from waslint.core.records import dataclass
from waslint.io.loader import SourceFile
from waslint.objects.keys import MEMBER_WORD, SCHEDULER_MEMBER_WORDS
from waslint.objects.kobject import KObject, objects_of
from waslint.objects.walks import PodTemplate, pod_templates


@dataclass(frozen=True)
class Lookups:
    """What cross-object rules read from the set beyond the object they check: the objects of
    `kinds` ((group, kind)), and any object whose text mentions one of `words`."""

    kinds: frozenset[tuple[str, str]]
    words: frozenset[str]

    def may_hold(self, text: str) -> bool:
        """Whether a file's text may hold such an object: a kind counts when its name and its
        group (as written in apiVersion) both occur. Never False for a file that holds one,
        unless a kind is spelled with escapes (the loader's check catches that: StreamMiss)."""
        for word in self.words:
            if word in text:
                return True
        for domain, kinds in self._kinds_by_domain:
            if domain in text:  # one scan for all the groups under a domain (k8s.io, ...)
                for group, kind in kinds:
                    if kind in text and (not group or group in text):
                        return True
        return False

    @cached_property
    def _kinds_by_domain(self) -> list[tuple[str, list[tuple[str, str]]]]:
        by_domain: dict[str, list[tuple[str, str]]] = {}
        for group, kind in sorted(self.kinds):
            domain = ".".join(group.split(".")[-2:])  # "" for the core group: always present
            by_domain.setdefault(domain, []).append((group, kind))
        return sorted(by_domain.items())

    def wants(self, obj: KObject) -> bool:
        return (obj.group, obj.kind) in self.kinds


class UndeclaredLookup(LookupError):
    """A rule asked a streamed run's index for a kind or word `Lookups` does not declare."""


class ObjectIndex:
    def __init__(self, objects: Iterable[KObject] = (), lookups: Lookups | None = None) -> None:
        # None: the index holds the whole set and answers everything; else only `lookups`.
        self.lookups = lookups
        self.objects: list[KObject] = []
        self._by_kind: dict[tuple[str, str], list[KObject]] = defaultdict(list)
        # One object per identity, a list only when the set holds copies (a big cluster's
        # objects are one each: a list per object would cost more than the entry).
        self._by_name: dict[tuple[str, str, str, str], KObject | list[KObject]] = {}
        self._kind_namespaces: dict[tuple[str, str], set[str]] = defaultdict(set)
        self._members: dict[tuple[str, str], list[PodTemplate]] | None = None
        self._scheduler_members: dict[tuple[str, str, str], list[PodTemplate]] | None = None
        for obj in objects:
            self.add(obj)

    @classmethod
    def build(cls, files: Iterable[SourceFile], default_namespace: str, lookups: Lookups | None = None) -> ObjectIndex:
        index = cls(lookups=lookups)
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
            key = (obj.group, obj.kind, obj.namespace, obj.name)
            held = self._by_name.setdefault(key, obj)
            if isinstance(held, list):
                held.append(obj)
            elif held is not obj:
                self._by_name[key] = [held, obj]

    def _declared(self, group: str, kind: str) -> None:
        if self.lookups is not None and (group, kind) not in self.lookups.kinds:
            raise UndeclaredLookup(f"a lookup of {group or 'core'}/{kind}, which lint/lookups.py does not declare")

    def _declared_words(self, words: Iterable[str]) -> None:
        undeclared = [word for word in words if self.lookups is not None and word not in self.lookups.words]
        if undeclared:
            raise UndeclaredLookup(
                f"a lookup of objects mentioning {undeclared[0]!r}, which lint/lookups.py does not declare"
            )

    def of_kind(self, group: str, kind: str) -> list[KObject]:
        self._declared(group, kind)
        return self._by_kind.get((group, kind), [])

    def select(
        self,
        kinds: Iterable[tuple[str, str]],
        mentioning: Iterable[str] = (),
        among: Iterable[tuple[str, str]] = (),
    ) -> list[KObject]:
        """In set order: the objects of `kinds`, and the objects of `among` kinds whose text
        mentions one of `mentioning` (declared lookups both)."""
        wanted = set(kinds)
        for group, kind in sorted(wanted):
            self._declared(group, kind)
        words = tuple(mentioning)
        word_kinds = set(among)
        self._declared_words(words)
        return [
            obj
            for obj in self.objects
            if (obj.group, obj.kind) in wanted
            or ((obj.group, obj.kind) in word_kinds and any(obj.doc.mentions(word) for word in words))
        ]

    def get(self, group: str, kind: str, namespace: str, name: str) -> KObject | None:
        self._declared(group, kind)
        found = self._by_name.get((group, kind, namespace, name))
        return found[0] if isinstance(found, list) else found

    def get_all(self, group: str, kind: str, namespace: str, name: str) -> list[KObject]:
        self._declared(group, kind)
        found = self._by_name.get((group, kind, namespace, name))
        if found is None:
            return []
        return found if isinstance(found, list) else [found]

    def mentioning(self, *words: str, kinds: Iterable[tuple[str, str]] | None = None) -> list[KObject]:
        """The objects whose text mentions one of `words` (of `kinds`, when given, kind by kind), in
        set order."""
        self._declared_words(words)
        pool = self.objects if kinds is None else [obj for kind in kinds for obj in self._by_kind.get(kind, ())]
        return [obj for obj in pool if any(obj.doc.mentions(word) for word in words)]

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
        self._declared(group, kind)
        return namespace in self._kind_namespaces.get((group, kind), ())

    def has_kind(self, group: str, kind: str) -> bool:
        self._declared(group, kind)
        return bool(self._by_kind.get((group, kind)))

    def pod_group_members(self, namespace: str, pod_group: str) -> list[PodTemplate]:
        """Pod templates (bare Pods included) whose spec.schedulingGroup.podGroupName names a PodGroup."""
        return self._member_map().get((namespace, pod_group), [])

    def _member_map(self) -> dict[tuple[str, str], list[PodTemplate]]:
        if self._members is None:
            members: dict[tuple[str, str], list[PodTemplate]] = defaultdict(list)
            for obj in self.mentioning(MEMBER_WORD):
                for template in pod_templates(obj):
                    group = template.membership.pod_group
                    if group is not None:
                        members[(obj.namespace, group.value)].append(template)
            self._members = dict(members)
        return self._members

    def scheduler_members(self, scheduler: str, namespace: str, group: str) -> list[PodTemplate]:
        """Pod templates (bare Pods included) that join a third-party gang: `scheduler` is "kai"
        (annotation pod-group-name), "volcano" (*/group-name) or "coscheduling" (the label), as
        `objects/members.py` reads them. In set order."""
        if self._scheduler_members is None:
            members: dict[tuple[str, str, str], list[PodTemplate]] = defaultdict(list)
            for obj in self.mentioning(*SCHEDULER_MEMBER_WORDS):
                for template in pod_templates(obj):
                    for family, name in template.membership.third_party():
                        members[(family, obj.namespace, name)].append(template)
            self._scheduler_members = dict(members)
        return self._scheduler_members.get((scheduler, namespace, group), [])

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
        identity = (owner.group, owner.kind, owner.namespace, owner.name or owner, template.path)
        chosen.setdefault(identity, template)
    return list(chosen.values())
