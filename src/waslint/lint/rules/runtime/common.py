"""What the WAS8xx rules share: thresholds and times, which kinds were read in full, the stored
Pods of a group, its scheduling condition."""

from __future__ import annotations

import datetime
from typing import Any

from waslint.lint.context import Context
from waslint.lint.lookups import STORED_WORD
from waslint.objects.keys import MEMBER_WORD, SCHEDULING
from waslint.objects.kobject import KObject, as_list, as_map, as_str, dig

PODGROUP = (SCHEDULING, "PodGroup")


COMPOSITE = (SCHEDULING, "CompositePodGroup")


POD = ("", "Pod")


DEFAULT_THRESHOLDS = {"orphan-after": 3600.0, "stuck-deletion-after": 3600.0}


# The scheduling condition per kind and version line: 1.37 names it InitiallyScheduled, 1.36 Scheduled.
SCHEDULED_CONDITIONS = ("PodGroupInitiallyScheduled", "PodGroupScheduled", "CompositePodGroupInitiallyScheduled")


def threshold(ctx: Context, name: str) -> float:
    return ctx.runtime.thresholds.get(name, DEFAULT_THRESHOLDS[name])


def now(ctx: Context) -> datetime.datetime:
    if ctx.runtime.now is not None:
        return ctx.runtime.now
    return ctx.derive("runtime-now", lambda _ctx: datetime.datetime.now(datetime.timezone.utc))


def parse_time(value: Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)


def age_text(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


def stamp(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def stored(obj: KObject) -> bool:
    """Whether the API server wrote the object (a live read, a `kubectl get -o yaml` dump): it has a
    metadata.creationTimestamp or uid. A manifest (from git, or a blog post with a `status`) never has."""
    metadata = obj.metadata
    return metadata.get(STORED_WORD) is not None or metadata.get("uid") is not None


def listed(ctx: Context, group: str, kind: str, namespace: str) -> bool:
    """Whether the run read every object of that kind in that namespace (so absence means absent):
    in a live audit, the lists it was allowed; in files, stored objects of that kind in that
    namespace (a manifest in git says nothing of what a cluster holds)."""
    live = ctx.runtime.listed_kinds
    if live is not None:
        scope = live.get((group, kind))
        return scope is not None and (scope == "*" or namespace in scope)
    if (group, kind) == POD:
        return namespace in stored_namespaces(ctx)
    return any(stored(obj) and obj.namespace == namespace for obj in ctx.index.of_kind(group, kind))


def stored_namespaces(ctx: Context) -> frozenset[str]:
    """The namespaces of the set's Pods that the API server wrote (a dump, a snapshot)."""

    def build(context: Context) -> frozenset[str]:
        pods = context.index.mentioning(STORED_WORD, kinds=[POD])
        return frozenset(pod.namespace for pod in pods if pod.metadata.get(STORED_WORD) is not None)

    return ctx.derive("runtime-stored-pod-namespaces", build)


def members(ctx: Context, namespace: str, pod_group: str) -> list[KObject]:
    """The stored Pods of `namespace` that name the PodGroup (in a live audit every Pod is stored)."""

    def build(context: Context) -> dict[tuple[str, str], list[KObject]]:
        found: dict[tuple[str, str], list[KObject]] = {}
        for pod in context.index.mentioning(MEMBER_WORD, kinds=[POD]):
            name = as_str(dig(pod.data, "spec", "schedulingGroup", "podGroupName"))
            if name is not None and stored(pod):
                found.setdefault((pod.namespace, name), []).append(pod)
        return found

    return ctx.derive("runtime-members", build).get((namespace, pod_group), [])


def scheduling_condition(obj: KObject) -> tuple[int, dict[str, Any]] | None:
    for position, condition in enumerate(as_list(dig(obj.data, "status", "conditions"))):
        if as_map(condition).get("type") in SCHEDULED_CONDITIONS:
            return position, as_map(condition)
    return None


def label(obj: KObject) -> str:
    return f"{obj.kind} {obj.namespace}/{obj.name}"
