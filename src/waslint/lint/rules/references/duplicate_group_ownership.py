"""WAS403 duplicate-group-ownership, in three parts: `scheduling-ignored`,
`group-template-annotation-ignored` (a Job whose own gang settings the Job controller drops) and
`group-defined-twice` (two definitions of one PodGroup)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Path, Severity
from waslint.core.records import dataclass
from waslint.knowledge.lifecycle import lifecycle_entry
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Part, Rule, register
from waslint.lint.rules.references.common import templated
from waslint.objects.keys import (
    COMPOSITE,
    JOB_KINDS,
    PODGROUP,
)
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.members import Membership, is_controlled
from waslint.objects.walks import pod_templates

GROUP_TEMPLATE_ANNOTATION = "scheduling.k8s.io/group-template-name"

SCHEDULING_IGNORED = Part(
    "scheduling-ignored",
    "a Job (or CronJob `jobTemplate`) with `spec.scheduling` whose pod template also sets `schedulingGroup`.",
)
ANNOTATION_IGNORED = Part(
    "group-template-annotation-ignored",
    "a Job with the `scheduling.k8s.io/group-template-name` annotation but no controller owner"
    " (`metadata.ownerReferences` entry with `controller: true`), or with a pod-template"
    " `schedulingGroup`.",
)
GROUP_DEFINED_TWICE = Part(
    "group-defined-twice",
    "two PodGroups (or CompositePodGroups) with the same namespace and name, both in apiVersions"
    " the target serves, with different specs: two objects that would both create the same"
    " PodGroup. Identical copies are left alone (applying both is idempotent), and so are copies"
    " in versions the target no longer serves (WAS101 reports those).",
)


def _where(obj: KObject) -> str:
    line = obj.doc.locate(obj.full_path(("metadata", "name")), key=True).line
    return f"{obj.file.path}:{line}"


@dataclass(frozen=True)
class _JobShape:
    spec_path: Path
    spec: dict[str, Any]
    metadata_path: Path
    metadata: dict[str, Any]
    owned_by_parent: bool  # a CronJob's Jobs always have the CronJob as controller owner


def _group_label(joined: Membership) -> str:
    name = joined.pod_group.value if joined.pod_group is not None else ""
    return f'PodGroup "{name}"' if name else "its own PodGroup"


def _job_shape(obj: KObject) -> _JobShape | None:
    if obj.kind == "Job":
        return _JobShape(("spec",), obj.spec, ("metadata",), obj.metadata, is_controlled(obj.metadata))
    template = as_map(obj.spec.get("jobTemplate"))
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return None
    base: Path = ("spec", "jobTemplate")
    metadata = as_map(template.get("metadata"))
    return _JobShape((*base, "spec"), spec, (*base, "metadata"), metadata, True)


@register
class DuplicateGroupOwnership(Rule):
    code = "WAS403"
    name = "duplicate-group-ownership"
    severity = Severity.WARNING
    summary = "Two owners claim one gang: a Job's own scheduling is silently ignored, or a PodGroup is defined twice."
    what = "Fires in three parts, each on its own:"
    parts = (SCHEDULING_IGNORED, ANNOTATION_IGNORED, GROUP_DEFINED_TWICE)
    why = (
        "The 1.37 Job controller treats a pod-template `schedulingGroup` as bring-your-own"
        " PodGroup and then manages nothing: `spec.scheduling` (gang, topology, claims) is dropped"
        " without an event, and so is the group-template annotation. The annotation only works on"
        " a Job that a parent controller owns (JobSet, a training operator): on a root Job the"
        " controller ignores it and builds its own Workload and PodGroup instead of the parent's"
        " template. Two different definitions of one PodGroup race: every field is immutable, so"
        " whichever is applied second fails (or a GitOps tool flips between them)."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      schedulingGroup:
        podGroupName: trainer-workers   # the controller now ignores spec.scheduling
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:                 # let the Job controller create the Workload and PodGroup
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    kinds = JOB_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        shape = _job_shape(obj)
        if shape is None:
            return
        templates = pod_templates(obj)
        joined = templates[0].membership if templates else Membership()
        yield from self._scheduling_ignored(obj, shape, joined)
        yield from self._annotation_ignored(obj, shape, joined)

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        yield from self._group_defined_twice(ctx)

    # -- scheduling-ignored

    def _scheduling_ignored(self, obj: KObject, shape: _JobShape, joined: Membership) -> Iterator[Hit]:
        if shape.spec.get("scheduling") is not None and joined.scheduling_group:
            yield self.hit(
                obj,
                (*shape.spec_path, "scheduling"),
                f"spec.scheduling is ignored: the pod template sets schedulingGroup (joins"
                f" {_group_label(joined)}), which opts the Job out of controller-managed groups, so the Job"
                " controller creates no Workload/PodGroup and drops this policy silently. Keep one:"
                " remove spec.scheduling, or remove template.spec.schedulingGroup",
            )

    # -- group-template-annotation-ignored

    def _annotation_ignored(self, obj: KObject, shape: _JobShape, joined: Membership) -> Iterator[Hit]:
        annotations = as_map(shape.metadata.get("annotations"))
        template_name = as_str(annotations.get(GROUP_TEMPLATE_ANNOTATION))
        if template_name is None:
            return
        reasons = []
        if not shape.owned_by_parent:
            reasons.append(
                "the Job has no controller owner (no metadata.ownerReferences entry with"
                " controller: true), so it is a root Job and the controller builds its own Workload"
                " and PodGroup instead"
            )
        if joined.scheduling_group:
            reasons.append(
                f"the pod template sets schedulingGroup ({_group_label(joined)}), which opts the Job out"
                " of controller-managed groups"
            )
        if reasons:
            yield self.hit(
                obj,
                (*shape.metadata_path, "annotations", GROUP_TEMPLATE_ANNOTATION),
                f'annotation {GROUP_TEMPLATE_ANNOTATION}: "{template_name}" is ignored: '
                + "; and ".join(reasons)
                + ". The annotation is for Jobs a parent controller (JobSet, an operator)"
                " creates from a template of the parent's Workload: remove it, or let the"
                " parent own the Job",
            )

    # -- group-defined-twice

    def _group_defined_twice(self, ctx: Context) -> Iterator[Hit]:
        for kind in (PODGROUP, COMPOSITE):
            groups: dict[tuple[str, str], list[KObject]] = defaultdict(list)
            for obj in ctx.index.of_kind(*kind):
                name = as_str(obj.metadata.get("name"))  # generateName never collides
                if name is None or templated(name):
                    continue
                entry = lifecycle_entry(obj.group, obj.version, obj.kind)
                if entry is None or not entry.served_in(ctx.target):
                    continue
                groups[(obj.namespace, name)].append(obj)
            for (namespace, name), same in groups.items():
                yield from self._duplicates(namespace, name, same)

    def _duplicates(self, namespace: str, name: str, same: list[KObject]) -> Iterator[Hit]:
        first = same[0]
        for other in same[1:]:
            differing = _differing_fields(first.data.get("spec"), other.data.get("spec"))
            if not differing:
                continue
            shown = ", ".join(differing[:4]) + (" ..." if len(differing) > 4 else "")
            yield self.hit(
                other,
                ("metadata", "name"),
                f"{other.kind} {namespace}/{name} is also defined at {_where(first)} with a"
                f" different spec ({shown}): both would create the same {other.kind}, its spec is"
                " immutable, so whichever is applied second fails. Keep one definition, or rename"
                " one of them",
            )


def _differing_fields(left: Any, right: Any, path: str = "spec") -> list[str]:
    if isinstance(left, dict) and isinstance(right, dict):
        found: list[str] = []
        for key in sorted(set(left) | set(right), key=str):
            found.extend(_differing_fields(left.get(key), right.get(key), f"{path}.{key}"))
        return found
    return [] if left == right else [path]
