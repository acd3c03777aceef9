"""WAS801 orphan-podgroup."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.runtime.common import (
    POD,
    PODGROUP,
    age_text,
    label,
    listed,
    members,
    now,
    parse_time,
    stamp,
    threshold,
)
from waslint.objects.kobject import KObject, as_list


@register
class OrphanPodGroup(Rule):
    code = "WAS801"
    name = "orphan-podgroup"
    severity = Severity.WARNING
    summary = "A stored PodGroup with no owner and no member Pods, for longer than `orphan-after`."
    what = (
        "For every stored `scheduling.k8s.io` PodGroup (it has a `metadata.creationTimestamp`) that is not"
        " being deleted: fires when it has no `metadata.ownerReferences`, no Pod of its namespace names it in"
        " `spec.schedulingGroup.podGroupName`, and it is older than `runtime: orphan-after` (default 1h)."
        " Silent when the Pods of that namespace were not read (in files: the set holds no stored Pod of that"
        " namespace)."
    )
    why = (
        "Nothing will ever schedule into it or garbage-collect it: the Job or operator that made it is gone,"
        " or it was created by hand. It can keep PodGroup-level ResourceClaims (and the devices allocated"
        " to them) reserved, and it is counted by quota and monitoring as a waiting gang."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: ghost
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"   # no ownerReferences, no Pod names it
spec:
  schedulingPolicy:
    gang:
      minCount: 2
---
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  containers:
  - name: web
    image: web:1
"""
    use_instead = """\
# Delete it (kubectl delete podgroup -n ml ghost), or give it an owner that deletes it:
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: ml
  ownerReferences:
  - apiVersion: batch/v1
    kind: Job
    name: trainer
    uid: 6f1c2b3a-0000-4000-8000-000000000001
spec:
  schedulingPolicy:
    gang:
      minCount: 2
"""
    kinds = frozenset({PODGROUP})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        created = parse_time(obj.metadata.get("creationTimestamp"))
        if created is None or obj.metadata.get("deletionTimestamp") or as_list(obj.metadata.get("ownerReferences")):
            return
        if obj.name is None or not listed(ctx, *POD, obj.namespace) or members(ctx, obj.namespace, obj.name):
            return
        age = (now(ctx) - created).total_seconds()
        if age < threshold(ctx, "orphan-after"):
            return
        yield self.hit(
            obj,
            ("metadata", "name"),
            f"{label(obj)} has no owner and no member Pods, and was created {stamp(created)} (more than"
            f" orphan-after {age_text(threshold(ctx, 'orphan-after'))} ago): delete it, or re-create the workload"
            " that should own it (it may hold PodGroup-level ResourceClaims)",
            point_at_key=False,
        )
