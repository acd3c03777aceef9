"""WAS805 unschedulable-gang."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.runtime.common import COMPOSITE, PODGROUP, label, scheduling_condition, stored
from waslint.objects.kobject import KObject, as_str


@register
class UnschedulableGang(Rule):
    code = "WAS805"
    name = "unschedulable-gang"
    severity = Severity.INFO
    summary = "A PodGroup or CompositePodGroup the scheduler reports Unschedulable."
    what = (
        "For every stored PodGroup and CompositePodGroup: fires when its scheduling condition"
        " (`PodGroupInitiallyScheduled`, `PodGroupScheduled` in 1.36, `CompositePodGroupInitiallyScheduled`)"
        " is `False` with reason `Unschedulable`. The message carries the scheduler's message and the"
        " `waslint feasibility` command that explains where the gang could go."
    )
    why = (
        "An unschedulable gang waits forever without an event on the Job; the scheduler's message names one"
        " failed attempt. A feasibility check on a capture of the same cluster shows whether the gang can fit"
        " at all (how many members fit in the best topology domain and what excluded the other nodes)."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: too-big
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  schedulingPolicy:
    gang:
      minCount: 64
status:
  conditions:
  - type: PodGroupInitiallyScheduled
    status: "False"
    reason: Unschedulable
    message: 0/8 nodes are available
    lastTransitionTime: "2026-01-01T00:01:00Z"
"""
    use_instead = """\
# waslint snapshot capture -o cluster.json
# waslint feasibility --snapshot cluster.json deploy/   # why the gang cannot be placed, and where it could
"""
    kinds = frozenset({PODGROUP, COMPOSITE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        found = scheduling_condition(obj)
        if (
            not stored(obj)
            or found is None
            or found[1].get("status") != "False"
            or found[1].get("reason") != "Unschedulable"
        ):
            return
        position, condition = found
        said = as_str(condition.get("message"))
        scheduler = f': "{said}"' if said else ""
        yield self.hit(
            obj,
            ("status", "conditions", position, "reason"),
            f"{label(obj)} is Unschedulable{scheduler}; run `waslint snapshot capture -o cluster.json` and"
            " `waslint feasibility --snapshot cluster.json` on its manifest to see why it cannot be placed",
            point_at_key=False,
        )
