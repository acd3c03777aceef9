"""WAS803 degraded-gang."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.runtime.common import POD, PODGROUP, label, listed, members, scheduling_condition, stored
from waslint.objects.groups import object_group
from waslint.objects.kobject import KObject, as_str, dig


@register
class DegradedGang(Rule):
    code = "WAS803"
    name = "degraded-gang"
    severity = Severity.WARNING
    summary = "A gang that was scheduled whole now runs fewer members than its minCount."
    what = (
        "For every stored PodGroup whose scheduling condition (`PodGroupInitiallyScheduled`, 1.36"
        " `PodGroupScheduled`) is `True` and whose policy is `gang`: fires when fewer of the Pods that name it"
        " in `spec.schedulingGroup.podGroupName` are `Running` than `gang.minCount`. Silent when the Pods of"
        " that namespace were not read (in files: the set holds no stored Pod of that namespace). Manifests are"
        " never judged, even with a `status`: only stored objects (with a creationTimestamp or uid)."
    )
    why = (
        "Gang scheduling guarantees all-or-nothing at admission only. `PodGroupInitiallyScheduled` stays True"
        " after members fail or are evicted, so the gang looks healthy while a distributed job is stalled"
        " waiting for peers, holding the GPUs of the members that are left."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  schedulingPolicy:
    gang:
      minCount: 2          # only 1 member Pod is Running
status:
  conditions:
  - type: PodGroupInitiallyScheduled
    status: "True"
    reason: Scheduled
    message: ""
    lastTransitionTime: "2026-01-01T00:01:00Z"
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer-0
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  schedulingGroup:
    podGroupName: trainer-workers
  containers:
  - name: main
    image: main:1
status:
  phase: Failed
"""
    use_instead = """\
# Restart the job as a whole (the Job's podFailurePolicy / JobSet failurePolicy can do it), or
# lower gang.minCount (mutable in v1beta1) if the job can run with fewer members.
"""
    kinds = frozenset({PODGROUP})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not stored(obj):
            return
        found = scheduling_condition(obj)
        group = object_group(obj)
        minimum = group.policy.minimum if group is not None else None
        min_count = minimum.value if minimum is not None else None
        if (
            found is None
            or found[1].get("status") != "True"
            or minimum is None
            or min_count is None
            or obj.name is None
        ):
            return
        if obj.metadata.get("deletionTimestamp") or not listed(ctx, *POD, obj.namespace):
            return
        pods = members(ctx, obj.namespace, obj.name)
        phases = Counter(as_str(dig(pod.data, "status", "phase")) or "Unknown" for pod in pods)
        running = phases.get("Running", 0)
        if running >= min_count:
            return
        seen = ", ".join(f"{count} {phase}" for phase, count in sorted(phases.items())) or "no member Pods"
        yield self.hit(
            obj,
            minimum.path,
            f"{label(obj)} was scheduled as a gang but only {running} of its minCount {min_count} members are"
            f" Running ({seen}): the job is likely stalled while holding the remaining members' resources",
            point_at_key=False,
        )
