"""What the WAS2xx rules share: the group a member pod template belongs to, and how groups and
members are named in messages."""

from __future__ import annotations

from waslint.lint.context import Context
from waslint.objects.groups import Group, object_group
from waslint.objects.keys import JOB_KINDS, PODGROUP, SCHEDULING
from waslint.objects.walks import PodTemplate

GROUP_CLAIM_KINDS = frozenset({(SCHEDULING, "Workload"), PODGROUP}) | JOB_KINDS


SOURCE_FIELDS = ("resourceClaimName", "resourceClaimTemplateName")


def group_label(group: Group) -> str:
    """A member's group in messages: PodGroup ns/name, or Job ns/name spec.scheduling."""
    obj = group.obj
    if obj.kind == "PodGroup":
        return f"PodGroup {obj.namespace}/{obj.name}"
    return f"{obj.kind} {obj.namespace}/{obj.name} spec.scheduling"


def group_of(template: PodTemplate, ctx: Context) -> Group | None:
    """The PodGroup named by `schedulingGroup`, else the Job's own `spec.scheduling`, else None.

    A pod template that sets `schedulingGroup` at all opts its Job out of `spec.scheduling` (the
    Job controller then ignores it), so there is no fallback to the Job in that case.
    """
    owner = template.owner
    joined = template.membership
    if joined.scheduling_group:
        if joined.pod_group is None:
            return None
        found = ctx.index.nearest(*PODGROUP, owner.namespace, joined.pod_group.value, owner)
        return object_group(found) if found is not None else None
    if template.role != "job":
        return None
    return object_group(owner)


def in_group(template: PodTemplate) -> bool:
    """Whether the template's Pods belong to a group: its own schedulingGroup, or (a Job's
    template) the Job's spec.scheduling."""
    return template.membership.scheduling_group or (template.role == "job" and object_group(template.owner) is not None)


def member_label(template: PodTemplate) -> str:
    owner = template.owner
    where = f"{owner.kind} {owner.namespace}/{owner.name or '<unnamed>'}"
    return where if template.role == "pod" else f"{where} (pod template)"


def holder_label(group: Group) -> str:
    if group.template is not None:
        return f"Workload template {group.name or '<unnamed>'!r}"
    if group.obj.kind == "PodGroup":
        return "PodGroup"
    return f"{group.obj.kind} spec.scheduling"
