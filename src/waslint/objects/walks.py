"""The walks every pipeline shares: pod templates of every workload kind waslint knows
(`pod_templates`), Pod counts (`pod_count`), Job scheduling, Workload template trees, containers,
DRA claim entries and KAI's batch-min-member. No rule or engine repeats these walks; the typed
readings built on them are `objects/pods.py`, `objects/members.py` and `objects/groups.py`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field
from typing import Any

from waslint.core.model import Path
from waslint.core.patterns import LazyPattern
from waslint.core.records import dataclass
from waslint.objects.keys import JOB_KINDS, JOBSET, KAI_MIN_MEMBER, LWS, VOLCANO_JOB
from waslint.objects.kobject import KObject, as_int, as_list, as_map, as_str, dig
from waslint.objects.members import Membership, membership, shared_path

# --------------------------------------------------------------------------- pod templates


@dataclass(frozen=True, slots=True)
class PodTemplate:
    """A pod spec inside an object: `path` is where the pod's `spec` mapping sits. Slotted: a
    big cluster's audit holds one per member Pod."""

    owner: KObject
    path: Path
    spec: dict[str, Any]
    metadata: dict[str, Any]
    role: str  # "pod", "template", "job", "jobset:<name>", "lws:worker", ...
    _membership: Membership | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def labels(self) -> dict[str, Any]:
        return as_map(self.metadata.get("labels"))

    @property
    def annotations(self) -> dict[str, Any]:
        return as_map(self.metadata.get("annotations"))

    @property
    def metadata_path(self) -> Path:
        """Where the pod's `metadata` sits in its object (beside its `spec`)."""
        return (*self.path[:-1], "metadata")

    @property
    def membership(self) -> Membership:
        """The gangs the template's Pods join (objects/members.py), read once."""
        found = self._membership
        if found is None:
            found = membership(self.metadata, self.spec, self.path)
            object.__setattr__(self, "_membership", found)
        return found


_TEMPLATE_KINDS = {
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("apps", "ReplicaSet"),
    ("", "ReplicationController"),
    ("", "PodTemplate"),
}


def pod_templates(obj: KObject) -> list[PodTemplate]:
    """Every pod template of a Pod, workload controller, Job, CronJob, JobSet, LWS or Volcano Job.
    Read once per object (KObject.memo): every caller gets the same list, which none changes."""
    memo = obj.memo
    found: list[PodTemplate] | None = memo.get("pod_templates")
    if found is None:
        found = memo["pod_templates"] = _pod_templates(obj)
    return found


def _pod_templates(obj: KObject) -> list[PodTemplate]:
    key = (obj.group, obj.kind)
    if key == ("", "Pod"):
        return _template(obj, (), obj.data, "pod")
    if key in _TEMPLATE_KINDS:
        template = obj.data if obj.kind == "PodTemplate" else obj.spec
        base: Path = () if obj.kind == "PodTemplate" else ("spec",)
        return _template(obj, (*base, "template"), as_map(template.get("template")), "template")
    if key in JOB_KINDS:
        job = job_spec(obj)
        return _job_templates(obj, *job) if job is not None else []
    if key == JOBSET:
        return _jobset_templates(obj)
    if key == LWS:
        return _lws_templates(obj)
    if key == VOLCANO_JOB:
        return _volcano_templates(obj)
    return []


def _template(obj: KObject, path: Path, template: dict[str, Any], role: str) -> list[PodTemplate]:
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return []
    return [PodTemplate(obj, shared_path((*path, "spec")), spec, as_map(template.get("metadata")), role)]


def job_spec(obj: KObject) -> tuple[Path, dict[str, Any]] | None:
    """(path, JobSpec) of a Job, or of a CronJob's jobTemplate; None for other kinds."""
    if (obj.group, obj.kind) == ("batch", "Job"):
        return ("spec",), obj.spec
    if (obj.group, obj.kind) == ("batch", "CronJob"):
        spec = dig(obj.spec, "jobTemplate", "spec")
        return (("spec", "jobTemplate", "spec"), spec) if isinstance(spec, dict) else None
    return None


