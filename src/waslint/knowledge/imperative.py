"""Upstream's hand-written validation of the WAS kinds: the checks the ``+k8s:`` markers do not
express (those are in :mod:`waslint.knowledge.validation`).

Read from ``kubernetes/kubernetes`` (1.37 era):

* ``pkg/apis/scheduling/validation/validation.go``: object names are DNS subdomains
  (``ValidateObjectMeta`` with ``NameIsDNSSubdomain`` for Workload and CompositePodGroup,
  ``ValidatePodGroupName`` for PodGroup) and, the three kinds being namespaced
  (``requiresNamespace=true``), a namespace given in the manifest is a DNS label
  (``ValidateNamespaceName``; an absent one is filled in by the client from its context);
  ``ValidateWorkloadSpec``: template names unique across
  the whole template tree (``Duplicate`` at the later ``name``), a composite chain no deeper than
  ``WorkloadMaxTreeDepth`` (``Invalid`` at the top-level composite template), every composite
  template has a child, and all templates share one ``priorityClassName`` / ``priority``
  (``Invalid`` at ``spec``);
* the 1.35 line of the same file for ``v1alpha1`` Workloads, which have no ``+k8s:`` markers:
  ``validatePodGroups`` (``podGroups`` Required when empty, at most ``WorkloadMaxPodGroups`` = 8),
  ``validatePodGroup`` (``name`` Required, else a DNS label; a repeated name is ``Duplicate`` at
  the group; the ``basic``/``gang`` union; ``gang.minCount`` Required at 0, Invalid below) and
  ``validateControllerRef`` (``apiGroup`` a DNS subdomain when set, ``kind`` and ``name``
  Required, else path-segment names);
* Pod ``spec.schedulingGroup`` (``k8s.io/api/core/v1`` ``PodSchedulingGroup``, a union whose only
  member ``podGroupName`` "must be a DNS subdomain");
* Job ``spec.scheduling``: a basic policy (or none, which the controller reads as basic) with
  ``disruptionMode: {all: {}}`` is rejected.

The functions take plain data and return :class:`ValidationIssue` lists with upstream field paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from waslint.core.model import Path
from waslint.knowledge.lifecycle import current_line
from waslint.knowledge.validation import ValidationIssue, format_problem

__all__ = ["job_scheduling_issues", "object_issues", "pod_spec_issues", "update_issues"]

WORKLOAD_MAX_TREE_DEPTH = 4  # scheduling.WorkloadMaxTemplateDepth / v1beta1.WorkloadMaxTreeDepth
WORKLOAD_MAX_POD_GROUPS = 8  # v1alpha1.WorkloadMaxPodGroups (the 1.35 line)
_LEGACY_VERSION = "v1alpha1"
_NAMED_KINDS = frozenset({"Workload", "PodGroup", "CompositePodGroup"})


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[dict[str, Any]]:
    return [item if isinstance(item, dict) else {} for item in value] if isinstance(value, list) else []


def object_issues(api_version: str, kind: str, data: Mapping[str, Any]) -> list[ValidationIssue]:
    """Name and Workload-tree checks of a scheduling.k8s.io object (whole-object plain data)."""
    group, _, version = api_version.rpartition("/")
    if group != "scheduling.k8s.io" or kind not in _NAMED_KINDS:
        return []
    metadata = _map(data.get("metadata"))
    issues = _name_issues(metadata) + _namespace_issues(metadata)
    spec = _map(data.get("spec"))
    if kind == "Workload" and version == _LEGACY_VERSION:
        issues.extend(legacy_workload_spec_issues(spec))
    if kind == "Workload" and current_line(group, version, kind):
        issues.extend(_unique_names(spec))
        issues.extend(_tree_depth(spec))
        issues.extend(_childless(spec.get("compositePodGroupTemplates"), ("spec", "compositePodGroupTemplates")))
        issues.extend(_shared_priority(spec))
    return issues


def _name_issues(metadata: dict[str, Any]) -> list[ValidationIssue]:
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        # generateName objects (and templated manifests) get their name later; nothing to judge
        return []
    problem = format_problem("k8s-long-name", name)
    if problem is None:
        return []
    return [ValidationIssue(("metadata", "name"), "Invalid", "objectName", problem, name)]


def _namespace_issues(metadata: dict[str, Any]) -> list[ValidationIssue]:
    namespace = metadata.get("namespace")
    if not isinstance(namespace, str) or not namespace:
        return []  # the client fills in its context's namespace
    problem = format_problem("k8s-short-name", namespace)
    if problem is None:
        return []
    return [ValidationIssue(("metadata", "namespace"), "Invalid", "namespaceName", problem, namespace)]


def legacy_workload_spec_issues(spec: dict[str, Any]) -> list[ValidationIssue]:
    """``validateWorkloadSpec`` of the 1.35 line (``v1alpha1``): controllerRef and podGroups."""
    issues: list[ValidationIssue] = []
    ref = spec.get("controllerRef")
    if isinstance(ref, dict):
        issues.extend(controller_ref_issues(ref, ("spec", "controllerRef")))
    path: Path = ("spec", "podGroups")
    groups = spec.get("podGroups")
    if groups is None or groups == []:
        issues.append(ValidationIssue(path, "Required", "required", "must have at least one item"))
    elif isinstance(groups, list) and len(groups) > WORKLOAD_MAX_POD_GROUPS:
        issues.append(
            ValidationIssue(
                path,
                "TooMany",
                "maxItems",
                f"must have at most {WORKLOAD_MAX_POD_GROUPS} items",
                len(groups),
                bound=WORKLOAD_MAX_POD_GROUPS,
            )
        )
    elif isinstance(groups, list):
        seen: set[Any] = set()
        for index, group in enumerate(_items(groups)):
            issues.extend(_legacy_pod_group(group, (*path, index), seen))
    return issues


def update_issues(api_version: str, kind: str, new: Mapping[str, Any], old: Mapping[str, Any]) -> list[ValidationIssue]:
    """Hand-written update checks the markers do not carry: ``validateWorkloadSpecUpdate`` of the
    1.35 line (``v1alpha1``): a set ``controllerRef`` is immutable, one set where there was none
    is only validated; ``podGroups`` is immutable as a whole and keeps its size limits."""
    group, _, version = api_version.rpartition("/")
    if group != "scheduling.k8s.io" or kind != "Workload" or version != _LEGACY_VERSION:
        return []
    spec, old_spec = _map(new.get("spec")), _map(old.get("spec"))
    issues: list[ValidationIssue] = []
    ref, old_ref = spec.get("controllerRef"), old_spec.get("controllerRef")
    if old_ref is not None and ref != old_ref:
        issues.append(ValidationIssue(("spec", "controllerRef"), "Invalid", "immutable", "field is immutable", ref))
    elif old_ref is None and isinstance(ref, dict):
        issues.extend(controller_ref_issues(ref, ("spec", "controllerRef")))
    if spec.get("podGroups") != old_spec.get("podGroups"):
        issues.append(ValidationIssue(("spec", "podGroups"), "Invalid", "immutable", "field is immutable", None))
    issues.extend(
        i
        for i in legacy_workload_spec_issues({"podGroups": spec.get("podGroups")})
        if i.error != "Invalid" and i.path == ("spec", "podGroups")
    )
    return issues


def controller_ref_issues(ref: dict[str, Any], path: Path) -> list[ValidationIssue]:
    """``validateControllerRef`` (1.35 line): a TypedLocalObjectReference of the Workload."""
    issues: list[ValidationIssue] = []
    group = ref.get("apiGroup")
    if isinstance(group, str) and group:
        problem = format_problem("k8s-long-name", group)
        if problem is not None:
            issues.append(ValidationIssue((*path, "apiGroup"), "Invalid", "format=k8s-long-name", problem, group))
    for name in ("kind", "name"):
        value = ref.get(name)
        if value is None or value == "":
            issues.append(ValidationIssue((*path, name), "Required", "required"))
        elif isinstance(value, str):
            problem = format_problem("k8s-path-segment-name", value)
            if problem is not None:
                issues.append(ValidationIssue((*path, name), "Invalid", "format=k8s-path-segment-name", problem, value))
    return issues


def _legacy_pod_group(group: dict[str, Any], path: Path, seen: set[Any]) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    name = group.get("name")
    if name is None or name == "":
        issues.append(ValidationIssue((*path, "name"), "Required", "required"))
    elif isinstance(name, str):
        problem = format_problem("k8s-short-name", name)
        if problem is not None:
            issues.append(ValidationIssue((*path, "name"), "Invalid", "format=k8s-short-name", problem, name))
    key = name if isinstance(name, (str, int)) else repr(name)
    if key in seen:
        issues.append(ValidationIssue(path, "Duplicate", "uniquePodGroupNames", value=name))
    seen.add(key)
    policy = group.get("policy")
    issues.extend(_legacy_policy(policy if isinstance(policy, dict) else {}, (*path, "policy")))
    return issues


def _legacy_policy(policy: dict[str, Any], path: Path) -> list[ValidationIssue]:
    chosen = [name for name in ("basic", "gang") if policy.get(name) is not None]
    if not chosen:
        return [ValidationIssue(path, "Invalid", "union", "must specify one of: `basic`, `gang`", "")]
    if len(chosen) > 1:
        return [
            ValidationIssue(
                path,
                "Invalid",
                "union",
                "exactly one of `basic`, `gang` is required, but multiple fields are set",
                "{`basic`, `gang`}",
            )
        ]
    gang = policy.get("gang")
    if not isinstance(gang, dict):
        return []
    count = gang.get("minCount")
    here = (*path, "gang", "minCount")
    if count is None or count == 0:
        return [ValidationIssue(here, "Required", "required")]
    if isinstance(count, int) and not isinstance(count, bool) and count < 0:
        return [ValidationIssue(here, "Invalid", "minimum", "must be greater than or equal to 1", count)]
    return []


def _name(template: dict[str, Any]) -> str | None:
    """A template's name when it is a string (anything else is the JSON schema's finding)."""
    name = template.get("name")
    return name if isinstance(name, str) else None


def _unique_names(spec: dict[str, Any]) -> list[ValidationIssue]:
    names = {_name(t) for t in _items(spec.get("podGroupTemplates"))} - {None}
    issues: list[ValidationIssue] = []
    _composite_list(("spec",), _items(spec.get("compositePodGroupTemplates")), names, issues)
    return issues


def _composite_list(path: Path, templates: list[dict[str, Any]], names: set[Any], out: list[ValidationIssue]) -> None:
    _duplicates(path, "compositePodGroupTemplates", templates, names, out)
    for index, template in enumerate(templates):
        _composite_children(template, (*path, "compositePodGroupTemplates", index), names, out)


def _composite_children(template: dict[str, Any], path: Path, names: set[Any], out: list[ValidationIssue]) -> None:
    _duplicates(path, "podGroupTemplates", _items(template.get("podGroupTemplates")), names, out)
    _composite_list(path, _items(template.get("compositePodGroupTemplates")), names, out)


def _duplicates(
    path: Path, list_name: str, templates: list[dict[str, Any]], names: set[Any], out: list[ValidationIssue]
) -> None:
    """A Duplicate issue for each template of the list whose name the tree already has (`names`,
    which the list's names then join)."""
    listed: set[Any] = set()
    for index, template in enumerate(templates):
        name = template.get("name")
        if name in names:
            out.append(
                ValidationIssue((*path, list_name, index, "name"), "Duplicate", "uniqueTemplateNames", value=name)
            )
        listed.add(name)
    names |= listed


def _too_deep(template: dict[str, Any], depth: int) -> bool:
    if depth == WORKLOAD_MAX_TREE_DEPTH:
        return True
    return any(_too_deep(child, depth + 1) for child in _items(template.get("compositePodGroupTemplates")))


def _tree_depth(spec: dict[str, Any]) -> list[ValidationIssue]:
    issues = []
    for index, template in enumerate(_items(spec.get("compositePodGroupTemplates"))):
        if _too_deep(template, 1):
            issues.append(
                ValidationIssue(
                    ("spec", "compositePodGroupTemplates", index),
                    "Invalid",
                    "treeDepth",
                    f"maximum template hierarchy depth is {WORKLOAD_MAX_TREE_DEPTH}",
                    template.get("name"),
                )
            )
    return issues


def _childless(templates: Any, path: Path) -> list[ValidationIssue]:
    issues = []
    for index, template in enumerate(_items(templates)):
        here = (*path, index)
        if not _items(template.get("podGroupTemplates")) and not _items(template.get("compositePodGroupTemplates")):
            issues.append(
                ValidationIssue(
                    here,
                    "Invalid",
                    "compositeHasChild",
                    "must have at least one child PodGroupTemplate or CompositePodGroupTemplate",
                    template.get("name"),
                )
            )
        issues.extend(_childless(template.get("compositePodGroupTemplates"), (*here, "compositePodGroupTemplates")))
    return issues


def _priorities(templates: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    found = []
    for template in templates:
        found.append((template.get("priorityClassName") or "", template.get("priority")))
        found.extend(_priorities(_items(template.get("compositePodGroupTemplates"))))
        found.extend(_priorities(_items(template.get("podGroupTemplates"))))
    return found


def _shared_priority(spec: dict[str, Any]) -> list[ValidationIssue]:
    flat = [(t.get("priorityClassName") or "", t.get("priority")) for t in _items(spec.get("podGroupTemplates"))]
    if len(set(map(repr, flat))) > 1:
        return [
            ValidationIssue(("spec",), "Invalid", "sharedPriority", "detected multiple priority configurations", None)
        ]
    tree = flat[:1] + _priorities(_items(spec.get("compositePodGroupTemplates")))
    if len(set(map(repr, tree))) > 1:
        detail = "all priority and priorityClassName values must be identical, detected multiple values"
        return [ValidationIssue(("spec",), "Invalid", "sharedPriority", detail, None)]
    return []


def pod_spec_issues(spec: Mapping[str, Any], path: Path) -> list[ValidationIssue]:
    """``schedulingGroup`` of one pod spec (a Pod's ``spec`` or a template's ``spec`` at ``path``)."""
    group = spec.get("schedulingGroup")
    if not isinstance(group, dict):
        return []
    here = (*path, "schedulingGroup")
    name = group.get("podGroupName")
    if name is None or name == "":
        return [ValidationIssue(here, "Invalid", "union", "must specify one of: `podGroupName`", "")]
    if isinstance(name, str):
        problem = format_problem("k8s-long-name", name)
        if problem is not None:
            return [ValidationIssue((*here, "podGroupName"), "Invalid", "format=k8s-long-name", problem, name)]
    return []


def job_scheduling_issues(scheduling: Mapping[str, Any], path: Path) -> list[ValidationIssue]:
    """A Job's ``spec.scheduling`` (at ``path``): disruptionMode all needs a gang policy."""
    mode = _map(scheduling.get("disruptionMode"))
    if mode.get("all") is None:
        return []
    policy = scheduling.get("schedulingPolicy")
    if isinstance(policy, dict) and policy.get("gang") is not None:
        return []
    return [
        ValidationIssue(
            (*path, "disruptionMode"),
            "Invalid",
            "disruptionModeNeedsGang",
            "disruption mode `all` requires the gang scheduling policy",
            {"all": {}},
        )
    ]
