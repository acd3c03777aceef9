"""Findings -> operations: the 1.35/1.36 -> 1.37 mapping, per rule, read from the upstream types of
each version (kubernetes/api `scheduling/v1alpha1`, `v1alpha2`, `v1beta1` `types.go`; KEP-4671).

WAS101  v1alpha1 Workload -> v1beta1 (podGroups -> podGroupTemplates, policy -> schedulingPolicy);
        v1alpha2 Workload/PodGroup -> v1beta1 with the field changes (disruptionMode string ->
        object, podGroupTemplateRef.workload -> workloadRef, `priority` left out when a
        priorityClassName is set); CompositePodGroup in another version -> v1alpha3.
WAS102  v1alpha3 Workload/PodGroup -> v1beta1 (apiVersion only).
WAS103  disruptionMode: Pod -> {single: {}}, PodGroup -> {all: {}}.
WAS104  spec.podGroupTemplateRef.workload.{workloadName,podGroupTemplateName}
        -> spec.workloadRef.{workloadName,templateName}.
WAS105  (unsafe) in `podgroups.py`.
"""

from __future__ import annotations

from typing import Any

from waslint.core.model import FixKind, Path
from waslint.findings import Finding
from waslint.knowledge.lifecycle import preferred_entry
from waslint.knowledge.releases import fix_target
from waslint.knowledge.schema import has_schema
from waslint.lint.fixers.checks import decline_invalid
from waslint.lint.fixers.ops import DeleteKey, Hoist, Op, RenameKey, ReplaceValue, SetScalar
from waslint.lint.fixers.plan import Check, Plan, Unit
from waslint.lint.fixers.registry import FixEnv, FixTarget, fixes
from waslint.objects.groups import LEGACY_DISRUPTION_MODES, groups_of
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import WAS_KINDS, KObject, as_list, dig

# The apiVersion each WAS kind is rewritten to: the most mature version the fix target serves.
TARGET_VERSION = {
    kind: entry.api_version
    for kind in WAS_KINDS
    if (entry := preferred_entry(SCHEDULING, kind, fix_target())) is not None
}
DISRUPTION: dict[str, dict[str, Any]] = {legacy: {mode: {}} for legacy, mode in LEGACY_DISRUPTION_MODES.items()}


class _Builder:
    """Collects the operations of one finding's fix."""

    def __init__(self, obj: KObject) -> None:
        self.obj = obj
        self.ops: list[Op] = []

    def add(self, op: Op) -> None:
        self.ops.append(op)

    def full(self, *path: str | int) -> Path:
        return self.obj.full_path(tuple(path))

    def disruption(self, holder_path: Path, holder: dict[str, Any]) -> None:
        value = holder.get("disruptionMode")
        if not isinstance(value, str):
            return
        path = self.full(*holder_path, "disruptionMode")
        if value in DISRUPTION:  # an unknown value stays: the schema check declines the rewrite
            self.add(ReplaceValue(path, DISRUPTION[value]))

    def priority(self, holder_path: Path, holder: dict[str, Any]) -> None:
        class_name = holder.get("priorityClassName")
        if "priority" in holder and isinstance(class_name, str) and class_name:
            self.add(DeleteKey(self.full(*holder_path, "priority")))

    def template_ref(self, spec: dict[str, Any]) -> str | None:
        """podGroupTemplateRef -> workloadRef; returns why not, or None."""
        ref = spec.get("podGroupTemplateRef")
        if ref is None:
            return None
        ref_path = self.full("spec", "podGroupTemplateRef")
        reason = _ref_problem(spec, ref)
        if reason is not None:
            return reason
        assert isinstance(ref, dict)
        inner = ref
        inner_path = ref_path
        if "workload" in ref:
            self.add(Hoist(ref_path, "workload"))
            inner = ref["workload"]
            inner_path = (*ref_path, "workload")
        if "podGroupTemplateName" in inner:
            self.add(RenameKey((*inner_path, "podGroupTemplateName"), "templateName"))
        self.add(RenameKey(ref_path, "workloadRef"))
        return None


def _ref_problem(spec: dict[str, Any], ref: Any) -> str | None:
    if "workloadRef" in spec:
        return "spec has both podGroupTemplateRef and workloadRef: keep one by hand"
    if not isinstance(ref, dict) or not ref:
        return "podGroupTemplateRef is not a mapping"
    if "workload" in ref:
        if len(ref) != 1 or not isinstance(ref["workload"], dict):
            return "podGroupTemplateRef.workload has an unexpected shape"
        if "templateName" in ref["workload"] and "podGroupTemplateName" in ref["workload"]:
            return "podGroupTemplateRef.workload has both templateName and podGroupTemplateName"
        return None
    if set(ref) <= {"workloadName", "podGroupTemplateName"}:  # the flat shape of early drafts
        return None
    return "podGroupTemplateRef has an unexpected shape"


@fixes("WAS101", "WAS102", "WAS103", "WAS104", kind=FixKind.SAFE)
def plan_migrations(targets: list[FixTarget], env: FixEnv, plan: Plan) -> None:
    """The rewrites of WAS101-104, one unit per object (in the order of its first finding)."""
    per_object: dict[KObject, tuple[int, list[Finding]]] = {}
    for target in targets:
        per_object.setdefault(target.obj, (target.doc, []))[1].append(target.finding)
    for obj, (doc_position, findings) in per_object.items():
        plan_object(obj, doc_position, findings, plan)


