"""WAS105 legacy-pod-workload-ref (its fix: lint/fixers/podgroups.py)."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.walks import POD_TEMPLATE_KINDS, pod_templates


@register
class LegacyPodWorkloadRef(Rule):
    code = "WAS105"
    name = "legacy-pod-workload-ref"
    severity = Severity.ERROR
    fix_title = "add a PodGroup object and point spec.schedulingGroup.podGroupName at it (--unsafe-fixes)"
    summary = "A Pod or pod template uses `spec.workloadRef` (1.35), removed in 1.36."
    what = (
        "Flags `spec.workloadRef` in a Pod or in the pod template of any workload kind when the"
        " target is 1.36 or later."
    )
    why = (
        "Since 1.36 a Pod joins its gang through `spec.schedulingGroup.podGroupName`, naming a"
        " PodGroup object; `workloadRef` is gone from PodSpec and the Pod would be scheduled alone"
        " (or rejected). The fix (opt-in, `--unsafe-fixes`, because it adds objects) creates one"
        " PodGroup per (workload, podGroup, replicaKey) with the template's policy and points the"
        " Pod at it."
    )
    example = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  workloadRef:
    name: training
    podGroup: workers
  containers:
  - name: main
    image: trainer:1.0
"""
    use_instead = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  schedulingGroup:
    podGroupName: training-workers
  containers:
  - name: main
    image: trainer:1.0
"""
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "workloadRef"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("scheduling-group"):
            return
        for template in pod_templates(obj):
            reference = template.spec.get("workloadRef")
            if reference is None:
                continue
            reference = as_map(reference)
            workload = as_str(reference.get("name")) or "<workload>"
            group = as_str(reference.get("podGroup")) or "<podGroup>"
            replica = as_str(reference.get("podGroupReplicaKey"))
            replica_note = f", replica key {replica!r}" if replica else ""
            # The fix copies the template's policy into the new PodGroup: it needs the Workload.
            known = ctx.index.get(SCHEDULING, "Workload", obj.namespace, workload) is not None
            advice = (
                "(`waslint fix --unsafe-fixes` does both)"
                if known
                else "(`waslint fix --unsafe-fixes` does both when the Workload's manifest is linted with it)"
            )
            yield self.hit(
                obj,
                (*template.path, "workloadRef"),
                f"spec.workloadRef (1.35) was removed in 1.36: create a PodGroup for Workload"
                f" {workload!r} template {group!r}{replica_note} and set"
                f" spec.schedulingGroup.podGroupName to its name {advice}",
                fixable=known,
            )
