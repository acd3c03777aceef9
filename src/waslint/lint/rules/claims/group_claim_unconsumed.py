"""WAS202 group-claim-unconsumed."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.claims.common import group_label, member_label
from waslint.objects.groups import Group, object_group
from waslint.objects.index import distinct_members
from waslint.objects.keys import JOB_KINDS, SCHEDULING
from waslint.objects.kobject import KObject
from waslint.objects.walks import Claim, PodTemplate, claim_entries, pod_templates


@register
class GroupClaimUnconsumed(Rule):
    code = "WAS202"
    name = "group-claim-unconsumed"
    severity = Severity.WARNING
    summary = "A group claim that no member Pod in the set consumes."
    what = (
        "For every PodGroup with `spec.resourceClaims` that has at least one member in the set"
        " (a Pod or pod template whose `schedulingGroup.podGroupName` names it, same namespace),"
        " and for every Job with `spec.scheduling.resourceClaims` (its members are its own pod"
        " template; CronJob `jobTemplate` too), reports each group claim that no member declares"
        " with the identical triple (name, resourceClaimName, resourceClaimTemplateName). When a"
        " member consumes the group claim's template or name outside the group's claim list, the"
        " message names that member and its entry: that is the one-claim-per-Pod flood. A"
        " PodGroup with no member in the set is not reported (its Pods may be created by a"
        " controller). The Pod-side error for the same near-miss is WAS201."
    )
    why = (
        "A group claim is allocated once for the PodGroup and kept (with its devices) as long as"
        " the group lives. If no member declares it, those devices are reserved for nobody; if the"
        " members consume the same template under their own entries, each Pod additionally gets"
        " its own claim: the per-Pod flood that 1.37's fail-closed behaviour for group claims"
        " exists to stop."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
    resourceClaims:
    - name: shared-gpu
      resourceClaimTemplateName: gpu-claim
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0     # nobody declares shared-gpu
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
    resourceClaims:
    - name: shared-gpu
      resourceClaimTemplateName: gpu-claim
  template:
    spec:
      restartPolicy: Never
      resourceClaims:
      - name: shared-gpu
        resourceClaimTemplateName: gpu-claim
      containers:
      - name: main
        image: trainer:1.0
        resources:
          claims:
          - name: shared-gpu
"""
    kinds = frozenset({(SCHEDULING, "PodGroup")}) | JOB_KINDS
    text_trigger = "resourceClaims"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        group = object_group(obj)
        if group is None or not group.claims:
            return
        if obj.kind == "PodGroup":
            members = distinct_members(ctx.index.pod_group_members(obj.namespace, obj.name) if obj.name else [], obj)
        else:
            # A pod template with schedulingGroup opts the Job out of spec.scheduling (WAS403).
            members = [t for t in pod_templates(obj) if not t.membership.scheduling_group]
        if not group.claims or not members:
            return
        consumers = [(m, claim_entries(m.spec, m.path)) for m in members]
        for theirs in group.claims:
            if theirs.name is None:
                continue
            if any(mine.triple == theirs.triple for _, claims in consumers for mine in claims):
                continue
            yield self.hit(obj, (*theirs.path, "name"), self._message(group, theirs, consumers))

    @staticmethod
    def _message(group: Group, theirs: Claim, consumers: list[tuple[PodTemplate, list[Claim]]]) -> str:
        near = [
            (member, mine)
            for member, claims in consumers
            for mine in claims
            if mine.name == theirs.name
            or (theirs.template_name is not None and mine.template_name == theirs.template_name)
        ]
        subject = (
            "its pod template"
            if group.obj.kind != "PodGroup"
            else (
                f"its {len(consumers)} member(s) in the set ("
                + ", ".join(member_label(member) for member, _ in consumers[:3])
                + (", ..." if len(consumers) > 3 else "")
                + ")"
            )
        )
        head = f"group claim {theirs.show()} of {group_label(group)} is consumed by none of {subject}"
        if near:
            member, mine = near[0]
            return (
                f"{head}: {member_label(member)} declares {mine.show()} instead, so each of its"
                " Pods gets its own claim while the group's claim holds devices for nobody. Make"
                f" the member's entry exactly {theirs.show()}"
            )
        return (
            f"{head}: its devices are allocated for the group and used by no Pod. Add"
            f" {theirs.show()} to the members' spec.resourceClaims (and to the containers'"
            " resources.claims), or remove the group claim"
        )
