"""WAS102 alpha-api-in-use."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.knowledge.lifecycle import lifecycle_entry, preferred_entry
from waslint.knowledge.releases import fix_target
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.keys import WAS_GROUP_KINDS
from waslint.objects.kobject import KObject


@register
class AlphaApiInUse(Rule):
    code = "WAS102"
    name = "alpha-api-in-use"
    severity = Severity.WARNING
    fix_title = "change the apiVersion to scheduling.k8s.io/v1beta1 (same schema)"
    other_severities = (Severity.INFO,)
    summary = "An alpha WAS apiVersion is used where the target serves a beta one."
    what = (
        "Workload/PodGroup at `scheduling.k8s.io/v1alpha3` when the target serves `v1beta1`: the"
        " schemas are identical, the fix is the apiVersion alone. CompositePodGroup `v1alpha3` gets"
        " `info`: it exists only as alpha and needs the CompositePodGroup gate."
    )
    why = (
        "Alpha versions need `--runtime-config` on the API server, can change without notice and"
        " are removed without conversion (as v1alpha2 was in 1.37). v1beta1 is the version to store."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 8
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 8
"""
    kinds = WAS_GROUP_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        entry = lifecycle_entry(obj.group, obj.version, obj.kind)
        if entry is None or not entry.served_in(ctx.target) or entry.stage != "alpha":
            return
        preferred = preferred_entry(obj.group, obj.kind, ctx.target)
        if preferred is not None and preferred.stage != "alpha":
            yield self.hit(
                obj,
                ("apiVersion",),
                f"{obj.api_version} {obj.kind} is alpha; Kubernetes {ctx.target} serves"
                f" {preferred.api_version} with the same schema: change the apiVersion (`waslint fix`)",
                fixable=ctx.target == fix_target(),
            )
        elif entry.notice:
            yield self.hit(obj, ("apiVersion",), entry.notice, severity=Severity.INFO, fixable=False)
