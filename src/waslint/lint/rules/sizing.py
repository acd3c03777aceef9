"""WAS3xx: gang sizing. Gang sizes against the number of Pods that can exist, and against templates.

Pod counts come from the pod templates (`kube.pod_templates`), counted as the Pods that can run
at the same time: a Job runs `parallelism` Pods (default 1), never more than `completions`; a
JobSet replicated job runs `replicas` x that; a LeaderWorkerSet group is `size` Pods; Deployments,
ReplicaSets, StatefulSets count their explicit `spec.replicas` (absent: unknown, an autoscaler may
own it); DaemonSets and PodTemplates are unknown, and so is any object with a controller
`ownerReference` (a dump of one of a controller's Pods: its siblings are not in the set). A group
with a member of unknown size is not judged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import MIN_COUNT, MIN_GROUP_COUNT, Group, groups_of, object_group
from waslint.objects.index import distinct_members
from waslint.objects.keys import (
    COMPOSITE,
    COSCHEDULING_PODGROUP,
    JOB_KINDS,
    KAI_MIN_MEMBER,
    KAI_MIN_MEMBER_KINDS,
    KAI_PODGROUP,
    PODGROUP,
    SCHEDULING,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
    WORKLOAD,
)
from waslint.objects.kobject import KObject, as_int, as_list, as_map, as_str, dig
from waslint.objects.members import is_controlled
from waslint.objects.walks import (
    Count,
    PodTemplate,
    job_pods,
    job_spec,
    jobset_replicated,
    kai_min_member,
    lws_sizes,
    parse_min_member,
    pod_count,
    template_lists,
)

# --------------------------------------------------------------------------- shared readings


def template_pods(template: PodTemplate) -> int | None:
    """Pods of a template that exist at once; unknown (None) for a controller's object (a dump of
    one of its Pods: the siblings are not in the set)."""
    return None if is_controlled(template.owner.metadata) else pod_count(template)


def _pods(count: int) -> str:
    return f"{count} Pod" if count == 1 else f"{count} Pods"


def describe(template: PodTemplate, pods: int | None) -> str:
    owner = template.owner
    where = f"{owner.kind} {owner.name or '<unnamed>'}"
    if template.role.startswith(("jobset:", "lws:")):
        where += f" [{template.role.split(':', 1)[1]}]"
    return f"{where}: {'?' if pods is None else pods}"


@dataclass(frozen=True)
class Members:
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


def _prefix(job_path: Path) -> str:
    return ".".join(str(step) for step in job_path) + "."


# --------------------------------------------------------------------------- WAS301 / WAS302


@register
class MinCountExceedsParallelism(Rule):
    code = "WAS301"
    name = "mincount-exceeds-parallelism"
    severity = Severity.ERROR
    summary = "A Job's gang minCount is greater than its parallelism: the gang is never admitted."
    what = (
        "Compares Job `spec.scheduling.schedulingPolicy.gang.minCount` with `spec.parallelism`"
        " (default 1), and the same fields of a CronJob's `jobTemplate`. Also fires when"
        " `completions` is set and smaller than both (the Job controller never runs more Pods"
        " than the completions left, so `min(parallelism, completions)` is the most that can"
        " ever be waiting together). The message gives minCount, parallelism (and completions)"
        " and the field each comes from. Only for a target of 1.37 or later (earlier releases"
        " have no `spec.scheduling`). A missing minCount defaults to parallelism and is fine."
    )
    why = (
        "The gang is admitted only when minCount Pods can be placed together, and the Job"
        " never creates more than parallelism Pods at once: the Pods stay Pending forever."
        " KEP-5547 makes the API server reject minCount > parallelism on create and update"
        " (CronJob jobTemplates included), so the apply fails too."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 8
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 8
  completions: 8
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 8
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    kinds = JOB_KINDS
    text_trigger = MIN_COUNT

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("beta-api"):
            return
        gang = job_gang(obj)
        if gang is None:
            return
        path, min_count, job_path, job_spec = gang
        prefix = _prefix(job_path)
        pods = job_pods(job_spec, prefix)
        if pods is None or min_count <= pods.pods:
            return
        yield self.hit(
            obj,
            path,
            f"gang minCount {min_count} ({prefix}scheduling.schedulingPolicy.gang.minCount) is"
            f" greater than {pods.why}: the Job never runs more than {_pods(pods.pods)} at once,"
            f" so the gang is never admitted. Set minCount to at most {pods.pods}, or raise"
            " parallelism (and completions) to at least minCount",
        )


@register
class ElasticGang(Rule):
    code = "WAS302"
    name = "elastic-gang"
    severity = Severity.WARNING
    summary = "A Job's gang minCount is smaller than its parallelism: a partial world may start."
    what = (
        "Fires when Job `spec.scheduling.schedulingPolicy.gang.minCount` (or a CronJob"
        " jobTemplate's) is at least 1 but smaller than the Pods the Job runs at once"
        " (`parallelism`, default 1, capped by `completions`). Not when the pod template sets"
        " `schedulingGroup` (the Job controller then ignores `spec.scheduling`; see WAS403), and"
        " only for a target of 1.37 or later. An unset minCount defaults to parallelism and does"
        ' not fire: leaving it unset is the way to say "all of them".'
    )
    why = (
        "The scheduler may admit the gang with only minCount Pods placed and start them while"
        " the rest wait: a training job with a fixed world size (torchrun --nnodes=N, MPI) then"
        " hangs in its first collective, holding the GPUs it got. This is right only when the"
        " framework handles a changing world size (elastic training, independent workers); then"
        " suppress the finding on the Job."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 8
  completions: 8
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 8     # or leave minCount out: it defaults to parallelism
"""
    kinds = JOB_KINDS
    text_trigger = MIN_COUNT

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("beta-api"):
            return
        gang = job_gang(obj)
        if gang is None:
            return
        path, min_count, job_path, job_spec = gang
        if "schedulingGroup" in as_map(dig(job_spec, "template", "spec")):
            return
        prefix = _prefix(job_path)
        pods = job_pods(job_spec, prefix)
        if pods is None or not 1 <= min_count < pods.pods:
            return
        yield self.hit(
            obj,
            path,
            f"gang minCount {min_count} ({prefix}scheduling.schedulingPolicy.gang.minCount) is"
            f" smaller than {pods.why}: the scheduler may start {min_count} of {pods.pods} Pods"
            " and leave the rest pending. Right only if the framework handles a changing world size"
            f" (elastic training); otherwise set minCount to {pods.pods} or remove it (it"
            " defaults to parallelism)",
        )


