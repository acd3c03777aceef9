"""WAS804 stuck-deletion."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.runtime.common import (
    COMPOSITE,
    PODGROUP,
    age_text,
    label,
    now,
    parse_time,
    stamp,
    stored,
    threshold,
)
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import KObject, as_list

WORKLOAD = (SCHEDULING, "Workload")


@register
class StuckDeletion(Rule):
    code = "WAS804"
    name = "stuck-deletion"
    severity = Severity.WARNING
    summary = "A Workload, PodGroup or CompositePodGroup has been deleting for longer than `stuck-deletion-after`."
    what = (
        "For every stored Workload, PodGroup and CompositePodGroup: fires when `metadata.deletionTimestamp` is"
        " older than `runtime: stuck-deletion-after` (default 1h). The message names the finalizers left."
    )
    why = (
        "A finalizer whose controller is gone (an uninstalled scheduler plugin, an operator scaled to zero)"
        " blocks deletion forever: the name cannot be reused, a re-created Job's PodGroup collides with it,"
        " and its claims stay allocated."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: stuck
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
  deletionTimestamp: "2026-01-02T00:00:00Z"
  finalizers:
  - example.com/cleanup
spec:
  schedulingPolicy:
    gang:
      minCount: 1
"""
    use_instead = """\
# Bring back the controller that owns the finalizer, or, once you know nothing needs it:
# kubectl patch podgroup -n ml stuck --type=merge -p '{"metadata":{"finalizers":null}}'
"""
    kinds = frozenset({WORKLOAD, PODGROUP, COMPOSITE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        deleting = parse_time(obj.metadata.get("deletionTimestamp"))
        if deleting is None or not stored(obj):
            return
        age = (now(ctx) - deleting).total_seconds()
        if age < threshold(ctx, "stuck-deletion-after"):
            return
        finalizers = [str(item) for item in as_list(obj.metadata.get("finalizers"))]
        held = f"finalizers {', '.join(finalizers)} still set" if finalizers else "no finalizer left"
        yield self.hit(
            obj,
            ("metadata", "deletionTimestamp"),
            f"{label(obj)} has been deleting since {stamp(deleting)}, longer than stuck-deletion-after"
            f" {age_text(threshold(ctx, 'stuck-deletion-after'))} ({held}): the controller that should remove the"
            " finalizer is not running",
            point_at_key=False,
        )
