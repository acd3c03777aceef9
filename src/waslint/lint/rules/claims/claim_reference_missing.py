"""WAS204 claim-reference-missing."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.claims.common import GROUP_CLAIM_KINDS, SOURCE_FIELDS, holder_label, in_group
from waslint.objects.groups import groups_of
from waslint.objects.kobject import KObject
from waslint.objects.walks import POD_TEMPLATE_KINDS, Claim, claim_entries, pod_templates

RESOURCE = "resource.k8s.io"


@register
class ClaimReferenceMissing(Rule):
    code = "WAS204"
    name = "claim-reference-missing"
    severity = Severity.WARNING
    summary = "A claim names a ResourceClaimTemplate / ResourceClaim that the set does not hold."
    what = (
        "Checks `resourceClaimTemplateName` and `resourceClaimName` in group claims (PodGroup,"
        " Workload templates, Job and CronJob `spec.scheduling`) and in the `spec.resourceClaims`"
        " of group members (Pods and pod templates with `schedulingGroup`, pod templates of a"
        " Job with `spec.scheduling`); claims of Pods outside any group are plain DRA, not this"
        " rule's business. Fires when no `resource.k8s.io` ResourceClaimTemplate"
        " (respectively ResourceClaim) of that name exists in the object's namespace, but the set"
        " holds at least one object of that kind in that namespace: then the manifests evidently"
        " ship that namespace's templates (claims), and a missing one is most likely a typo or a"
        " rename. If the set holds none of that kind in the namespace, the rule stays silent (they"
        " may be created elsewhere). Objects without `metadata.namespace` are in the `--namespace`"
        " namespace."
    )
    why = (
        "A claim that references a missing template or claim is not an API error: the Pods (or"
        " the whole gang, for a group claim) stay Pending until the object appears, with only an"
        " event to say why."
    )
    example = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: gpu-claim
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
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
    resourceClaimTemplateName: gpu-clam     # typo
"""
    use_instead = """\
  resourceClaims:
  - name: shared-gpu
    resourceClaimTemplateName: gpu-claim
"""
    kinds = GROUP_CLAIM_KINDS | POD_TEMPLATE_KINDS
    text_trigger = "resourceClaim"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        index = ctx.index
        namespace = obj.namespace
        have_templates = index.has_kind_in_namespace(RESOURCE, "ResourceClaimTemplate", namespace)
        have_claims = index.has_kind_in_namespace(RESOURCE, "ResourceClaim", namespace)
        if not have_templates and not have_claims:
            return
        for where, claims in self._claim_lists(obj):
            for claim in claims:
                for kind, field, value, present in (
                    ("ResourceClaimTemplate", SOURCE_FIELDS[1], claim.template_name, have_templates),
                    ("ResourceClaim", SOURCE_FIELDS[0], claim.claim_name, have_claims),
                ):
                    if value is None or not present:
                        continue
                    if index.get(RESOURCE, kind, obj.namespace, value) is not None:
                        continue
                    known = sorted(
                        o.name
                        for o in index.of_kind(RESOURCE, kind)
                        if o.namespace == obj.namespace and o.name is not None
                    )
                    shown = ", ".join(known[:5]) + (", ..." if len(known) > 5 else "")
                    yield self.hit(
                        obj,
                        (*claim.path, field),
                        f"{where} claim {claim.name or '<unnamed>'!r} references {kind} {value!r},"
                        f" which is not in namespace {obj.namespace!r} of this set (it has:"
                        f" {shown}): fix the name or add the {kind}; until it exists the Pods stay"
                        " Pending",
                        point_at_key=False,
                    )

    @staticmethod
    def _claim_lists(obj: KObject) -> Iterator[tuple[str, list[Claim]]]:
        if (obj.group, obj.kind) in GROUP_CLAIM_KINDS:
            for group in groups_of(obj):
                yield holder_label(group), list(group.claims)
        if (obj.group, obj.kind) in POD_TEMPLATE_KINDS:
            for template in pod_templates(obj):
                if not in_group(template):
                    continue
                label = "Pod" if template.role == "pod" else "pod template"
                yield label, claim_entries(template.spec, template.path)
