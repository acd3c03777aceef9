"""WAS203 claim-source-invalid."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.claims.common import GROUP_CLAIM_KINDS, SOURCE_FIELDS, holder_label
from waslint.objects.kobject import KObject, as_str


@register
class ClaimSourceInvalid(Rule):
    code = "WAS203"
    name = "claim-source-invalid"
    severity = Severity.ERROR
    summary = (
        "A group claim sets both or neither of resourceClaimName / resourceClaimTemplateName,"
        " or a group has more than 4 claims."
    )
    what = (
        "Checks every group claim list: PodGroup `spec.resourceClaims`, each Workload template's"
        " `resourceClaims` and Job (or CronJob `jobTemplate`) `spec.scheduling.resourceClaims`."
        " Fires on an entry that sets both `resourceClaimName` and `resourceClaimTemplateName`,"
        " or neither (a `null` value counts as unset; an empty name is set, and WAS003 reports that it"
        " is no DNS subdomain), and on a list of more than 4 claims (at the 5th entry; as upstream's"
        " maxItems does, the entries of such a list are not judged further). Upstream validation"
        " detects these, this rule words them. The Job's building-block type may not enforce"
        " exactly-one itself (its description calls each name optional), but the Job controller copies the entries"
        " into the PodGroup it creates, where it is enforced: so the Job is held to the same rule."
    )
    why = (
        "The API server rejects the object (or, for a Job, the PodGroup the Job controller tries"
        " to create from it, which leaves the Job's Pods without a group). An entry must say"
        " either which existing ResourceClaim to share (`resourceClaimName`) or which template to"
        " generate the group's claim from (`resourceClaimTemplateName`), never both."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  resourceClaims:
  - name: shared-gpu
    resourceClaimName: gpu-pool
    resourceClaimTemplateName: gpu-claim
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  resourceClaims:
  - name: shared-gpu
    resourceClaimTemplateName: gpu-claim
"""
    kinds = GROUP_CLAIM_KINDS
    text_trigger = "resourceClaims"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        """Upstream validation's claim-list errors (the union of the two names, `maxItems`), worded here."""
        from waslint.lint.rules.input.upstream import group_at, owned_issues, value_at

        for issue in owned_issues(obj, ctx.target, self.code):
            group = group_at(obj, issue.path)
            where = holder_label(group) if group is not None else obj.kind
            if issue.origin == "maxItems":
                claims = value_at(obj.data, issue.path)
                count = len(claims) if isinstance(claims, list) else 0
                bound = issue.bound or count
                yield self.hit(
                    obj,
                    (*issue.path, bound),
                    f"{where} has {count} claims; at most"
                    f" {bound} are allowed per group: merge device requests into fewer claims"
                    " (one ResourceClaim can hold several requests)",
                )
                continue
            item = value_at(obj.data, issue.path)
            item = item if isinstance(item, dict) else {}
            position = issue.path[-1] if isinstance(issue.path[-1], int) else 0
            name = as_str(item.get("name")) or f"#{position + 1}"
            if all(_is_set(item.get(f)) for f in SOURCE_FIELDS):
                yield self.hit(
                    obj,
                    (*issue.path, "resourceClaimTemplateName"),
                    f"{where} claim {name!r} sets both resourceClaimName"
                    f" ({item.get('resourceClaimName')}) and resourceClaimTemplateName"
                    f" ({item.get('resourceClaimTemplateName')}): keep exactly one (the name of"
                    " an existing ResourceClaim to share, or the template to generate the"
                    " group's claim from)",
                )
            else:
                yield self.hit(
                    obj,
                    (*issue.path, "name") if "name" in item else issue.path,
                    f"{where} claim {name!r} sets neither resourceClaimName nor"
                    " resourceClaimTemplateName: add exactly one of them",
                )


def _is_set(value: Any) -> bool:
    return value is not None and value != ""
