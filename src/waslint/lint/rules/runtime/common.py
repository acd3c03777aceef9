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


def listed(ctx: Context, group: str, kind: str, namespace: str) -> bool:
    """Whether the run read every object of that kind in that namespace (so absence means absent)."""
    live = ctx.runtime.listed_kinds
    if live is not None:
        scope = live.get((group, kind))
        return scope is not None and (scope == "*" or namespace in scope)
    if (group, kind) == POD:  # a Pod manifest in git says nothing of the Pods a cluster runs
        return bool(stored_pods(ctx))
    return ctx.index.has_kind(group, kind)


def stored_pods(ctx: Context) -> list[KObject]:
    """The Pods of the set that the API server wrote (a dump, a snapshot): they have a
    metadata.creationTimestamp."""

    def build(context: Context) -> list[KObject]:
        pods = context.index.mentioning(STORED_WORD, kinds=[POD])
        return [pod for pod in pods if pod.metadata.get(STORED_WORD) is not None]

    return ctx.derive("runtime-stored-pods", build)


def members(ctx: Context, namespace: str, pod_group: str) -> list[KObject]:
    def build(context: Context) -> dict[tuple[str, str], list[KObject]]:
        found: dict[tuple[str, str], list[KObject]] = {}
        for pod in context.index.mentioning(MEMBER_WORD, kinds=[POD]):
            name = as_str(dig(pod.data, "spec", "schedulingGroup", "podGroupName"))
            if name is not None:
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
