"""WAS303 mincount-exceeds-members."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.sizing.common import count_members, pods_text, workload_template_of
from waslint.objects.groups import groups_of, object_group
from waslint.objects.index import distinct_members
from waslint.objects.keys import (
    COMPOSITE,
    PODGROUP,
    SCHEDULING,
)
from waslint.objects.kobject import KObject, as_list, as_str
from waslint.objects.walks import (
    template_lists,
)


@register
class MinCountExceedsMembers(Rule):
    code = "WAS303"
    name = "mincount-exceeds-members"
    severity = Severity.ERROR
    summary = "A gang needs more Pods (or child groups) than its members in the set provide."
    what = (
        "PodGroup: adds up the Pods of its members in the set (Pods and pod templates whose"
        " `spec.schedulingGroup.podGroupName` names it, same namespace), counted as the Pods"
        " that can run at once: a Pod is 1, a Job its `parallelism` (default 1) capped by"
        " `completions`, a JobSet replicated job `replicas` x that, a LeaderWorkerSet its groups"
        " x `size`, a Deployment/ReplicaSet/StatefulSet its explicit `replicas`; fires when the"
        " sum is smaller"
        " than `gang.minCount`, provided at least one member is in the set. A member whose size"
        " cannot be known (a Deployment without `replicas`, which an autoscaler may own; a"
        " DaemonSet; any object with a controller `ownerReference`, such as a dump of one of a"
        " Job's Pods, whose siblings are not in the set) keeps the rule silent for that group:"
        " it could make up the difference. Copies of one object in several files count once."
        " Workload: fires when a"
        " composite template's `gang.minGroupCount` is greater than its number of child"
        " templates. CompositePodGroup: the same against the child templates of the Workload"
        " template its `workloadRef` names (when that Workload is in the set), or against the"
        " PodGroups/CompositePodGroups in the set whose `parentCompositePodGroupName` names it,"
        " whichever is more."
    )
    why = (
        "The scheduler admits the gang only when minCount member Pods (minGroupCount child"
        " groups) can be placed together. With fewer members than that, it waits forever, and"
        " the Pods that do exist hold their place in the queue without running."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 4
---
apiVersion: batch/v1
kind: Job
metadata:
  name: workers
spec:
  parallelism: 2
  template:
    spec:
      schedulingGroup:
        podGroupName: workers
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: workers
spec:
  parallelism: 4
  template:
    spec:
      schedulingGroup:
        podGroupName: workers
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    kinds = frozenset({(SCHEDULING, "PodGroup"), (SCHEDULING, "Workload"), (SCHEDULING, "CompositePodGroup")})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.kind == "PodGroup":
            yield from self._pod_group(obj, ctx)
        elif obj.kind == "Workload":
            yield from self._workload(obj)
        else:
            yield from self._composite(obj, ctx)

    def _pod_group(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        group = object_group(obj)
        if obj.name is None or group is None or group.policy.variant != "gang":
            return
        path, min_count = group.policy.minimum.path, group.policy.minimum.value
        templates = distinct_members(ctx.index.pod_group_members(obj.namespace, obj.name), obj)
        if min_count is None or not templates:
            return
        members = count_members(templates)
        if members.unknown or members.known >= min_count:
            return
        yield self.hit(
            obj,
            path,
            f"gang minCount {min_count} is greater than the {pods_text(members.known)} of the"
            f" PodGroup's members in the set ({members.listing}): the gang waits forever for"
            f" {pods_text(min_count - members.known)} that never come. Lower minCount to"
            f" {members.known} or add the missing members",
        )

    def _workload(self, obj: KObject) -> Iterator[Hit]:
        for group in groups_of(obj):
            template = group.template
            if template is None or not template.composite or group.policy.variant != "gang":
                continue
            path, wanted = group.policy.minimum.path, group.policy.minimum.value
            children = _child_templates(obj, template.data)
            if wanted is None or wanted <= len(children):
                continue
            name = as_str(template.data.get("name")) or "<unnamed>"
            yield self.hit(
                obj,
                path,
                f"composite template {name!r} has gang minGroupCount {wanted} but only"
                f" {len(children)} child template(s) ({', '.join(children) or 'none'}): the"
                f" composite group can never be admitted. Lower minGroupCount to"
                f" {max(len(children), 1)} or add child templates",
            )

    def _composite(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        group = object_group(obj)
        if obj.name is None or group is None or group.policy.variant != "gang":
            return
        path, wanted = group.policy.minimum.path, group.policy.minimum.value
        found = workload_template_of(obj, ctx)
        if wanted is None or found is None or not found[1].composite:
            return
        workload, template = found
        children = _child_templates(workload, template.data)
        objects = sorted(
            {
                f"{child.kind} {child.name or '<unnamed>'}"
                for kind in (PODGROUP, COMPOSITE)
                for child in ctx.index.of_kind(*kind)
                if child.namespace == obj.namespace and _parent(child) == obj.name
            }
        )
        if wanted <= max(len(children), len(objects)):
            return
        template_name = as_str(template.data.get("name")) or "<unnamed>"
        yield self.hit(
            obj,
            path,
            f"gang minGroupCount {wanted} but Workload {workload.namespace}/{workload.name}"
            f" template {template_name!r} has {len(children)} child template(s)"
            f" ({', '.join(children) or 'none'}) and the set holds {len(objects)} child group(s)"
            f" naming this CompositePodGroup as parent: it can never be admitted. Lower"
            f" minGroupCount to {max(len(children), len(objects), 1)} or add children",
        )


def _child_templates(workload: KObject, template: dict[str, Any]) -> list[str]:
    """The names of a composite template's children."""
    return [
        as_str(item.get("name")) or "<unnamed>"
        for key, _ in template_lists(workload)
        for item in as_list(template.get(key))
        if isinstance(item, dict)
    ]


def _parent(obj: KObject) -> str | None:
    group = object_group(obj)
    return group.parent.value if group is not None and group.parent is not None else None
