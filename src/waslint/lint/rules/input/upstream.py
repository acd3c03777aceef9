"""Upstream validation of an object, the one detector of what the API server rejects, and which
rule words each of its errors.

`upstream_issues` runs the generated `+k8s:` markers (knowledge/validation.py) and the hand-written
checks (knowledge/imperative.py) once per object and target. Each error has one owner (`owner_of`):
WAS003 by default, or the rule whose domain it is, which turns it into a finding with its own
message, fix hint and location (`owned_issues`); no rule detects such an error again on its own,
so a rejected field gets one finding (tests/test_issue_coverage.py). WAS002 keeps a required field
whose key is missing altogether (the JSON schema says so already)."""

from __future__ import annotations

import dataclasses
from typing import Any

from waslint.core.model import Path
from waslint.core.records import dataclass
from waslint.knowledge import imperative, validation
from waslint.knowledge.releases import supported
from waslint.knowledge.validation import ReleaseName, ValidationIssue
from waslint.objects.groups import MIN_COUNT, MIN_GROUP_COUNT, Group, groups_of
from waslint.objects.keys import JOB_KINDS, WAS_GROUP_KINDS
from waslint.objects.kobject import KObject
from waslint.objects.walks import POD_TEMPLATE_KINDS, job_spec, pod_templates

GENERIC = "WAS003"
TEMPLATE_LISTS = frozenset({"podGroupTemplates", "compositePodGroupTemplates", "podGroups"})


@dataclass(frozen=True)
class Route:
    """Upstream errors of these origins, at a field of one of these names (list indexes skipped;
    empty: any field), are worded by `code`."""

    code: str
    origins: frozenset[str]
    fields: frozenset[str] = frozenset()


def _route(code: str, origins: set[str], fields: set[str] | frozenset[str] = frozenset()) -> Route:
    return Route(code, frozenset(origins), frozenset(fields))


#: Which rule words which upstream error; the rest are WAS003's.
ROUTES = (
    _route("WAS602", {"union"}, {"schedulingPolicy", "policy", "spec"}),
    _route("WAS602", {"required"}, {"podGroups"}),  # v1alpha1: the 1.35 line's own "no templates"
    _route("WAS602", {"maxItems", "listType=map"}, TEMPLATE_LISTS),
    _route("WAS602", {"uniqueTemplateNames", "uniquePodGroupNames", "treeDepth", "compositeHasChild"}),
    _route("WAS601", {"maxItems"}, {"topology"}),
    _route("WAS601", {"format=k8s-label-key"}, {"key"}),
    _route("WAS203", {"union", "maxItems"}, {"resourceClaims"}),
    _route("WAS306", {"required", "minimum"}, {MIN_COUNT, MIN_GROUP_COUNT}),
    _route("WAS405", {"sharedPriority"}),
    _route("WAS605", {"disruptionModeNeedsGang"}),
)


def field_name(issue: ValidationIssue) -> str:
    """The last field name of the issue's path (list indexes skipped)."""
    names = [part for part in issue.path if isinstance(part, str)]
    return names[-1] if names else ""


def owner_of(issue: ValidationIssue) -> str:
    """The code of the rule that reports this upstream error."""
    name = field_name(issue)
    for route in ROUTES:
        if issue.origin in route.origins and (not route.fields or name in route.fields):
            return route.code
    return GENERIC


def left_to_another_rule(issue: ValidationIssue, data: Any, schema_covers: bool) -> bool:
    """Whether WAS003 leaves this error to another rule: its owner, or the JSON schema (WAS002)
    for a required field whose key is missing altogether."""
    if owner_of(issue) != GENERIC:
        return True
    if issue.origin == "required" and schema_covers:
        parent = _dig(data, issue.path[:-1])
        return isinstance(parent, dict) and issue.path[-1] not in parent
    return False


def owned_issues(obj: KObject, target: ReleaseName, code: str) -> list[ValidationIssue]:
    """The upstream errors of ``obj`` that rule ``code`` words, in upstream's order. An apiVersion
    the target does not serve (WAS101's finding) is judged by the newest release that serves it,
    so its owner still says what that release rejects (WAS003 keeps to the target)."""
    release = _judging_release(obj, target)
    return [issue for issue, _ in upstream_issues(obj, release) if owner_of(issue) == code]


def _judging_release(obj: KObject, target: ReleaseName) -> ReleaseName:
    if (obj.group, obj.kind) in WAS_GROUP_KINDS:
        api_version, kind = obj.api_version, obj.kind
    elif (obj.group, obj.kind) in JOB_KINDS:
        api_version, kind = "batch/v1", "Job"
    else:
        return target
    if validation.has_rules(target, api_version, kind):
        return target
    serving = [release for release in supported() if validation.has_rules(release, api_version, kind)]
    return serving[-1] if serving else target


def group_at(obj: KObject, path: Path) -> Group | None:
    """The group (template, spec, Job spec.scheduling) whose part of the object holds ``path``."""
    found = [group for group in groups_of(obj) if tuple(path[: len(group.path)]) == tuple(group.path)]
    return max(found, key=lambda group: len(group.path), default=None)


def value_at(data: Any, path: Path) -> Any:
    """The value at ``path`` in ``data`` (None when absent)."""
    return _dig(data, path)


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
            moved.append(dataclasses.replace(issue, path=path))
    return moved


def upstream_issues(obj: KObject, target: ReleaseName) -> list[tuple[ValidationIssue, bool]]:
    """Every upstream validation error of ``obj`` for ``target``, each with whether WAS002's JSON
    schema covers the part it sits in; computed once per object and target. Gates are assumed on
    (WAS702 reports the ones known off)."""
    key = f"upstream-issues:{target}"
    memo = obj.memo
    if key not in memo:
        memo[key] = _upstream_issues(obj, target)
    found: list[tuple[ValidationIssue, bool]] = memo[key]
    return found


def _upstream_issues(obj: KObject, target: ReleaseName) -> list[tuple[ValidationIssue, bool]]:
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
