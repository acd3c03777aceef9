"""WAS201 claim-triple-mismatch."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.claims.common import group_label, group_of
from waslint.objects.groups import Group
from waslint.objects.kobject import KObject
from waslint.objects.walks import POD_TEMPLATE_KINDS, Claim, PodTemplate, claim_entries, pod_templates


def _differing_field(pod: Claim, group: Claim) -> Path:
    """The pod entry's field that differs from the group entry, for the finding's position."""
    for field, mine, theirs in (
        ("resourceClaimTemplateName", pod.template_name, group.template_name),
        ("resourceClaimName", pod.claim_name, group.claim_name),
    ):
        if mine != theirs and field in pod.raw:
            return (*pod.path, field)
    return (*pod.path, "name")


@register
class ClaimTripleMismatch(Rule):
    code = "WAS201"
    name = "claim-triple-mismatch"
    severity = Severity.ERROR
    summary = "A member Pod's claim has the name or template of a group claim but not the same triple."
    what = (
        "For every pod template that belongs to a group (a Pod or pod template whose"
        " `spec.schedulingGroup.podGroupName` names a PodGroup in the set, same namespace; or the"
        " pod template of a Job with `spec.scheduling` and no `schedulingGroup`), compares each"
        " `spec.resourceClaims` entry with the group's claims (PodGroup `spec.resourceClaims`, Job"
        " `spec.scheduling.resourceClaims`). Fires when an entry has the same `name` as a group"
        " claim but a different `resourceClaimName`/`resourceClaimTemplateName`, or uses the same"
        " `resourceClaimTemplateName` as a group claim under another `name`. The message shows"
        " the Pod's triple and the group's triple side by side. An entry that only shares a"
        " `resourceClaimName` under another name is not reported: that claim is still one shared"
        " ResourceClaim, only reserved per Pod. The group side (a group claim nobody consumes) is"
        " WAS202; malformed entries are WAS203."
    )
    why = (
        "A Pod claim joins the group's shared claim only when all three fields are equal. When"
        " they differ nothing errors: the claim silently becomes per-Pod (every Pod of the gang"
        " gets its own ResourceClaim generated from the template, so an 8-Pod gang asks for 8"
        " devices instead of sharing one), or, with the DRAWorkloadResourceClaims gate off in"
        " 1.37, it is never created. Copying the group's entry"
        " verbatim into the pod template is the fix (group claims are immutable)."
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
    resourceClaimTemplateName: gpu-claim
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  schedulingGroup:
    podGroupName: workers
  resourceClaims:
  - name: shared-gpu
    resourceClaimTemplateName: gpu-claim-v2   # not the group's template
  containers:
  - name: main
    image: trainer:1.0
    resources:
      claims:
      - name: shared-gpu
"""
    use_instead = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  schedulingGroup:
    podGroupName: workers
  resourceClaims:
  - name: shared-gpu
    resourceClaimTemplateName: gpu-claim      # exactly the group's entry
  containers:
  - name: main
    image: trainer:1.0
    resources:
      claims:
      - name: shared-gpu
"""
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "resourceClaims"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        for template in pod_templates(obj):
            pod_claims = claim_entries(template.spec, template.path)
            if not pod_claims:
                continue
            group = group_of(template, ctx)
            if group is None or not group.claims:
                continue
            yield from self._compare(obj, template, pod_claims, group)

    def _compare(self, obj: KObject, template: PodTemplate, pod_claims: list[Claim], group: Group) -> Iterator[Hit]:
        by_name = {claim.name: claim for claim in group.claims if claim.name is not None}
        by_template = {claim.template_name: claim for claim in group.claims if claim.template_name is not None}
        who = "Pod" if template.role == "pod" else "pod template"
        for mine in pod_claims:
            if mine.name is None:
                continue
            theirs = by_name.get(mine.name)
            if theirs is not None:
                if theirs.triple == mine.triple:
                    continue
                yield self.hit(
                    obj,
                    _differing_field(mine, theirs),
                    f"claim {mine.name!r} does not match the {group_label(group)} claim of the same"
                    f" name. {who} {mine.show()} vs group {theirs.show()}: only an identical"
                    " triple (name, resourceClaimName, resourceClaimTemplateName) shares the"
                    " group's claim; this one silently becomes a per-Pod claim. Write the group's"
                    f" entry here: {theirs.show()}",
                )
                continue
            if mine.template_name is not None and mine.template_name in by_template:
                theirs = by_template[mine.template_name]
                yield self.hit(
                    obj,
                    (*mine.path, "name"),
                    f"claim {mine.name!r} uses the template of {group_label(group)} claim {theirs.name!r}"
                    f" under another name: {who} {mine.show()} vs group {theirs.show()}. The names"
                    " differ, so every Pod gets its own ResourceClaim from the template instead of"
                    f" sharing the group's one. Write the group's entry here: {theirs.show()}"
                    f" (and reference {theirs.name!r} from the containers' resources.claims)",
                )
