"""What the WAS5xx rules share: KAI Queues by name."""

from __future__ import annotations

from waslint.lint.context import Context
from waslint.objects.keys import KAI_QUEUE
from waslint.objects.kobject import KObject, as_str


def find_queue(ctx: Context, name: str) -> KObject | None:
    """A KAI Queue by name (cluster-scoped): the set first, then the snapshot."""
    for obj in ctx.index.of_kind(*KAI_QUEUE):
        if as_str(obj.metadata.get("name")) == name:
            return obj
    for obj in ctx.snapshot.queues if ctx.snapshot is not None else []:
        if isinstance(obj, KObject) and as_str(obj.metadata.get("name")) == name:
            return obj
    return None
