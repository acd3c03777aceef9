"""What the WAS3xx rules share: member Pod counts, Job gangs, and the Workload template a group names."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from waslint.core.model import Path
from waslint.core.records import dataclass
from waslint.lint.context import Context
from waslint.objects.groups import Group, groups_of, object_group
from waslint.objects.keys import (
    WORKLOAD,
)
from waslint.objects.kobject import KObject
from waslint.objects.members import is_controlled
from waslint.objects.walks import (
    PodTemplate,
    job_spec,
    pod_count,
)


def template_pods(template: PodTemplate) -> int | None:
    """Pods of a template that exist at once; unknown (None) for a controller's object (a dump of
    one of its Pods: the siblings are not in the set)."""
    return None if is_controlled(template.owner.metadata) else pod_count(template)


def pods_text(count: int) -> str:
    return f"{count} Pod" if count == 1 else f"{count} Pods"


def describe(template: PodTemplate, pods: int | None) -> str:
    owner = template.owner
    where = f"{owner.kind} {owner.name or '<unnamed>'}"
    if template.role.startswith(("jobset:", "lws:")):
        where += f" [{template.role.split(':', 1)[1]}]"
    return f"{where}: {'?' if pods is None else pods}"


@dataclass(frozen=True)
class Members:
    """How many members a gang's templates count: known, unknown, and the parts that count."""

    known: int
    unknown: int
    parts: list[str]

    @property
    def listing(self) -> str:
        shown = ", ".join(self.parts[:4])
        return shown + (f", and {len(self.parts) - 4} more" if len(self.parts) > 4 else "")


def count_members(templates: Iterable[PodTemplate]) -> Members:
    known, unknown, parts = 0, 0, []
    for template in templates:
        pods = template_pods(template)
        parts.append(describe(template, pods))
        if pods is None:
            unknown += 1
        else:
            known += pods
    return Members(known, unknown, parts)


def job_gang(obj: KObject) -> tuple[Path, int, Path, dict[str, Any]] | None:
    """(minCount path, minCount, JobSpec path, JobSpec) for a Job/CronJob gang with a minCount."""
    job = job_spec(obj)
    group = object_group(obj)
    if job is None or group is None or group.policy.variant != "gang":
        return None
    minimum = group.policy.minimum
    if minimum.value is None:
        return None
    return minimum.path, minimum.value, job[0], job[1]


def job_prefix(job_path: Path) -> str:
    return ".".join(str(step) for step in job_path) + "."


def workload_template_of(obj: KObject, ctx: Context) -> tuple[KObject, Group] | None:
    """The Workload (same namespace) and template group a PodGroup/CompositePodGroup names, if known."""
    group = object_group(obj)
    ref = group.workload_ref if group is not None else None
    if ref is None or ref.workload is None or ref.template is None:
        return None
    workload = ctx.index.nearest(*WORKLOAD, obj.namespace, ref.workload, obj)
    if workload is None:
        return None
    for template in groups_of(workload):
        if template.name == ref.template:
            return workload, template
    return None