# --------------------------------------------------------------------------- WAS303


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
            f"gang minCount {min_count} is greater than the {_pods(members.known)} of the"
            f" PodGroup's members in the set ({members.listing}): the gang waits forever for"
            f" {_pods(min_count - members.known)} that never come. Lower minCount to"
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


# --------------------------------------------------------------------------- WAS304

_UNKNOWN = object()  # a field of the wrong type: not compared (WAS002 reports it)


def _disruption(group: Group) -> Any:
    if group.disruption.raw is None:
        return "single"  # the PodGroup default, and what a PodGroup made from the template gets
    mode = group.disruption.mode
    return _UNKNOWN if mode is None else mode


def _topology(group: Group) -> Any:
    constraints = group.data.get("schedulingConstraints")
    if constraints is None:
        return ()
    if not isinstance(constraints, dict) or any(entry.key is None for entry in group.topology):
        return _UNKNOWN
    return tuple(entry.key for entry in group.topology)


def _facets(group: Group) -> list[tuple[str, Path, Any]]:
    """(facet, path of the field, comparable value) of a group for WAS304."""
    policy = group.policy
    kind = policy.variant
    facets: list[tuple[str, Path, Any]] = [("policy kind", policy.path, kind if kind is not None else _UNKNOWN)]
    if kind == "gang":
        value = policy.minimum.value
        facets.append((policy.minimum.field, policy.minimum.path, _UNKNOWN if value is None else value))
    facets.append(("disruptionMode", group.disruption.path, _disruption(group)))
    priority = group.data.get("priorityClassName")
    facets.append(
        (
            "priorityClassName",
            (*group.path, "priorityClassName"),
            priority if priority is None or isinstance(priority, str) else _UNKNOWN,
        )
    )
    facets.append(("topology key", (*group.path, "schedulingConstraints"), _topology(group)))
    if not group.composite:
        raw_claims = group.data.get("resourceClaims")
        claims = (
            frozenset(claim.triple for claim in group.claims)
            if raw_claims is None or isinstance(raw_claims, list)
            else _UNKNOWN
        )
        facets.append(("claims", (*group.path, "resourceClaims"), claims))
    return facets