def job_scheduling(obj: KObject) -> tuple[Path, dict[str, Any]] | None:
    """(path, mapping) of a Job's or CronJob jobTemplate's `spec.scheduling`, if it is a mapping."""
    job = job_spec(obj)
    if job is None:
        return None
    scheduling = job[1].get("scheduling")
    return ((*job[0], "scheduling"), scheduling) if isinstance(scheduling, dict) else None


def job_parallelism(job_spec: dict[str, Any]) -> int:
    parallelism = as_int(job_spec.get("parallelism"))
    return 1 if parallelism is None else parallelism


def _job_templates(obj: KObject, path: Path, job_spec: dict[str, Any]) -> list[PodTemplate]:
    template = as_map(job_spec.get("template"))
    return _template(obj, (*path, "template"), template, "job")


def _jobset_templates(obj: KObject) -> list[PodTemplate]:
    found: list[PodTemplate] = []
    for position, replicated in enumerate(as_list(obj.spec.get("replicatedJobs"))):
        replicated = as_map(replicated)
        job_spec = as_map(dig(replicated, "template", "spec"))
        path: Path = ("spec", "replicatedJobs", position, "template", "spec", "template")
        role = f"jobset:{replicated.get('name', position)}"
        found.extend(_template(obj, path, as_map(job_spec.get("template")), role))
    return found


def _lws_templates(obj: KObject) -> list[PodTemplate]:
    lws = as_map(obj.spec.get("leaderWorkerTemplate"))
    base: Path = ("spec", "leaderWorkerTemplate")
    found = _template(obj, (*base, "workerTemplate"), as_map(lws.get("workerTemplate")), "lws:worker")
    found += _template(obj, (*base, "leaderTemplate"), as_map(lws.get("leaderTemplate")), "lws:leader")
    return found


def _volcano_templates(obj: KObject) -> list[PodTemplate]:
    found: list[PodTemplate] = []
    for position, task in enumerate(as_list(obj.spec.get("tasks"))):
        path: Path = ("spec", "tasks", position, "template")
        found.extend(_template(obj, path, as_map(as_map(task).get("template")), "volcano-task"))
    return found


