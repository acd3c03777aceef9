"""WAS802 orphan-claim."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.runtime.common import (
    PODGROUP,
    age_text,
    label,
    listed,
    now,
    parse_time,
    stamp,
    stored,
    threshold,
)
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import KObject, as_list, as_map, as_str

CLAIM_KINDS = frozenset({("resource.k8s.io", "ResourceClaim")})


@register
class OrphanClaim(Rule):
    code = "WAS802"
    name = "orphan-claim"
    severity = Severity.WARNING
    summary = "A ResourceClaim reserved for a PodGroup that no longer exists, or allocated with no consumer."
    what = (
        "For every stored ResourceClaim: fires when `status.reservedFor` names a `podgroups` consumer of"
        " `scheduling.k8s.io` that is not in the cluster (silent when the PodGroups of that namespace were not"
        " read), and when `status.allocation` is set but `status.reservedFor` is empty for longer than"
        " `runtime: orphan-after`."
    )
    why = (
        "An allocated claim holds its devices: with its PodGroup gone, or no consumer at all, the GPUs are"
        " allocated to nobody and no other Pod can use them until the claim is deleted."
    )
    example = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared-gpus
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec: {}
status:
  allocation: {}     # allocated, and reserved for nobody
"""
    use_instead = """\
# Delete the claim (kubectl delete resourceclaim -n ml shared-gpus); claims made from a
# PodGroup's resourceClaimTemplateName are owned by the PodGroup and go with it.
"""
    kinds = CLAIM_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        created = parse_time(obj.metadata.get("creationTimestamp"))
        if created is None:
            return
        status = as_map(obj.data.get("status"))
        reserved = as_list(status.get("reservedFor"))
        for position, consumer in enumerate(reserved):
            entry = as_map(consumer)
            if entry.get("resource") != "podgroups" or entry.get("apiGroup") != SCHEDULING:
                continue
            name = as_str(entry.get("name"))
            if name is None or not listed(ctx, *PODGROUP, obj.namespace):
                continue
            if not any(stored(group) for group in ctx.index.get_all(*PODGROUP, obj.namespace, name)):
                yield self.hit(
                    obj,
                    ("status", "reservedFor", position, "name"),
                    f"{label(obj)} is reserved for PodGroup {obj.namespace}/{name}, which does not exist: its devices"
                    " are held for nobody; delete the claim",
                    point_at_key=False,
                )
        age = (now(ctx) - created).total_seconds()
        if "allocation" in status and not reserved and age >= threshold(ctx, "orphan-after"):
            yield self.hit(
                obj,
                ("status", "allocation"),
                f"{label(obj)} is allocated but reserved for no consumer (created {stamp(created)}, more than"
                f" orphan-after {age_text(threshold(ctx, 'orphan-after'))} ago): its devices are unusable until it is"
                " deleted",
            )
