"""WAS002 schema-violation: WAS objects, Job spec.scheduling and the pod fields that name a group,
against the target release's JSON schemas."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.keys import JOB_KINDS, SCHEDULING
from waslint.objects.kobject import KObject, dig
from waslint.objects.walks import POD_TEMPLATE_KINDS, job_spec, pod_templates


@register
class SchemaViolation(Rule):
    code = "WAS002"
    name = "schema-violation"
    severity = Severity.ERROR
    summary = "A WAS object fails the JSON schema of its apiVersion/kind for the target release."
    what = (
        "Validates scheduling.k8s.io Workload, PodGroup and CompositePodGroup in every version the"
        " target release serves, Job `spec.scheduling` and Pod `spec.schedulingGroup` against the"
        " strict Kubernetes schemas of that release (generated from kubernetes-validate): wrong"
        " types, missing required fields, unknown fields. Points at the offending field. The legacy"
        " shapes that WAS103/WAS104/WAS105 explain are left to those rules."
    )
    why = (
        "The API server rejects the object, or (for fields of a disabled gate) drops the field"
        " silently; an unknown field in a GitOps repo is usually a field of another release."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: "4"     # a string
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 4
"""
    kinds = frozenset(
        {(SCHEDULING, "Workload"), (SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")} | POD_TEMPLATE_KINDS
    )

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        from waslint.knowledge import schema

        if obj.group == SCHEDULING:
            live = ctx.runtime.live_schemas.get((obj.api_version, obj.kind))  # a live audit read them
            if live is not None:
                issues, source = live(obj.data), " (the cluster's OpenAPI v3)"
            elif schema.has_schema(ctx.target, obj.api_version, obj.kind):
                issues, source = schema.validate_object(ctx.target, obj.api_version, obj.kind, obj.data), ""
            else:
                return
            for issue in issues:
                if not _explained_elsewhere(obj.data, issue.path, ctx) and not _worded_by_owner(obj, issue, ctx):
                    yield self.hit(obj, issue.path, f"{obj.api_version} {obj.kind}{source}: {issue.message}")
            return
        if (obj.group, obj.kind) in JOB_KINDS:
            yield from self._job_scheduling(obj, ctx)
        yield from self._pod_fields(obj, ctx)

    def _job_scheduling(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        from waslint.knowledge import schema

        job = job_spec(obj)
        value = job[1].get("scheduling") if job is not None else None
        if job is None or value is None:
            return
        path: Path = (*job[0], "scheduling")
        if not schema.has_fragment(ctx.target, "JobSchedulingConfiguration"):
            yield self.hit(
                obj,
                path,
                f"batch/v1 Job has no field spec.scheduling in Kubernetes {ctx.target} (added in 1.37, gate"
                " WorkloadWithJob); the API server drops or rejects it",
            )
            return
        for issue in schema.validate_fragment(ctx.target, "JobSchedulingConfiguration", value, path):
            if not _explained_elsewhere(obj.data, issue.path, ctx) and not _worded_by_owner(obj, issue, ctx):
                yield self.hit(obj, issue.path, f"Job spec.scheduling: {issue.message}")

    def _pod_fields(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        from waslint.knowledge import schema

        for template in pod_templates(obj):
            group = template.spec.get("schedulingGroup")
            if group is not None:
                path = (*template.path, "schedulingGroup")
                if schema.has_fragment(ctx.target, "PodSchedulingGroup"):
                    for issue in schema.validate_fragment(ctx.target, "PodSchedulingGroup", group, path):
                        yield self.hit(obj, issue.path, f"Pod spec.schedulingGroup: {issue.message}")
                else:
                    yield self.hit(
                        obj,
                        path,
                        f"Pod has no field spec.schedulingGroup in Kubernetes {ctx.target} (added in 1.36;"
                        " 1.35 uses spec.workloadRef)",
                    )
            reference = template.spec.get("workloadRef")
            if reference is not None and schema.has_fragment(ctx.target, "WorkloadReference"):
                path = (*template.path, "workloadRef")
                for issue in schema.validate_fragment(ctx.target, "WorkloadReference", reference, path):
                    yield self.hit(obj, issue.path, f"Pod spec.workloadRef: {issue.message}")


def _worded_by_owner(obj: KObject, issue: Any, ctx: Context) -> bool:
    """A missing required field that upstream validation also rejects and a more specific rule
    words (a gang without its count: WAS306): one finding, that rule's."""
    missing = getattr(issue, "missing", None)
    if missing is None:
        return False
    from waslint.lint.rules.input.upstream import GENERIC, owner_of, upstream_issues

    wanted = (*issue.path, missing)
    return any(
        tuple(found.path) == wanted and found.origin == "required" and owner_of(found) != GENERIC
        for found, _ in upstream_issues(obj, ctx.target)
    )


def _explained_elsewhere(data: Any, path: Path, ctx: Context) -> bool:
    """Schema issues at legacy shapes that a WAS1xx rule reports with a precise message at this
    target: WAS104 runs from 1.37 on (before, `podGroupTemplateRef` is the served shape and its
    own schema issues are WAS002's), WAS103 at every target for a string disruptionMode."""
    for position, step in enumerate(path):
        if step == "podGroupTemplateRef":
            return ctx.target_at_least("beta-api")
        if step == "disruptionMode" and isinstance(dig(data, *path[: position + 1]), str):
            return True
    return False
