"""The upstream validation errors of an object for WAS003, and which of them a more specific rule reports."""

from __future__ import annotations

from typing import Any

from waslint.core.model import Path
from waslint.knowledge import imperative, validation
from waslint.knowledge.validation import ReleaseName, ValidationIssue
from waslint.objects.groups import MIN_COUNT, MIN_GROUP_COUNT
from waslint.objects.keys import JOB_KINDS, WAS_GROUP_KINDS
from waslint.objects.kobject import KObject
from waslint.objects.walks import POD_TEMPLATE_KINDS, job_spec, pod_templates

#: Upstream errors that a more specific rule already reports at the same field, with advice:
#: (origin of the issue, last name in its path) -> that rule. WAS003 leaves them to it.
EXPLAINED_BY: dict[tuple[str, str], str] = {
    ("union", "schedulingPolicy"): "WAS602",
    ("union", "policy"): "WAS602",
    ("union", "spec"): "WAS602",
    ("maxItems", "podGroupTemplates"): "WAS602",
    ("maxItems", "compositePodGroupTemplates"): "WAS602",
    ("maxItems", "podGroups"): "WAS602",
    ("listType=map", "podGroupTemplates"): "WAS602",
    ("listType=map", "compositePodGroupTemplates"): "WAS602",
    ("uniqueTemplateNames", "name"): "WAS602",
    ("treeDepth", "compositePodGroupTemplates"): "WAS602",
    ("compositeHasChild", "compositePodGroupTemplates"): "WAS602",
    ("compositeHasChild", "podGroupTemplates"): "WAS602",
    ("maxItems", "topology"): "WAS601",
    ("format=k8s-label-key", "key"): "WAS601",
    ("union", "resourceClaims"): "WAS203",
    ("maxItems", "resourceClaims"): "WAS203",
    ("required", MIN_COUNT): "WAS306",
    ("minimum", MIN_COUNT): "WAS306",
    ("required", MIN_GROUP_COUNT): "WAS306",
    ("minimum", MIN_GROUP_COUNT): "WAS306",
    ("sharedPriority", "spec"): "WAS405",
    ("disruptionModeNeedsGang", "disruptionMode"): "WAS605",
}


def _owner_key(issue: ValidationIssue) -> tuple[str, str]:
    """The last field name of the issue's path (list indexes skipped): what EXPLAINED_BY keys on."""
    names = [part for part in issue.path if isinstance(part, str)]
    return issue.origin, names[-1] if names else ""


def explained_elsewhere(issue: ValidationIssue, data: Any, schema_covers: bool) -> bool:
    """Whether another rule reports this upstream error: a specific WAS rule, or the JSON schema
    (WAS002) for a required field whose key is missing altogether."""
    if _owner_key(issue) in EXPLAINED_BY:
        return True
    if issue.origin == "required" and schema_covers:
        parent = _dig(data, issue.path[:-1])
        return isinstance(parent, dict) and issue.path[-1] not in parent
    return False


def _dig(data: Any, path: Path) -> Any:
    for part in path:
        if isinstance(part, int) and isinstance(data, list) and 0 <= part < len(data):
            data = data[part]
        elif isinstance(part, str) and isinstance(data, dict):
            data = data.get(part)
        else:
            return None
    return data


def _rebased(issues: list[ValidationIssue], old: Path, new: Path) -> list[ValidationIssue]:
    """Issues found on a wrapper document ({"spec": ...}) moved to where that part sits in the object."""
    moved = []
    for issue in issues:
        if issue.path[: len(old)] == old:
            path = (*new, *issue.path[len(old) :])
            moved.append(
                ValidationIssue(path, issue.error, issue.origin, issue.detail, issue.value, issue.gate, issue.level)
            )
    return moved


def upstream_issues(obj: KObject, target: ReleaseName) -> list[tuple[ValidationIssue, bool]]:
    """Every upstream validation error of ``obj`` for ``target``, each with whether WAS002's JSON
    schema covers the part it sits in. Gates are assumed on (WAS702 reports the ones known off)."""
    found: list[tuple[ValidationIssue, bool]] = []
    key = (obj.group, obj.kind)
    if key in WAS_GROUP_KINDS:
        if not validation.has_rules(target, obj.api_version, obj.kind):
            return found  # a version the target does not serve: WAS101
        issues = validation.validate(target, obj.api_version, obj.kind, obj.data)
        issues += imperative.object_issues(obj.api_version, obj.kind, obj.data)
        found.extend((issue, True) for issue in issues)
        return found
    if key in JOB_KINDS:
        job = job_spec(obj)
        if job is not None:
            without_template = {k: v for k, v in job[1].items() if k != "template"}
            issues = validation.validate(target, "batch/v1", "Job", {"spec": without_template})
            scheduling = job[1].get("scheduling")
            if isinstance(scheduling, dict):
                issues += imperative.job_scheduling_issues(scheduling, ("spec", "scheduling"))
            found.extend((issue, "scheduling" in issue.path) for issue in _rebased(issues, ("spec",), job[0]))
    if key in POD_TEMPLATE_KINDS:
        for template in pod_templates(obj):
            issues = validation.validate(target, "v1", "Pod", {"spec": template.spec})
            issues += imperative.pod_spec_issues(template.spec, ("spec",))
            found.extend(
                (issue, "schedulingGroup" in issue.path) for issue in _rebased(issues, ("spec",), template.path)
            )
    return found