def containers(spec: dict[str, Any]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(list name, index, container) for containers, initContainers and ephemeralContainers."""
    for list_name in ("initContainers", "containers", "ephemeralContainers"):
        for position, container in enumerate(as_list(spec.get(list_name))):
            if isinstance(container, dict):
                yield list_name, position, container


# --------------------------------------------------------------------------- WAS object walks


@dataclass(frozen=True)
class GroupTemplate:
    """A template in a Workload tree (flat or composite) and where it sits."""

    path: Path
    data: dict[str, Any]
    composite: bool
    depth: int  # 1 for the top-level lists
    parent: GroupTemplate | None


# The fields of a Workload's PodGroup template (besides schedulingPolicy) that a PodGroup created
# from it is stamped with, and that the template may not change afterwards.
TEMPLATE_COPIED_FIELDS = (
    "schedulingConstraints",
    "resourceClaims",
    "disruptionMode",
    "priorityClassName",
    "priority",
    "preemptionPolicy",
)


def template_lists(obj: KObject) -> tuple[tuple[str, bool], ...]:
    """The template lists of a Workload (and of its composite templates) as its apiVersion spells
    them, each with whether its templates are composite: `podGroupTemplates` (1.35: `podGroups`)
    and, since 1.37, `compositePodGroupTemplates`."""
    fields = obj.fields
    if fields.composite is None:
        return ((fields.templates, False),)
    return ((fields.templates, False), (fields.composite, True))


def workload_templates(obj: KObject) -> list[GroupTemplate]:
    """Every template of a Workload, depth first, including nested composite children."""
    found: list[GroupTemplate] = []
    _walk_templates(obj.spec, ("spec",), 1, None, template_lists(obj), found)
    return found


def _walk_templates(
    holder: dict[str, Any],
    path: Path,
    depth: int,
    parent: GroupTemplate | None,
    lists: tuple[tuple[str, bool], ...],
    found: list[GroupTemplate],
) -> None:
    if depth > 16:  # a tree this deep is reported by WAS602; stop walking it
        return
    for list_name, composite in lists:
        for position, item in enumerate(as_list(holder.get(list_name))):
            if not isinstance(item, dict):
                continue
            template = GroupTemplate((*path, list_name, position), item, composite, depth, parent)
            found.append(template)
            if composite:
                _walk_templates(item, template.path, depth + 1, template, lists, found)


POD_TEMPLATE_KINDS = frozenset(
    {
        ("", "Pod"),
        ("", "PodTemplate"),
        ("", "ReplicationController"),
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("apps", "ReplicaSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("jobset.x-k8s.io", "JobSet"),
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ("batch.volcano.sh", "Job"),
    }
)

# --------------------------------------------------------------------------- Pod counts
# How many Pods a template stands for at once: a Job runs `parallelism` (default 1), never more
# than `completions`; a JobSet replicated job `replicas` x that; a LeaderWorkerSet group is `size`
# Pods (the leader included); Deployments, ReplicaSets, StatefulSets their explicit `replicas`
# (absent: unknown, an autoscaler may own it); DaemonSets and PodTemplates are unknown.

REPLICA_KINDS = frozenset(
    {("apps", "Deployment"), ("apps", "ReplicaSet"), ("apps", "StatefulSet"), ("", "ReplicationController")}
)


@dataclass(frozen=True)
class Count:
    """A number of Pods, and a noun phrase naming it and where it comes from (it includes the
    number), e.g. "parallelism 4 (spec.parallelism)"."""

    pods: int
    why: str


def job_pods(job_spec: dict[str, Any], prefix: str) -> Count | None:
    """Pods a Job runs at once: parallelism (default 1), capped by completions. None: unknown."""
    raw = job_spec.get("parallelism")
    if raw is None:
        parallelism, why = 1, f"parallelism 1 ({prefix}parallelism is unset and defaults to 1)"
    else:
        value = as_int(raw)
        if value is None:
            return None
        parallelism, why = value, f"parallelism {value} ({prefix}parallelism)"
    completions = as_int(job_spec.get("completions"))
    if completions is not None and 1 <= completions < parallelism:
        return Count(completions, f"{why} capped by completions {completions} ({prefix}completions)")
    return Count(parallelism, why)


def jobset_replicated(obj: KObject, position: int) -> tuple[str, Count] | None:
    replicated = as_map(dig(obj.spec, "replicatedJobs", position))
    name = as_str(replicated.get("name")) or f"#{position + 1}"
    raw = replicated.get("replicas")
    replicas = 1 if raw is None else as_int(raw)
    per_job = job_pods(as_map(dig(replicated, "template", "spec")), "template.spec.")
    if replicas is None or per_job is None:
        return None
    pods = replicas * per_job.pods
    return name, Count(pods, f"{name}: {replicas} replicas x {per_job.why} = {pods}")


def lws_sizes(obj: KObject) -> tuple[int, int, bool] | None:
    """(groups, size, has leaderTemplate) of a LeaderWorkerSet; size and replicas default to 1."""
    lws = as_map(obj.spec.get("leaderWorkerTemplate"))
    raw_size, raw_replicas = lws.get("size"), obj.spec.get("replicas")
    size = 1 if raw_size is None else as_int(raw_size)
    groups = 1 if raw_replicas is None else as_int(raw_replicas)
    if size is None or groups is None:
        return None
    return groups, size, isinstance(lws.get("leaderTemplate"), dict)


def pod_count(template: PodTemplate) -> int | None:
    """Pods of one pod template that exist at the same time; None when it cannot be known."""
    owner = template.owner
    role = template.role
    if role == "pod":
        return 1
    if role == "job":
        job = job_spec(owner)
        count = job_pods(job[1], "") if job is not None else None
        return count.pods if count is not None else None
    if role.startswith("jobset:") and len(template.path) > 2 and isinstance(template.path[2], int):
        found = jobset_replicated(owner, template.path[2])
        return found[1].pods if found is not None else None
    if role in ("lws:worker", "lws:leader"):
        sizes = lws_sizes(owner)
        if sizes is None:
            return None
        groups, size, has_leader = sizes
        if role == "lws:leader":
            return groups
        return groups * (size - 1 if has_leader else size)
    if role == "volcano-task" and len(template.path) > 2 and isinstance(template.path[2], int):
        return as_int(dig(owner.spec, "tasks", template.path[2], "replicas"))
    if (owner.group, owner.kind) in REPLICA_KINDS:
        return as_int(owner.spec.get("replicas"))  # absent: an autoscaler may own it, unknown
    return None


# --------------------------------------------------------------------------- DRA claim entries


@dataclass(frozen=True)
class Claim:
    """One `resourceClaims` entry, and where it sits in its object."""

    name: str | None
    claim_name: str | None  # resourceClaimName
    template_name: str | None  # resourceClaimTemplateName
    path: Path
    raw: dict[str, Any]

    @property
    def triple(self) -> tuple[str | None, str | None, str | None]:
        return (self.name, self.claim_name, self.template_name)

    def show(self) -> str:
        """The entry as YAML flow style, e.g. {name: gpu, resourceClaimTemplateName: gpu-a}."""
        parts = [f"name: {self.name if self.name is not None else '<unset>'}"]
        if self.claim_name is not None:
            parts.append(f"resourceClaimName: {self.claim_name}")
        if self.template_name is not None:
            parts.append(f"resourceClaimTemplateName: {self.template_name}")
        if self.claim_name is None and self.template_name is None:
            parts.append("no resourceClaimName/resourceClaimTemplateName")
        return "{" + ", ".join(parts) + "}"


def claim_entries(holder: dict[str, Any], path: Path) -> list[Claim]:
    """The mapping entries of `holder.resourceClaims` (other items are WAS002's business)."""
    found = []
    for position, item in enumerate(as_list(holder.get("resourceClaims"))):
        if isinstance(item, dict):
            found.append(
                Claim(
                    as_str(item.get("name")),
                    as_str(item.get("resourceClaimName")),
                    as_str(item.get("resourceClaimTemplateName")),
                    (*path, "resourceClaims", position),
                    item,
                )
            )
    return found


# --------------------------------------------------------------------------- KAI batch-min-member
_GO_INT = LazyPattern(r"[+-]?[0-9]+")


def kai_min_member(obj: KObject) -> tuple[Path, Any] | None:
    """(path, raw value) of the KAI batch-min-member annotation: the Job's, then the object's."""
    if obj.kind == "CronJob":
        annotations = as_map(dig(obj.spec, "jobTemplate", "metadata", "annotations"))
        if KAI_MIN_MEMBER in annotations:
            path: Path = ("spec", "jobTemplate", "metadata", "annotations", KAI_MIN_MEMBER)
            return path, annotations[KAI_MIN_MEMBER]
    if KAI_MIN_MEMBER in obj.annotations:
        return ("metadata", "annotations", KAI_MIN_MEMBER), obj.annotations[KAI_MIN_MEMBER]
    return None


def parse_min_member(raw: Any) -> int | None:
    """The value as KAI parses it (Go ParseInt, base 10, >= 1); None when KAI rejects it."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str) and _GO_INT.fullmatch(raw):
        value = int(raw)
    else:
        return None
    return value if 1 <= value < 2**31 else None