def _show(facet: str, value: Any) -> str:
    if value is None or value == () or value == frozenset():
        return "unset" if facet != "claims" else "no claims"
    if facet == "disruptionMode":
        return f"{{{value}: {{}}}}"
    if facet == "topology key":
        return ", ".join(value)
    if facet == "claims":
        return "; ".join(_show_triple(t) for t in sorted(value, key=lambda t: tuple(map(str, t))))
    return str(value)


def _show_triple(triple: tuple[str | None, str | None, str | None]) -> str:
    name, claim, template = triple
    parts = [f"name: {name}"]
    if claim is not None:
        parts.append(f"resourceClaimName: {claim}")
    if template is not None:
        parts.append(f"resourceClaimTemplateName: {template}")
    return "{" + ", ".join(parts) + "}"


@register
class TemplateDrift(Rule):
    code = "WAS304"
    name = "template-drift"
    severity = Severity.WARNING
    summary = "A PodGroup or CompositePodGroup differs from the Workload template it names."
    what = (
        "For a PodGroup or CompositePodGroup whose `spec.workloadRef` (or the 1.36"
        " `podGroupTemplateRef.workload`, which WAS104 rewrites) names a Workload in the set (same"
        " namespace) and a template of it, compares: the policy kind (basic/gang),"
        " `minCount`/`minGroupCount`, `disruptionMode` (unset means `{single: {}}`; the 1.36"
        " strings are read as their 1.37 meaning), `priorityClassName`, the topology key and, for"
        " PodGroups, the claims (as a set of triples). One finding per differing field, at the"
        " group's field. A PodGroup naming a composite template (or the reverse) and a template"
        " that is not there are reference problems (WAS402), not drift; fields of the wrong type"
        " are left to WAS002."
    )
    why = (
        "Controllers create PodGroups from the template, so a hand-written PodGroup that differs"
        " behaves differently from the ones the same Workload produces later, and the Workload"
        " no longer documents what runs. All these fields but `minCount` are immutable: the"
        " PodGroup has to be recreated. `minCount` is mutable in 1.37: if the group was scaled"
        " on purpose, scale the template too."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 8
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 6
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 8
"""
    kinds = frozenset({(SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        found = workload_template_of(obj, ctx)
        if found is None:
            return
        workload, template = found
        group = object_group(obj)
        if group is None or template.composite != group.composite:
            return
        name = template.name or "<unnamed>"
        source = f"Workload {workload.namespace}/{workload.name} template {name!r}"
        theirs = {facet: value for facet, _, value in _facets(template)}
        for facet, path, mine in _facets(group):
            # minCount/minGroupCount exist on both sides only when both are gangs.
            other = theirs.get(facet, _UNKNOWN)
            if mine is _UNKNOWN or other is _UNKNOWN or mine == other:
                continue
            yield self._drift(obj, path, facet, mine, other, source)

    def _drift(self, obj: KObject, path: Path, facet: str, mine: Any, other: Any, source: str) -> Hit:
        if facet in (MIN_COUNT, MIN_GROUP_COUNT):
            advice = (
                f"{facet} is mutable: if it was scaled on purpose, scale the template too (new"
                f" groups from it get {other}); otherwise set it back to {other}"
            )
        elif facet == "claims":
            only_mine = ", ".join(_show_triple(t) for t in sorted(mine - other, key=str))
            only_theirs = ", ".join(_show_triple(t) for t in sorted(other - mine, key=str))
            only_mine, only_theirs = only_mine or "none", only_theirs or "none"
            advice = (
                f"only here: {only_mine}; only in the template: {only_theirs}. Claims are"
                f" immutable: recreate the {obj.kind} from the template"
            )
            return self.hit(
                obj,
                path,
                f"{obj.kind} claims differ from {source}: {advice}",
            )
        else:
            advice = f"the field is immutable: recreate the {obj.kind} with the template's value"
        return self.hit(
            obj,
            path,
            f"{obj.kind} {facet} is {_show(facet, mine)} but {source} has {_show(facet, other)}: {advice}",
        )


# --------------------------------------------------------------------------- WAS305


@dataclass(frozen=True)
class SizeCheck:
    obj: KObject
    path: Path
    source: str  # "KAI annotation kai.scheduler/batch-min-member", "Volcano PodGroup minMember"
    scheduler: str
    value: int
    target: Count


@register
class MinMemberDrift(Rule):
    code = "WAS305"
    name = "min-member-drift"
    severity = Severity.ERROR
    other_severities = (Severity.WARNING,)  # a gang smaller than its Pods
    summary = "A KAI, Volcano or coscheduling gang size disagrees with the workload's Pod count."
    what = (
        "Compares third-party gang sizes with the number of Pods they gate. Greater than the"
        " count: error; smaller: warning. (1) KAI's `kai.scheduler/batch-min-member` annotation"
        " on a Job (CronJob: on its jobTemplate or itself) against the Pods the Job runs at"
        " once (`parallelism`, default 1, capped by `completions`); on a JobSet against the sum"
        " of replicatedJobs `replicas` x `parallelism` (with `startupPolicyOrder: InOrder` KAI"
        " makes one PodGroup per replicated job, so each is compared on its own); on a"
        " LeaderWorkerSet against `size` (one gang per group). (2) Volcano `batch.volcano.sh`"
        " Job `minAvailable` against the sum of its tasks' `replicas`. (3) PodGroups of KAI"
        " (`scheduling.run.ai`, members join with the `pod-group-name` annotation), Volcano"
        " (`scheduling.volcano.sh`, annotation `scheduling.k8s.io/group-name` or"
        " `scheduling.volcano.sh/group-name`) and coscheduling (`scheduling.x-k8s.io`, label"
        " `scheduling.x-k8s.io/pod-group`): `minMember` against the Pods of the members in the"
        " set (same namespace), only when at least one member is in the set and every member's"
        " size is known. A KAI PodGroup with `subGroups` is compared per leaf sub-group"
        " (members labelled `kai.scheduler/subgroup-name`), since its top-level `minMember` may"
        " count child sub-groups rather than Pods. An annotation value KAI cannot parse is"
        " WAS306."
    )
    why = (
        "Greater: the scheduler waits for Pods that will never exist and the gang never starts."
        " Smaller: the scheduler may start a partial gang, which a fixed-size distributed job"
        " (MPI, torchrun) cannot use; it holds its GPUs while it waits for peers. A smaller"
        " value is right for independent Pods (hyper-parameter search) or elastic frameworks:"
        " suppress the warning there."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  annotations:
    kai.scheduler/batch-min-member: "8"
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
  annotations:
    kai.scheduler/batch-min-member: "4"
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      schedulerName: kai-scheduler
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        index = ctx.index
        for kind in sorted(KAI_MIN_MEMBER_KINDS):
            for obj in index.mentioning(KAI_MIN_MEMBER, kinds=[kind]):
                yield from self._annotated(obj)
        for obj in index.of_kind(*VOLCANO_JOB):
            yield from self._volcano_job(obj)
        if not any(index.has_kind(*kind) for kind in (KAI_PODGROUP, VOLCANO_PODGROUP, COSCHEDULING_PODGROUP)):
            return
        for obj in index.of_kind(*KAI_PODGROUP):
            yield from self._kai_group(obj, index.scheduler_members("kai", obj.namespace, obj.name or ""))
        for kind, family, scheduler in (
            (VOLCANO_PODGROUP, "volcano", "Volcano"),
            (COSCHEDULING_PODGROUP, "coscheduling", "the coscheduling plugin"),
        ):
            for obj in index.of_kind(*kind):
                templates = index.scheduler_members(family, obj.namespace, obj.name or "")
                value = as_int(obj.spec.get("minMember"))
                if value is not None and templates:
                    source = f"{family.capitalize()} PodGroup minMember"
                    yield from self._against_members(obj, ("spec", "minMember"), source, scheduler, value, templates)

    # -- sources

    def _annotated(self, obj: KObject) -> Iterator[Hit]:
        found = kai_min_member(obj)
        if found is None:
            return
        path, raw = found
        value = parse_min_member(raw)
        if value is None:
            return  # WAS306
        source = f"KAI annotation {KAI_MIN_MEMBER} {value}"
        if obj.kind in ("Job", "CronJob"):
            job = job_spec(obj)
            if job is None:
                return
            target = job_pods(job[1], _prefix(job[0]))
            if target is not None:
                yield from self._compare(SizeCheck(obj, path, source, "KAI", value, target))
        elif obj.kind == "JobSet":
            yield from self._jobset(obj, path, source, value)
        else:
            sizes = lws_sizes(obj)
            if sizes is not None:
                target = Count(
                    sizes[1], f"LeaderWorkerSet size {sizes[1]} (spec.leaderWorkerTemplate.size, one gang per group)"
                )
                yield from self._compare(SizeCheck(obj, path, source, "KAI", value, target))

    def _jobset(self, obj: KObject, path: Path, source: str, value: int) -> Iterator[Hit]:
        replicated = [
            jobset_replicated(obj, position) for position in range(len(as_list(obj.spec.get("replicatedJobs"))))
        ]
        counts = [found for found in replicated if found is not None]
        if not counts or len(counts) != len(replicated):
            return
        order = as_str(dig(obj.spec, "startupPolicy", "startupPolicyOrder"))
        if order == "InOrder":
            # One PodGroup per replicated job, each with the annotation's minMember.
            # Too big for the smallest is an error; else too small for the largest is a warning.
            _, chosen = min(counts, key=lambda found: found[1].pods)
            if value <= chosen.pods:
                _, chosen = max(counts, key=lambda found: found[1].pods)
            target = Count(
                chosen.pods,
                f"the Pods of replicated job {chosen.why} (startupPolicyOrder InOrder: KAI makes"
                " one PodGroup per replicated job)",
            )
            yield from self._compare(SizeCheck(obj, path, source, "KAI", value, target))
            return
        total = sum(found[1].pods for found in counts)
        parts = "; ".join(count.why for _, count in counts)
        target = Count(total, f"the JobSet's {_pods(total)} (replicatedJobs {parts})")
        yield from self._compare(SizeCheck(obj, path, source, "KAI", value, target))

    def _volcano_job(self, obj: KObject) -> Iterator[Hit]:
        value = as_int(obj.spec.get("minAvailable"))
        tasks = [as_map(task) for task in as_list(obj.spec.get("tasks"))]
        if value is None or not tasks:
            return
        replicas = [as_int(task.get("replicas")) for task in tasks]
        if any(count is None for count in replicas):
            return
        total = sum(count for count in replicas if count is not None)
        parts = " + ".join(
            f"{as_str(task.get('name')) or '#' + str(position + 1)} {count}"
            for position, (task, count) in enumerate(zip(tasks, replicas, strict=True))
        )
        target = Count(total, f"the {_pods(total)} of its tasks ({parts})")
        yield from self._compare(
            SizeCheck(obj, ("spec", "minAvailable"), f"Volcano Job minAvailable {value}", "Volcano", value, target)
        )

    def _kai_group(self, obj: KObject, templates: list[PodTemplate]) -> Iterator[Hit]:
        if not templates:
            return
        sub_groups = [item for item in as_list(obj.spec.get("subGroups")) if isinstance(item, dict)]
        if not sub_groups:
            value = as_int(obj.spec.get("minMember"))
            if value is not None:
                yield from self._against_members(
                    obj, ("spec", "minMember"), "KAI PodGroup minMember", "KAI", value, templates
                )
            return
        parents = {as_str(item.get("parent")) for item in sub_groups}
        by_sub_group: dict[str, list[PodTemplate]] = defaultdict(list)
        for template in templates:
            label = template.membership.kai_subgroup
            if label is not None:
                by_sub_group[label.value].append(template)
        for position, item in enumerate(as_list(obj.spec.get("subGroups"))):
            if not isinstance(item, dict):
                continue
            name = as_str(item.get("name"))
            value = as_int(item.get("minMember"))
            if name is None or value is None or name in parents or not by_sub_group.get(name):
                continue
            yield from self._against_members(
                obj,
                ("spec", "subGroups", position, "minMember"),
                f"KAI PodGroup sub-group {name!r} minMember",
                "KAI",
                value,
                by_sub_group[name],
            )

    def _against_members(
        self,
        obj: KObject,
        path: Path,
        source: str,
        scheduler: str,
        value: int,
        templates: list[PodTemplate],
    ) -> Iterator[Hit]:
        members = count_members(distinct_members(templates, obj))
        if members.unknown:
            return  # a member of unknown size could make up the difference either way
        target = Count(members.known, f"the {_pods(members.known)} of its members in the set ({members.listing})")
        check = SizeCheck(obj, path, f"{source} {value}", scheduler, value, target)
        yield from self._compare(check)

    # -- verdict

    def _compare(self, check: SizeCheck) -> Iterator[Hit]:
        count = check.target.pods
        if check.value > count:
            yield self.hit(
                check.obj,
                check.path,
                f"{check.source} is greater than {check.target.why}: {check.scheduler} waits for"
                " Pods that never exist and the gang never starts."
                f" Set it to {count}, or raise the replica count",
                point_at_key=False,
            )
        elif check.value < count:
            yield self.hit(
                check.obj,
                check.path,
                f"{check.source} is smaller than {check.target.why}: {check.scheduler} may start"
                f" {check.value} of {count} Pods (a partial gang)."
                " Right only for independent Pods or an elastic framework; otherwise set it to"
                f" {count}",
                severity=Severity.WARNING,
                point_at_key=False,
            )


# --------------------------------------------------------------------------- WAS306


@register
class GangSizeInvalid(Rule):
    code = "WAS306"
    name = "gang-size-invalid"
    severity = Severity.ERROR
    summary = "A gang size is missing, zero or negative where it is required."
    what = (
        "`gang.minCount` of a Workload pod-group template (also the 1.35 `podGroups[].policy`)"
        " and of a PodGroup, and `gang.minGroupCount` of a composite template and of a"
        " CompositePodGroup: fires when the `gang` mapping is there but the count is missing, 0"
        " or negative. Job (and CronJob jobTemplate) `spec.scheduling` gang `minCount` may be"
        " left out (it defaults to parallelism) but fires when it is below 1. Judgment call: the"
        " KAI `kai.scheduler/batch-min-member` annotation on a Job, CronJob, JobSet or"
        " LeaderWorkerSet fires too when KAI cannot use it (not a base-10 integer, or below 1),"
        " or when it is not a string at all (an unquoted number, which the API server rejects),"
        " since that is the same mistake in a third-party spelling. A count of the wrong type"
        " (e.g. a string) is WAS002's."
    )
    why = (
        'The API server rejects a WAS object without a positive count ("required"). For a'
        " Job, `minCount: 0` is rejected too. KAI's podgrouper refuses an unparseable or"
        " non-positive batch-min-member and creates no PodGroup, so the Pods never schedule."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 0
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
    kinds = (
        frozenset({(SCHEDULING, "Workload"), (SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})
        | KAI_MIN_MEMBER_KINDS
    )

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.group == SCHEDULING:
            yield from self._was(obj)
            return
        if obj.kind in ("Job", "CronJob"):
            yield from self._job(obj)
        found = kai_min_member(obj)
        if found is not None and not isinstance(found[1], str):
            yield self.hit(
                obj,
                found[0],
                f"KAI annotation {KAI_MIN_MEMBER} is a bare {type(found[1]).__name__}, not a"
                " string: the API server rejects non-string annotation values. Quote it, e.g."
                f' "{found[1]}"',
                point_at_key=False,
            )
        elif found is not None and parse_min_member(found[1]) is None:
            yield self.hit(
                obj,
                found[0],
                f"KAI annotation {KAI_MIN_MEMBER}: {found[1]!r} is not a positive base-10 integer:"
                " KAI's podgrouper rejects it and creates no PodGroup, so the Pods never"
                ' schedule. Write the gang size as a quoted number, e.g. "4"',
                point_at_key=False,
            )

    def _was(self, obj: KObject) -> Iterator[Hit]:
        for group in groups_of(obj):
            where = f"template {group.name or '<unnamed>'!r}" if group.template is not None else obj.kind
            yield from self._required(obj, group, where)

    def _required(self, obj: KObject, group: Group, where: str) -> Iterator[Hit]:
        if group.policy.gang is None:
            return
        minimum = group.policy.minimum
        field = minimum.field
        if not minimum.present or minimum.raw is None:
            yield self.hit(
                obj,
                (*group.policy.path, "gang"),
                f"{where} gang policy has no {field}: it is required and must be at least 1"
                f" (the number of {'child groups' if field == 'minGroupCount' else 'Pods'} that"
                f" must be schedulable together); add gang.{field}",
            )
            return
        value = minimum.value
        if value is not None and value < 1:
            yield self.hit(
                obj,
                minimum.path,
                f"{where} gang {field} is {value}: it must be at least 1 (the API server rejects"
                " it). Set it to the gang's real size, or use `basic: {}` for no gang",
                point_at_key=False,
            )

    def _job(self, obj: KObject) -> Iterator[Hit]:
        group = object_group(obj)
        if group is None or group.policy.gang is None:
            return
        value = group.policy.minimum.value
        if value is not None and value < 1:
            yield self.hit(
                obj,
                group.policy.minimum.path,
                f"{obj.kind} gang minCount is {value}: when set it must be at least 1 (the API"
                " server rejects it). Remove it (it then defaults to parallelism), or set the"
                " gang's size",
                point_at_key=False,
            )
