"""Membership: which gang a Pod (or the Pods of a pod template) joins, as each scheduler reads
it, and which controller owns an object. Lint rules, feasibility and the audit read these.

Each scheduler reads the Pod's own metadata and spec, so for a pod template the template's
`metadata` counts, never the owning object's (a Job's annotations are not copied to its Pods):

- WAS: `spec.schedulingGroup.podGroupName` (kubernetes/kubernetes
  pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go);
- KAI-Scheduler: the `pod-group-name` annotation and the `kai.scheduler/subgroup-name` label
  (kai-scheduler/KAI-Scheduler pkg/scheduler/api/pod_info/pod_info.go getPodGroupID: the Pod's
  annotation, when not empty; the pod-grouper writes both on the Pod, pkg/podgrouper/pod_controller.go);
- Volcano: the `scheduling.k8s.io/group-name` or `scheduling.volcano.sh/group-name` annotation
  (volcano-sh/volcano pkg/scheduler/api/job_info.go getJobID: the Pod's annotation, when not empty);
- coscheduling (scheduler-plugins): the `scheduling.x-k8s.io/pod-group` label;
- Kueue plain-Pod groups: the `kueue.x-k8s.io/pod-group-name` label (kubernetes-sigs/kueue
  pkg/util/pod/pod.go GetPodGroupName), sized by the `kueue.x-k8s.io/pod-group-total-count`
  annotation; Kueue manages an object whose own metadata has the `kueue.x-k8s.io/queue-name`
  label (`kueue_queue`).

An empty name joins no third-party gang (KAI and Volcano skip it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from waslint.core.model import Path
from waslint.objects.keys import (
    COSCHEDULING_LABEL,
    KAI_GROUP_ANNOTATION,
    KAI_SUBGROUP_LABEL,
    KUEUE_POD_GROUP_LABEL,
    KUEUE_POD_GROUP_TOTAL,
    KUEUE_QUEUE_LABEL,
    VOLCANO_GROUP_ANNOTATIONS,
    VOLCANO_TASK_SPEC,
)
from waslint.objects.kobject import as_list, as_map, as_str


class Located(NamedTuple):
    """A string read from an object, and the path of the field it was read from."""

    value: str
    path: Path


# --------------------------------------------------------------------------- owners


class OwnerRef(NamedTuple):
    """One `metadata.ownerReferences` entry (its string fields; a wrong type reads as absent)."""

    kind: str | None
    name: str | None
    api_version: str | None
    controller: bool

    @property
    def group(self) -> str:
        return (self.api_version or "").rpartition("/")[0]


def owner_refs(metadata: dict[str, Any]) -> list[OwnerRef]:
    """The mapping entries of `metadata.ownerReferences`, in order."""
    found = []
    for ref in as_list(metadata.get("ownerReferences")):
        if isinstance(ref, dict):
            kind, name, api_version = as_str(ref.get("kind")), as_str(ref.get("name")), as_str(ref.get("apiVersion"))
            found.append(OwnerRef(kind, name, api_version, ref.get("controller") is True))
    return found


def controller_ref(metadata: dict[str, Any]) -> OwnerRef | None:
    """The owner reference with `controller: true`, if any."""
    return next((ref for ref in owner_refs(metadata) if ref.controller), None)


def is_controlled(metadata: dict[str, Any]) -> bool:
    """Whether a controller owns the object (a dump of one of a controller's Pods, a Job a
    CronJob or JobSet made): its siblings and its spec come from that controller."""
    return controller_ref(metadata) is not None


# --------------------------------------------------------------------------- membership


class Membership(NamedTuple):
    """The gangs a Pod (or the Pods of a template) joins, one entry per scheduler; each with the
    path of the field that says so (relative to the object)."""

    pod_group: Located | None = None  # WAS spec.schedulingGroup.podGroupName
    scheduling_group: bool = False  # spec.schedulingGroup is set at all (it opts a Job out)
    kai: Located | None = None
    kai_subgroup: Located | None = None
    volcano: Located | None = None
    coscheduling: Located | None = None
    kueue: Located | None = None  # the Kueue plain-Pod group (label pod-group-name)
    kueue_total: Located | None = None  # its pod-group-total-count annotation, as written
    volcano_task: str | None = None  # the Volcano task (volcano.sh/task-spec), for minTaskMember

    def third_party(self) -> list[tuple[str, str]]:
        """(scheduler, group name) of the KAI, Volcano, coscheduling and Kueue gangs it joins."""
        found = []
        for scheduler, entry in (
            ("kai", self.kai),
            ("volcano", self.volcano),
            ("coscheduling", self.coscheduling),
            ("kueue", self.kueue),
        ):
            if entry is not None:
                found.append((scheduler, entry.value))
        return found


def membership(metadata: dict[str, Any], spec: dict[str, Any], spec_path: Path = ("spec",)) -> Membership:
    """The Membership of a pod: its `metadata` and its `spec`, the spec at `spec_path` in its
    object (the metadata beside it)."""
    meta: Path = (*spec_path[:-1], "metadata")
    group = spec.get("schedulingGroup")
    annotations = as_map(metadata.get("annotations"))
    labels = as_map(metadata.get("labels"))
    volcano = next((key for key in VOLCANO_GROUP_ANNOTATIONS if as_str(annotations.get(key))), None)
    return Membership(
        pod_group=_at(as_map(group).get("podGroupName"), (*spec_path, "schedulingGroup", "podGroupName")),
        scheduling_group=group is not None,
        kai=_at(annotations.get(KAI_GROUP_ANNOTATION) or None, (*meta, "annotations", KAI_GROUP_ANNOTATION)),
        kai_subgroup=_at(labels.get(KAI_SUBGROUP_LABEL), (*meta, "labels", KAI_SUBGROUP_LABEL)),
        volcano=_at(annotations.get(volcano), (*meta, "annotations", volcano)) if volcano is not None else None,
        coscheduling=_at(labels.get(COSCHEDULING_LABEL) or None, (*meta, "labels", COSCHEDULING_LABEL)),
        kueue=_at(labels.get(KUEUE_POD_GROUP_LABEL) or None, (*meta, "labels", KUEUE_POD_GROUP_LABEL)),
        kueue_total=_at(annotations.get(KUEUE_POD_GROUP_TOTAL), (*meta, "annotations", KUEUE_POD_GROUP_TOTAL)),
        volcano_task=as_str(annotations.get(VOLCANO_TASK_SPEC)) or as_str(labels.get(VOLCANO_TASK_SPEC)) or None,
    )


def kueue_queue(metadata: dict[str, Any], path: Path = ("metadata",)) -> Located | None:
    """The Kueue LocalQueue an object is submitted to (its own `kueue.x-k8s.io/queue-name` label),
    with its path; None when the object is not Kueue-managed."""
    value = as_str(as_map(metadata.get("labels")).get(KUEUE_QUEUE_LABEL))
    return Located(value, (*path, "labels", KUEUE_QUEUE_LABEL)) if value else None


def _at(value: Any, path: Path) -> Located | None:
    """A string value with its path; None for anything else."""
    return Located(value, path) if isinstance(value, str) else None
