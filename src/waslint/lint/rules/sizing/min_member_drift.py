"""WAS305 min-member-drift: third-party gang sizes against the Pods they gate, in five parts, one
per way a scheduler states a gang size (`kai-batch-min-member`, `volcano-job-min-available`,
`kai-podgroup-min-member`, `volcano-podgroup-min-member`, `coscheduling-podgroup-min-member`),
judged alike (`_compare`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from waslint.core.model import Path, Severity
from waslint.core.records import dataclass
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Part, Rule, register
from waslint.lint.rules.sizing.common import count_members, job_prefix, pods_text
from waslint.objects.groups import kai_leaves, kai_subgroup_tree
from waslint.objects.index import distinct_members
from waslint.objects.keys import (
    COSCHEDULING_PODGROUP,
    KAI_MIN_MEMBER,
    KAI_MIN_MEMBER_KINDS,
    KAI_PODGROUP,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
)
from waslint.objects.kobject import KObject, as_int, as_list, as_map, as_str, dig
from waslint.objects.walks import (
    Count,
    PodTemplate,
    job_pods,
    job_spec,
    jobset_replicated,
    kai_min_member,
    lws_sizes,
    parse_min_member,
)

KAI_BATCH_MIN_MEMBER = Part(
    "kai-batch-min-member",
    "KAI's `kai.scheduler/batch-min-member` annotation on a Job (CronJob: on its jobTemplate or"
    " itself) against the Pods the Job runs at once (`parallelism`, default 1, capped by"
    " `completions`); on a JobSet against the sum of replicatedJobs `replicas` x `parallelism`"
    " (with `startupPolicyOrder: InOrder` KAI makes one PodGroup per replicated job, so each is"
    " compared on its own); on a LeaderWorkerSet against `size` (one gang per group). An"
    " annotation value KAI cannot parse is WAS306.",
)
VOLCANO_JOB_MIN_AVAILABLE = Part(
    "volcano-job-min-available",
    "Volcano `batch.volcano.sh` Job `minAvailable` against the sum of its tasks' `replicas`.",
)
KAI_PODGROUP_MIN_MEMBER = Part(
    "kai-podgroup-min-member",
    "a KAI PodGroup (`scheduling.run.ai`, members join with the `pod-group-name` annotation of"
    " their pod template): `minMember` against the Pods of its members in the set; with"
    " `subGroups`, per leaf sub-group (members labelled `kai.scheduler/subgroup-name`), since the"
    " top-level `minMember` may count child sub-groups rather than Pods.",
)
VOLCANO_PODGROUP_MIN_MEMBER = Part(
    "volcano-podgroup-min-member",
    "a Volcano PodGroup (`scheduling.volcano.sh`, annotation `scheduling.k8s.io/group-name` or"
    " `scheduling.volcano.sh/group-name`): `minMember` against the Pods of its members in the set.",
)
COSCHEDULING_PODGROUP_MIN_MEMBER = Part(
    "coscheduling-podgroup-min-member",
    "a coscheduling PodGroup (`scheduling.x-k8s.io`, label `scheduling.x-k8s.io/pod-group`):"
    " `minMember` against the Pods of its members in the set.",
)


@dataclass(frozen=True)
class SizeCheck:
    """One scheduler's gang size to compare with the members it gangs."""

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
        " count: error; smaller: warning. A PodGroup's members are the Pods and pod templates of"
        " the set (same namespace) that join it; it is judged only when at least one member is in"
        " the set and every member's size is known. Five parts, one per way of stating a gang size:"
    )
    parts = (
        KAI_BATCH_MIN_MEMBER,
        VOLCANO_JOB_MIN_AVAILABLE,
        KAI_PODGROUP_MIN_MEMBER,
        VOLCANO_PODGROUP_MIN_MEMBER,
        COSCHEDULING_PODGROUP_MIN_MEMBER,
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
                yield from self._kai_batch_min_member(obj)
        for obj in index.of_kind(*VOLCANO_JOB):
            yield from self._volcano_job_min_available(obj)
        for obj in index.of_kind(*KAI_PODGROUP):
            yield from self._kai_podgroup_min_member(obj, index.scheduler_members("kai", obj.namespace, obj.name or ""))
        for kind, family, scheduler in (
            (VOLCANO_PODGROUP, "volcano", "Volcano"),  # volcano-podgroup-min-member
            (COSCHEDULING_PODGROUP, "coscheduling", "the coscheduling plugin"),  # coscheduling-podgroup-min-member
        ):
            for obj in index.of_kind(*kind):
                templates = index.scheduler_members(family, obj.namespace, obj.name or "")
                value = as_int(obj.spec.get("minMember"))
                if value is not None and templates:
                    source = f"{family.capitalize()} PodGroup minMember"
                    yield from self._against_members(obj, ("spec", "minMember"), source, scheduler, value, templates)

    # -- kai-batch-min-member

    def _kai_batch_min_member(self, obj: KObject) -> Iterator[Hit]:
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
            target = job_pods(job[1], job_prefix(job[0]))
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
        target = Count(total, f"the JobSet's {pods_text(total)} (replicatedJobs {parts})")
        yield from self._compare(SizeCheck(obj, path, source, "KAI", value, target))

    # -- volcano-job-min-available

    def _volcano_job_min_available(self, obj: KObject) -> Iterator[Hit]:
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
        target = Count(total, f"the {pods_text(total)} of its tasks ({parts})")
        yield from self._compare(
            SizeCheck(obj, ("spec", "minAvailable"), f"Volcano Job minAvailable {value}", "Volcano", value, target)
        )

    # -- kai-podgroup-min-member

    def _kai_podgroup_min_member(self, obj: KObject, templates: list[PodTemplate]) -> Iterator[Hit]:
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
        by_sub_group: dict[str, list[PodTemplate]] = defaultdict(list)
        for template in templates:
            label = template.membership.kai_subgroup
            if label is not None:
                by_sub_group[label.value].append(template)
        root, _ = kai_subgroup_tree(obj.spec)  # the tree feasibility places: its leaves hold the Pods
        for leaf in kai_leaves(root):
            if leaf.min_member is None or not by_sub_group.get(leaf.name):
                continue
            yield from self._against_members(
                obj,
                (*leaf.path, "minMember"),
                f"KAI PodGroup sub-group {leaf.name!r} minMember",
                "KAI",
                leaf.min_member,
                by_sub_group[leaf.name],
            )

    # -- what the PodGroup parts share

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
        target = Count(members.known, f"the {pods_text(members.known)} of its members in the set ({members.listing})")
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
