"""WAS105 (unsafe): Pod `spec.workloadRef` (1.35) -> `spec.schedulingGroup.podGroupName` + PodGroups.

For each distinct (namespace, workload, podGroup, replicaKey) the fix adds one PodGroup
(`spec.workloadRef` = the Workload and template, `schedulingPolicy` and the other group fields
copied from the template) and points every such Pod (or pod template) at it. The PodGroup name
is `<workload>-<podGroup>[-<replicaKey>]`, or that with a hash suffix when the name is taken
or too long: deterministic for one set of files, a DNS subdomain, never two PodGroups with one
name. A PodGroup already in the set with that name and Workload template is reused.

The new document goes right after the Workload's document, or at the end of the first Pod's file
when the Workload's file cannot take it (JSON, unparsable, templated). Without the Workload in
the files being fixed there is no policy to copy: no fix.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import field
from typing import Any

from waslint.core.model import FixKind, Path
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.knowledge.names import DNS_LABEL, DNS_SUBDOMAIN
from waslint.knowledge.releases import fix_target
from waslint.knowledge.schema import validate_object
from waslint.lint.fixers.migration import DISRUPTION, TARGET_VERSION
from waslint.lint.fixers.ops import RenameKey, ReplaceValue
from waslint.lint.fixers.plan import Check, NewDocument, Plan, Unit
from waslint.lint.fixers.registry import FixEnv, FixTarget, fixes
from waslint.objects.groups import Group, groups_of, object_group
from waslint.objects.index import ObjectIndex
from waslint.objects.keys import PODGROUP, WORKLOAD
from waslint.objects.kobject import KObject, as_map, as_str, dig
from waslint.objects.walks import TEMPLATE_COPIED_FIELDS

MAX_NAME = 253
HEADER = [
    "# Added by `waslint fix --unsafe-fixes`: since Kubernetes 1.36 Pods join their gang through",
    "# spec.schedulingGroup.podGroupName, naming this PodGroup (it replaces Pod spec.workloadRef).",
]


@dataclass(eq=False)
class _Member:
    finding: Finding
    obj: KObject
    doc: int
    spec_path: Path  # full path of the pod spec holding workloadRef


@dataclass(eq=False)
class _Group:
    namespace: str
    workload: str
    template: str
    replica: str | None
    workload_obj: KObject
    template_group: Group  # the Workload template the PodGroup is made from
    members: list[_Member] = field(default_factory=list)


@fixes("WAS105", kind=FixKind.UNSAFE)
def plan_pod_groups(targets: list[FixTarget], env: FixEnv, plan: Plan) -> None:
    """Units and new PodGroup documents for WAS105 findings."""
    index, writable, position = env.index, env.writable, env.position
    groups: dict[tuple[str, str, str, str], _Group] = {}
    for finding, obj, doc in ((target.finding, target.obj, target.doc) for target in targets):
        group_key = _group_for(finding, obj, doc, index, plan, groups)
        if group_key is not None:
            groups[group_key].members.append(_Member(finding, obj, doc, finding.field_path[:-1]))
    taken: dict[str, set[str]] = {}
    for group_key in sorted(groups):
        group = groups[group_key]
        names = taken.setdefault(group.namespace, _existing_names(index, group.namespace))
        _plan_group(group, names, index, plan, writable, position)


def _group_for(
    finding: Finding,
    obj: KObject,
    doc: int,
    index: ObjectIndex,
    plan: Plan,
    groups: dict[tuple[str, str, str, str], _Group],
) -> tuple[str, str, str, str] | None:
    data = obj.doc.data
    reference = dig(data, *finding.field_path)
    spec = as_map(dig(data, *finding.field_path[:-1]))
    if not isinstance(reference, dict):
        plan.skip(finding, "spec.workloadRef is not a mapping")
        return None
    workload = as_str(reference.get("name"))
    template = as_str(reference.get("podGroup"))
    replica = reference.get("podGroupReplicaKey")
    if isinstance(replica, int) and not isinstance(replica, bool):
        replica = str(replica)
    if replica == "":
        replica = None
    if set(reference) - {"name", "podGroup", "podGroupReplicaKey"}:
        plan.skip(finding, "spec.workloadRef has fields 1.35 did not have")
        return None
    if workload is None or not DNS_SUBDOMAIN.match(workload) or len(workload) > MAX_NAME:
        plan.skip(finding, "spec.workloadRef.name is not a valid Workload name")
        return None
    if template is None or not DNS_LABEL.match(template) or len(template) > 63:
        plan.skip(finding, "spec.workloadRef.podGroup is not a valid template name")
        return None
    if replica is not None and (not isinstance(replica, str) or not DNS_LABEL.match(replica) or len(replica) > 63):
        plan.skip(finding, "spec.workloadRef.podGroupReplicaKey is not a DNS label")
        return None
    if "schedulingGroup" in spec:
        plan.skip(finding, "the pod spec has both workloadRef and schedulingGroup: keep one by hand")
        return None
    key = (obj.namespace, workload, template, replica or "")
    if key in groups:
        return key
    candidates = index.get_all(*WORKLOAD, obj.namespace, workload)
    if not candidates:
        plan.skip(
            finding,
            f"Workload {obj.namespace}/{workload} is not in the files being fixed: the new PodGroup"
            " copies its template's policy (fix the folder that holds both)",
        )
        return None
    if len(candidates) > 1:
        plan.skip(finding, f"Workload {obj.namespace}/{workload} is defined more than once")
        return None
    workload_obj = candidates[0]
    matches = [g for g in groups_of(workload_obj) if not g.composite and g.data.get("name") == template]
    if len(matches) != 1:
        plan.skip(finding, f"Workload {obj.namespace}/{workload} has no template {template!r}")
        return None
    if not isinstance(matches[0].policy.raw, dict):
        plan.skip(finding, f"template {template!r} of Workload {workload} has no policy to copy")
        return None
    groups[key] = _Group(obj.namespace, workload, template, replica, workload_obj, matches[0])
    return key


def _existing_names(index: ObjectIndex, namespace: str) -> set[str]:
    return {obj.name for obj in index.of_kind(*PODGROUP) if obj.namespace == namespace and obj.name}


def pod_group_name(namespace: str, workload: str, template: str, replica: str | None, taken: set[str]) -> str:
    """`<workload>-<template>[-<replica>]`, or with a hash suffix when taken or too long."""
    base = "-".join(part for part in (workload, template, replica) if part)
    if len(base) <= MAX_NAME and base not in taken:
        return base
    import hashlib  # a name is made for few findings; lint start-up need not load OpenSSL

    digest = hashlib.sha256(f"{namespace}/{workload}/{template}/{replica or ''}".encode()).hexdigest()
    for size in (8, 12, 16, 64):
        head = base[: MAX_NAME - size - 1].rstrip("-.")
        name = f"{head}-{digest[:size]}"
        if name not in taken:
            return name
    raise AssertionError("no free PodGroup name")  # 2^256 collisions


def _reusable(index: ObjectIndex, group: _Group, name: str) -> bool:
    for obj in index.get_all(*PODGROUP, group.namespace, name):
        existing = object_group(obj)
        ref = existing.workload_ref if existing is not None else None
        if ref is not None and (ref.workload, ref.template) == (group.workload, group.template):
            return True
    return False


def _plan_group(
    group: _Group,
    taken: set[str],
    index: ObjectIndex,
    plan: Plan,
    writable: Callable[[KObject], bool],
    position: Callable[[KObject], int],
) -> None:
    base = "-".join(part for part in (group.workload, group.template, group.replica) if part)
    reuse = len(base) <= MAX_NAME and base in taken and _reusable(index, group, base)
    name = base if reuse else pod_group_name(group.namespace, group.workload, group.template, group.replica, taken)
    requires: tuple[str, ...] = ()
    if not reuse:
        data, problem = _pod_group_data(group, name)
        if problem is not None:
            for member in group.members:
                plan.skip(member.finding, problem)
            return
        host = _host(group, writable, position)
        if host is None:
            for member in group.members:
                plan.skip(
                    member.finding,
                    "no file can take the new PodGroup document (JSON, unparsable or templated)",
                )
            return
        file, after = host
        key = f"PodGroup {group.namespace}/{name}"
        comments = list(HEADER)
        if group.replica:
            comments.append(f"# Pod spec.workloadRef.podGroupReplicaKey was {group.replica!r}.")
        plan.documents.append(NewDocument(key, file, after, data, comments, key))
        requires = (key,)
        taken.add(name)
    for member in group.members:
        reference: Path = member.finding.field_path
        spec_path = member.spec_path
        plan.units.append(
            Unit(
                file=member.obj.file.path,
                doc=member.doc,
                parts=[
                    (
                        member.finding,
                        [
                            ReplaceValue(reference, {"podGroupName": name}),
                            RenameKey(reference, "schedulingGroup"),
                        ],
                    )
                ],
                checks=[Check("fragment", (*spec_path, "schedulingGroup"), fragment="PodSchedulingGroup")],
                label=f"{member.obj.kind} {member.obj.namespace}/{member.obj.name or '<unnamed>'}",
                requires=requires,
                base=member.obj.base_path,
            )
        )


def _pod_group_data(group: _Group, name: str) -> tuple[dict[str, Any], str | None]:
    template = group.template_group.data
    metadata: dict[str, Any] = {"name": name}
    explicit = group.workload_obj.explicit_namespace or any(m.obj.explicit_namespace for m in group.members)
    if explicit:
        metadata["namespace"] = group.namespace
    spec: dict[str, Any] = {
        "workloadRef": {"workloadName": group.workload, "templateName": group.template},
        "schedulingPolicy": copy.deepcopy(group.template_group.policy.raw),
    }
    for key in TEMPLATE_COPIED_FIELDS:
        if key not in template:
            continue
        value = copy.deepcopy(template[key])
        if key == "priority" and isinstance(template.get("priorityClassName"), str):
            continue  # priority admission fills it in from the class
        if key == "disruptionMode" and isinstance(value, str):
            if value not in DISRUPTION:
                return {}, f"template {group.template!r} has an unknown disruptionMode {value!r}"
            value = copy.deepcopy(DISRUPTION[value])
        spec[key] = value
    data: dict[str, Any] = {
        "apiVersion": TARGET_VERSION["PodGroup"],
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": spec,
    }
    issues = validate_object(fix_target(), data["apiVersion"], "PodGroup", data)
    if issues:
        shown = "; ".join(issue.message for issue in issues[:3])
        return {}, f"a PodGroup built from template {group.template!r} would not be valid: {shown}"
    return data, None


def _host(
    group: _Group, writable: Callable[[KObject], bool], position: Callable[[KObject], int]
) -> tuple[str, int | None] | None:
    workload = group.workload_obj
    if writable(workload):
        return workload.file.path, position(workload)
    for member in group.members:
        if writable(member.obj):
            return member.obj.file.path, None
    return None
