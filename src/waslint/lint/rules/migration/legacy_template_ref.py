"""WAS104 legacy-template-ref."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import KObject, as_map, as_str


@register
class LegacyTemplateRef(Rule):
    code = "WAS104"
    name = "legacy-template-ref"
    severity = Severity.ERROR
    fix_title = "move spec.podGroupTemplateRef.workload to spec.workloadRef (podGroupTemplateName becomes templateName)"
    summary = "PodGroup `spec.podGroupTemplateRef.workload` (1.36) is `spec.workloadRef` in 1.37."
    what = (
        "Flags `spec.podGroupTemplateRef.workload.{workloadName,podGroupTemplateName}` on a"
        " PodGroup when the target is 1.37."
    )
    why = (
        "The field was renamed: 1.37 rejects `podGroupTemplateRef` as unknown, and without"
        " `workloadRef` the PodGroup is no longer tied to its Workload's template."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  podGroupTemplateRef:
    workload:
      workloadName: training
      podGroupTemplateName: workers
  schedulingPolicy:
    gang:
      minCount: 4
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 4
"""
    kinds = frozenset({(SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("beta-api") or "podGroupTemplateRef" not in obj.spec:
            return
        workload = as_map(as_map(obj.spec["podGroupTemplateRef"]).get("workload"))
        name = as_str(workload.get("workloadName")) or "<workload>"
        template = as_str(workload.get("podGroupTemplateName")) or "<template>"
        yield self.hit(
            obj,
            ("spec", "podGroupTemplateRef"),
            "spec.podGroupTemplateRef.workload is the 1.36 shape, unknown to 1.37: write"
            f" spec.workloadRef: {{workloadName: {name}, templateName: {template}}}",
        )
