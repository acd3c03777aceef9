"""Findings -> operations: the 1.35/1.36 -> 1.37 mapping of was-api.md §4, per rule.

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

from collections.abc import Iterable
from typing import Any

from waslint.fix.ops import DeleteKey, Hoist, Op, RenameKey, ReplaceValue, SetScalar
from waslint.fix.plan import Check, Plan, Unit
from waslint.kube import SCHEDULING, KObject, as_list, group_policy_holders
from waslint.model import Finding, Path
from waslint.schema import has_schema

TARGET_VERSION = {
    "Workload": f"{SCHEDULING}/v1beta1",
    "PodGroup": f"{SCHEDULING}/v1beta1",
    "CompositePodGroup": f"{SCHEDULING}/v1alpha3",
}
DISRUPTION: dict[str, dict[str, Any]] = {"Pod": {"single": {}}, "PodGroup": {"all": {}}}
SAFE_CODES = ("WAS101", "WAS102", "WAS103", "WAS104")
UNSAFE_CODES = ("WAS105",)
RELEASES = ("1.35", "1.36", "1.37")


def schema_release(api_version: str, kind: str) -> str | None:
    """The release whose schema describes this apiVersion/kind (for the original's issues)."""
    for release in RELEASES:
        if has_schema(release, api_version, kind):
            return release
    return None


class _Builder:
    """The operations of one object, deduplicated, with the paths the user must fix by hand."""

    def __init__(self, obj: KObject) -> None:
        self.obj = obj
        self.ops: dict[tuple[str, Path], Op] = {}
        self.allowed: list[Path] = []
        self.api_version = obj.api_version

    def add(self, op: Op) -> None:
        self.ops.setdefault((type(op).__name__, op.path), op)

    def full(self, *path: str | int) -> Path:
        return self.obj.full_path(tuple(path))

    def disruption(self, holder_path: Path, holder: dict[str, Any]) -> None:
        value = holder.get("disruptionMode")
        if not isinstance(value, str):
            return
        path = self.full(*holder_path, "disruptionMode")
        if value in DISRUPTION:
            self.add(ReplaceValue(path, DISRUPTION[value]))
        else:
            self.allowed.append(path)  # unknown value: WAS103 reports it, no fix invents one

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
            self.allowed.append(ref_path)
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


def plan_object(obj: KObject, doc_position: int, findings: list[Finding], plan: Plan) -> None:
    """One unit for every safe WAS101-104 fix on one object."""
    build = _Builder(obj)
    covered: list[Finding] = []
    by_code: dict[str, list[Finding]] = {}
    for finding in findings:
        by_code.setdefault(finding.code, []).append(finding)
    refused = False

    for finding in by_code.get("WAS101", []):
        reason = _rewrite(build)
        if reason is None:
            covered.append(finding)
        else:
            plan.skip(finding, reason)
            refused = True
    for finding in by_code.get("WAS102", []):
        if obj.kind in ("Workload", "PodGroup") and obj.version == "v1alpha3":
            build.add(SetScalar(build.full("apiVersion"), TARGET_VERSION[obj.kind]))
            build.api_version = TARGET_VERSION[obj.kind]
            covered.append(finding)
        else:
            plan.skip(finding, f"no rewrite known for {obj.api_version} {obj.kind}")

    was_kind = obj.group == SCHEDULING
    final_ok = not was_kind or has_schema("1.37", build.api_version, obj.kind)
    not_rewritten = (
        f"left as is: {obj.api_version} {obj.kind} is not rewritten to a 1.37 version"
        + (" (its WAS101 fix is not selected)" if not by_code.get("WAS101") else "")
    )
    for finding in by_code.get("WAS103", []):
        if refused or not final_ok:
            plan.skip(finding, not_rewritten)
            continue
        holder_path = finding.field_path[len(obj.base_path) : -1]
        holder = dig(obj.data, holder_path)
        if isinstance(holder, dict) and holder.get("disruptionMode") in DISRUPTION:
            build.disruption(holder_path, holder)
            covered.append(finding)
        else:
            plan.skip(finding, "unexpected disruptionMode value")
    for finding in by_code.get("WAS104", []):
        if refused or not final_ok:
            plan.skip(finding, not_rewritten)
            continue
        reason = build.template_ref(obj.spec)
        if reason is None:
            covered.append(finding)
        else:
            plan.skip(finding, reason)

    if not build.ops or not covered:
        return
    checks = [_object_check(obj, build)] if was_kind else _job_checks(obj, build)
    plan.units.append(
        Unit(
            file=obj.file.path,
            doc=doc_position,
            ops=list(build.ops.values()),
            findings=covered,
            checks=checks,
            label=_label(obj),
        )
    )


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
    elif obj.kind == "CompositePodGroup" or (
        obj.kind in ("Workload", "PodGroup") and obj.version == "v1alpha2"
    ):
        for holder_path, holder in group_policy_holders(obj):
            build.disruption(holder_path, holder)
            build.priority(holder_path, holder)
        if obj.kind != "Workload":
            build.template_ref(spec)  # a problem is left for WAS104 to report
    else:
        return f"no rewrite known for {obj.api_version} {obj.kind}"
    target = TARGET_VERSION[obj.kind]
    build.add(SetScalar(build.full("apiVersion"), target))
    build.api_version = target
    return None


def _object_check(obj: KObject, build: _Builder) -> Check:
    return Check(
        "object",
        obj.base_path,
        old_path=obj.base_path,
        old_release=schema_release(obj.api_version, obj.kind),
        allowed=tuple(build.allowed),
    )


def _job_checks(obj: KObject, build: _Builder) -> list[Check]:
    holders = {path for path, _ in group_policy_holders(obj)}
    return [
        Check(
            "fragment",
            obj.full_path(path),
            old_path=obj.full_path(path),
            fragment="JobSchedulingConfiguration",
            old_release="1.37",
            old_fragment="JobSchedulingConfiguration",
            allowed=tuple(build.allowed),
        )
        for path in sorted(holders, key=str)
    ]


def dig(value: Any, path: Iterable[str | int]) -> Any:
    for step in path:
        in_map = isinstance(value, dict) and step in value
        in_list = isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value)
        if not (in_map or in_list):
            return None
        value = value[step]
    return value


def _label(obj: KObject) -> str:
    return f"{obj.kind} {obj.namespace}/{obj.name or '<unnamed>'}"

