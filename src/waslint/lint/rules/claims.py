"""WAS2xx: shared DRA claims between Pods and their PodGroup (or Job `spec.scheduling`).

A group claim (PodGroup `spec.resourceClaims`, Workload template `resourceClaims`, Job
`spec.scheduling.resourceClaims`) is shared by the whole gang only when a member Pod declares a
claim with the same triple: `name`, `resourceClaimName` and `resourceClaimTemplateName` all equal.
Anything else is silently a per-Pod claim (the `PodResourceClaim` and `PodGroupResourceClaim`
descriptions of the 1.36 and 1.37 OpenAPI; KEP-5729). The group of a pod template is the PodGroup
its `spec.schedulingGroup.podGroupName` names (same namespace), or, for a Job without
`schedulingGroup`, the Job's own `spec.scheduling`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.index import distinct_members
from waslint.objects.kobject import SCHEDULING, KObject, as_list, as_map, as_str, dig
from waslint.objects.walks import (
    JOB_KINDS,
    POD_TEMPLATE_KINDS,
    Claim,
    PodTemplate,
    claim_entries,
    group_policy_holders,
    job_scheduling,
    pod_templates,
)

RESOURCE = "resource.k8s.io"
MAX_GROUP_CLAIMS = 4
GROUP_CLAIM_KINDS = frozenset({(SCHEDULING, "Workload"), (SCHEDULING, "PodGroup")}) | JOB_KINDS
SOURCE_FIELDS = ("resourceClaimName", "resourceClaimTemplateName")


@dataclass(frozen=True)
class Group:
    """The group a member pod template belongs to, with its claims."""

    obj: KObject
    path: Path  # the mapping holding resourceClaims: PodGroup spec or Job spec.scheduling
    claims: list[Claim]

    @property
    def label(self) -> str:
        if self.obj.kind == "PodGroup":
            return f"PodGroup {self.obj.namespace}/{self.obj.name}"
        return f"{self.obj.kind} {self.obj.namespace}/{self.obj.name} spec.scheduling"


def group_of(template: PodTemplate, ctx: Context) -> Group | None:
    """The PodGroup named by `schedulingGroup`, else the Job's own `spec.scheduling`, else None.

    A pod template that sets `schedulingGroup` at all opts its Job out of `spec.scheduling` (the
    Job controller then ignores it), so there is no fallback to the Job in that case.
    """
    owner = template.owner
    if "schedulingGroup" in template.spec:
        name = as_str(as_map(template.spec.get("schedulingGroup")).get("podGroupName"))
        if name is None:
            return None
        group = ctx.index.nearest(SCHEDULING, "PodGroup", owner.namespace, name, owner)
        if group is None:
            return None
        return Group(group, ("spec",), claim_entries(group.spec, ("spec",)))
    if template.role != "job":
        return None
    scheduling = job_scheduling(owner)
    if scheduling is None:
        return None
    path, holder = scheduling
    return Group(owner, path, claim_entries(holder, path))


def member_label(template: PodTemplate) -> str:
    owner = template.owner
    where = f"{owner.kind} {owner.namespace}/{owner.name or '<unnamed>'}"
    return where if template.role == "pod" else f"{where} (pod template)"


def _differing_field(pod: Claim, group: Claim) -> Path:
    """The pod entry's field that differs from the group entry, for the finding's position."""
    for field, mine, theirs in (
        ("resourceClaimTemplateName", pod.template_name, group.template_name),
        ("resourceClaimName", pod.claim_name, group.claim_name),
    ):
        if mine != theirs and field in pod.raw:
            return (*pod.path, field)
    return (*pod.path, "name")


# --------------------------------------------------------------------------- WAS201


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
                    f"claim {mine.name!r} does not match the {group.label} claim of the same"
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
                    f"claim {mine.name!r} uses the template of {group.label} claim {theirs.name!r}"
                    f" under another name: {who} {mine.show()} vs group {theirs.show()}. The names"
                    " differ, so every Pod gets its own ResourceClaim from the template instead of"
                    f" sharing the group's one. Write the group's entry here: {theirs.show()}"
                    f" (and reference {theirs.name!r} from the containers' resources.claims)",
                )


# --------------------------------------------------------------------------- WAS202


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
        if obj.kind == "PodGroup":
            group = Group(obj, ("spec",), claim_entries(obj.spec, ("spec",)))
            if not group.claims:
                return
            members = distinct_members(ctx.index.pod_group_members(obj.namespace, obj.name) if obj.name else [], obj)
        else:
            scheduling = job_scheduling(obj)
            if scheduling is None:
                return
            group = Group(obj, scheduling[0], claim_entries(scheduling[1], scheduling[0]))
            # A pod template with schedulingGroup opts the Job out of spec.scheduling (WAS403).
            members = [t for t in pod_templates(obj) if "schedulingGroup" not in t.spec]
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
        head = f"group claim {theirs.show()} of {group.label} is consumed by none of {subject}"
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


# --------------------------------------------------------------------------- WAS203


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
        " or neither (a `null` or empty value counts as unset), and on the 5th and later entries"
        " of a list (at most 4 claims per group). The Job's building-block type may not enforce"
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
        for path, holder in group_policy_holders(obj):
            claims = as_list(holder.get("resourceClaims"))
            where = _holder_label(obj, path)
            for position, item in enumerate(claims):
                if not isinstance(item, dict):
                    continue
                entry_path: Path = (*path, "resourceClaims", position)
                name = as_str(item.get("name")) or f"#{position + 1}"
                set_fields = [f for f in SOURCE_FIELDS if _is_set(item.get(f))]
                if len(set_fields) == 2:
                    yield self.hit(
                        obj,
                        (*entry_path, "resourceClaimTemplateName"),
                        f"{where} claim {name!r} sets both resourceClaimName"
                        f" ({item.get('resourceClaimName')}) and resourceClaimTemplateName"
                        f" ({item.get('resourceClaimTemplateName')}): keep exactly one (the name of"
                        " an existing ResourceClaim to share, or the template to generate the"
                        " group's claim from)",
                    )
                elif not set_fields:
                    yield self.hit(
                        obj,
                        (*entry_path, "name") if "name" in item else entry_path,
                        f"{where} claim {name!r} sets neither resourceClaimName nor"
                        " resourceClaimTemplateName: add exactly one of them",
                    )
            if len(claims) > MAX_GROUP_CLAIMS:
                yield self.hit(
                    obj,
                    (*path, "resourceClaims", MAX_GROUP_CLAIMS),
                    f"{where} has {len(claims)} claims; at most {MAX_GROUP_CLAIMS} are allowed per"
                    " group: merge device requests into fewer claims (one ResourceClaim can hold"
                    " several requests)",
                )


def _is_set(value: Any) -> bool:
    return value is not None and value != ""


def _holder_label(obj: KObject, path: Path) -> str:
    if obj.kind == "Workload":
        template = dig(obj.data, *path)
        name = as_str(as_map(template).get("name")) or "<unnamed>"
        return f"Workload template {name!r}"
    if obj.kind == "PodGroup":
        return "PodGroup"
    return f"{obj.kind} spec.scheduling"


# --------------------------------------------------------------------------- WAS204


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
            for path, holder in group_policy_holders(obj):
                yield _holder_label(obj, path), claim_entries(holder, path)
        if (obj.group, obj.kind) in POD_TEMPLATE_KINDS:
            for template in pod_templates(obj):
                member = "schedulingGroup" in template.spec or (
                    template.role == "job" and job_scheduling(obj) is not None
                )
                if not member:
                    continue
                label = "Pod" if template.role == "pod" else "pod template"
                yield label, claim_entries(template.spec, template.path)