def plan_object(obj: KObject, doc_position: int, findings: list[Finding], plan: Plan) -> None:
    """One unit for the safe WAS101-104 fixes of one object.

    Each finding gets the operations its fix needs; a WAS103/WAS104 fix on an object in a
    version 1.37 does not serve also needs the WAS101 rewrite (the object form of disruptionMode
    is invalid in v1alpha2). A finding whose operations cannot all be written is left alone, the
    others still go in (`run.prepare`).
    """
    by_code: dict[str, list[Finding]] = {}
    for finding in findings:
        by_code.setdefault(finding.code, []).append(finding)
    parts: list[tuple[Finding, list[Op]]] = []
    rewrite: list[Op] | None = None
    api_version = obj.api_version
    for finding in by_code.get("WAS101", []):
        build = _Builder(obj)
        reason = _rewrite(build)
        if reason is None:
            rewrite = build.ops
            api_version = TARGET_VERSION[obj.kind]
            parts.append((finding, build.ops))
        else:
            plan.skip(finding, reason)
    for finding in by_code.get("WAS102", []):
        if obj.kind in ("Workload", "PodGroup") and obj.version == "v1alpha3":
            api_version = TARGET_VERSION[obj.kind]
            parts.append((finding, [SetScalar(obj.full_path(("apiVersion",)), api_version)]))
        else:
            plan.skip(finding, f"no rewrite known for {obj.api_version} {obj.kind}")

    was_kind = obj.group == SCHEDULING
    needs_rewrite = was_kind and not has_schema(fix_target(), obj.api_version, obj.kind)
    if needs_rewrite and rewrite is None:
        reason = (
            f"left as is: Kubernetes {fix_target()} does not serve {obj.api_version} {obj.kind}, and the"
            " object is not rewritten to a version that does (see WAS101)"
        )
        for finding in by_code.get("WAS103", []) + by_code.get("WAS104", []):
            plan.skip(finding, reason)
    else:
        base = rewrite or []
        for finding in by_code.get("WAS103", []):
            build = _Builder(obj)
            holder_path = finding.field_path[len(obj.base_path) : -1]
            holder = dig(obj.data, *holder_path)
            if isinstance(holder, dict) and holder.get("disruptionMode") in DISRUPTION:
                build.disruption(holder_path, holder)
                parts.append((finding, build.ops + base))
            else:
                plan.skip(finding, "unexpected disruptionMode value")
        for finding in by_code.get("WAS104", []):
            build = _Builder(obj)
            reason = build.template_ref(obj.spec)
            if reason is None:
                parts.append((finding, build.ops + base))
            else:
                plan.skip(finding, reason)
    if not parts:
        return
    checks = [Check("object", obj.base_path)] if was_kind else _job_checks(obj)
    unit = Unit(obj.file.path, doc_position, parts, checks, _label(obj), base=obj.base_path)
    if decline_invalid(unit, obj.doc.data, plan):
        plan.units.append(unit)


def _rewrite(build: _Builder) -> str | None:
    """The WAS101 rewrite of one object into `build`; returns why not, or None."""
    obj = build.obj
    if obj.group != SCHEDULING or obj.kind not in TARGET_VERSION:
        return f"no rewrite known for {obj.api_version} {obj.kind}"
    spec = obj.spec
    if obj.kind == "Workload" and obj.version == "v1alpha1":
        if "podGroups" in spec:
            if "podGroupTemplates" in spec:
                return "spec has both podGroups and podGroupTemplates: keep one by hand"
            for item in as_list(spec["podGroups"]):
                if isinstance(item, dict) and "policy" in item and "schedulingPolicy" in item:
                    return "a podGroups item has both policy and schedulingPolicy: keep one by hand"
            build.add(RenameKey(build.full("spec", "podGroups"), "podGroupTemplates"))
            for position, item in enumerate(as_list(spec["podGroups"])):
                if isinstance(item, dict) and "policy" in item:
                    path = build.full("spec", "podGroups", position, "policy")
                    build.add(RenameKey(path, "schedulingPolicy"))
    elif obj.kind == "CompositePodGroup" or (obj.kind in ("Workload", "PodGroup") and obj.version == "v1alpha2"):
        for group in groups_of(obj):
            build.disruption(group.path, group.data)
            build.priority(group.path, group.data)
        if obj.kind != "Workload":
            build.template_ref(spec)  # a problem is left for WAS104 to report
    else:
        return f"no rewrite known for {obj.api_version} {obj.kind}"
    build.add(SetScalar(build.full("apiVersion"), TARGET_VERSION[obj.kind]))
    return None


def _job_checks(obj: KObject) -> list[Check]:
    holders = {group.path for group in groups_of(obj)}
    return [
        Check("fragment", obj.full_path(path), fragment="JobSchedulingConfiguration")
        for path in sorted(holders, key=str)
    ]


def _label(obj: KObject) -> str:
    return f"{obj.kind} {obj.namespace}/{obj.name or '<unnamed>'}"
