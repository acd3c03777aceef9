"""The names waslint reads objects by, defined once: the kinds that run Pods or hold gangs, and
the labels and annotations by which KAI-Scheduler, Volcano, Kueue and the coscheduling plugin
name a gang, its members, its topology and their GPU shares. Readers (`pods`, `members`,
`groups`) and rules import these; nobody retypes them. `READ_ANNOTATIONS` lists, per scheduler,
every label and annotation waslint reads: a key of that scheduler not in it is not modelled."""

from __future__ import annotations

SCHEDULING = "scheduling.k8s.io"

# --------------------------------------------------------------------------- kinds: (group, kind)

POD = ("", "Pod")
WORKLOAD = (SCHEDULING, "Workload")
PODGROUP = (SCHEDULING, "PodGroup")
COMPOSITE = (SCHEDULING, "CompositePodGroup")
PRIORITY_CLASS = (SCHEDULING, "PriorityClass")
JOB = ("batch", "Job")
CRONJOB = ("batch", "CronJob")
JOB_KINDS = frozenset({JOB, CRONJOB})
JOBSET = ("jobset.x-k8s.io", "JobSet")
LWS = ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
VOLCANO_JOB = ("batch.volcano.sh", "Job")
KAI_PODGROUP = ("scheduling.run.ai", "PodGroup")
KAI_QUEUE = ("scheduling.run.ai", "Queue")
VOLCANO_PODGROUP = ("scheduling.volcano.sh", "PodGroup")
COSCHEDULING_PODGROUP = ("scheduling.x-k8s.io", "PodGroup")
# The WAS objects that carry a group's policy fields, besides Job (and CronJob) spec.scheduling.
WAS_GROUP_KINDS = frozenset({WORKLOAD, PODGROUP, COMPOSITE})
POLICY_KINDS = WAS_GROUP_KINDS | JOB_KINDS
# Objects a PodGroup's Pods come from when no member is in the set (ownerReferences, controllerRef).
OWNER_KINDS = JOB_KINDS | {JOBSET, LWS}

# --------------------------------------------------------------------------- labels, annotations

HOSTNAME = "kubernetes.io/hostname"
# KAI-Scheduler: a Pod joins a KAI PodGroup by this annotation (the scheduler reads the Pod's own
# annotations: kai-scheduler/KAI-Scheduler pkg/scheduler/api/pod_info/pod_info.go), and a
# sub-group by this label; a Job or JobSet sets its gang size with batch-min-member (read from
# the top owner: pkg/podgrouper/podgrouper/plugins/job/job_grouper.go calcMinMember).
KAI_GROUP_ANNOTATION = "pod-group-name"
KAI_SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
KAI_MIN_MEMBER = "kai.scheduler/batch-min-member"
KAI_MIN_MEMBER_KINDS = JOB_KINDS | {JOBSET, LWS}
KAI_QUEUE_LABELS = ("kai.scheduler/queue", "runai/queue")
# preemptible | non-preemptible, on the workload or its pods (the pod-grouper's defaultgrouper)
KAI_PREEMPTIBILITY_LABEL = "kai.scheduler/preemptibility"
KAI_SCHEDULER = "kai-scheduler"
KAI_GPU_FRACTION = "gpu-fraction"
KAI_GPU_FRACTION_DEVICES = "gpu-fraction-num-devices"
KAI_GPU_MEMORY = "gpu-memory"
# KAI-Scheduler's pod-grouper copies these annotations of a workload's top owner onto the PodGroup
# it makes (spec.topologyConstraint: topology, requiredTopologyLevel, preferredTopologyLevel):
# kai-scheduler/KAI-Scheduler pkg/podgrouper/podgrouper/plugins/defaultgrouper/default_grouper.go.
KAI_TOPOLOGY = "kai.scheduler/topology"
KAI_TOPOLOGY_REQUIRED = "kai.scheduler/topology-required-placement"
KAI_TOPOLOGY_PREFERRED = "kai.scheduler/topology-preferred-placement"
# Volcano: a Pod joins a Volcano PodGroup by either annotation (the first one set counts).
VOLCANO_GROUP_ANNOTATIONS = ("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name")
# Volcano: the task a Pod belongs to, for PodGroup spec.minTaskMember (annotation, then label:
# volcano-sh/volcano pkg/scheduler/api/job_info.go getTaskRole).
VOLCANO_TASK_SPEC = "volcano.sh/task-spec"
# Volcano: the queue of a Pod or workload without a PodGroup, and the label the Volcano job
# controller sets on the pods it creates.
VOLCANO_QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
VOLCANO_QUEUE_LABEL = "volcano.sh/queue-name"
# Kueue: a Job, JobSet, LeaderWorkerSet or Pod with this label (its own metadata) is admitted by
# Kueue as one Workload, all PodSets at once (kubernetes-sigs/kueue apis/kueue/v1beta2/constants.go
# QueueLabel); a Job may accept partial admission down to job-min-parallelism
# (pkg/controller/jobs/job/job_controller.go minPodsCount).
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_JOB_MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
# Kueue PodSet topology requests, read from each pod template's own annotations
# (apis/kueue/v1beta2/topology_types.go; pkg/controller/jobframework/tas.go Build).
KUEUE_PODSET_REQUIRED = "kueue.x-k8s.io/podset-required-topology"
KUEUE_PODSET_PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
KUEUE_PODSET_UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
KUEUE_PODSET_SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
KUEUE_PODSET_SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
KUEUE_PODSET_SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
KUEUE_PODSET_GROUP = "kueue.x-k8s.io/podset-group-name"
# Kueue plain-Pod groups: the label names the group, the annotation its size
# (pkg/controller/jobs/pod/constants/constants.go GroupNameLabel, GroupTotalCountAnnotation).
KUEUE_POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
KUEUE_POD_GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count"
# The coscheduling plugin (scheduler-plugins): a Pod joins a PodGroup by this label.
COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"
# Words whose mention marks an object that may be a member of a third-party gang: KAI's
# pod-group-name and Volcano's */group-name annotations, Kueue's pod-group-name label, the
# coscheduling label.
SCHEDULER_MEMBER_WORDS = ("group-name", COSCHEDULING_LABEL)
# Words whose mention marks an object that may be a member of a WAS PodGroup.
MEMBER_WORD = "schedulingGroup"

# Every label and annotation waslint reads, per scheduler: what a scheduler's key outside its set
# does is not modelled (feasibility says so next to a verdict that may rest on it).
READ_ANNOTATIONS: dict[str, frozenset[str]] = {
    "kai": frozenset(
        {
            KAI_GROUP_ANNOTATION,
            KAI_SUBGROUP_LABEL,
            KAI_MIN_MEMBER,
            *KAI_QUEUE_LABELS,
            KAI_PREEMPTIBILITY_LABEL,
            KAI_GPU_FRACTION,
            KAI_GPU_FRACTION_DEVICES,
            KAI_GPU_MEMORY,
            KAI_TOPOLOGY,
            KAI_TOPOLOGY_REQUIRED,
            KAI_TOPOLOGY_PREFERRED,
        }
    ),
    "volcano": frozenset(
        {*VOLCANO_GROUP_ANNOTATIONS, VOLCANO_TASK_SPEC, VOLCANO_QUEUE_ANNOTATION, VOLCANO_QUEUE_LABEL}
    ),
    "kueue": frozenset(
        {
            KUEUE_QUEUE_LABEL,
            KUEUE_JOB_MIN_PARALLELISM,
            KUEUE_PODSET_REQUIRED,
            KUEUE_PODSET_PREFERRED,
            KUEUE_PODSET_UNCONSTRAINED,
            KUEUE_PODSET_SLICE_REQUIRED,
            KUEUE_PODSET_SLICE_SIZE,
            KUEUE_PODSET_GROUP,
            KUEUE_POD_GROUP_LABEL,
            KUEUE_POD_GROUP_TOTAL,
        }
    ),
    "coscheduling": frozenset({COSCHEDULING_LABEL}),
}
# The prefixes that mark a key as a scheduler's (for "not read" notes).
SCHEDULER_KEY_PREFIXES: dict[str, tuple[str, ...]] = {
    "kai": ("kai.scheduler/", "runai/"),
    "volcano": ("volcano.sh/", "scheduling.volcano.sh/"),
    "kueue": ("kueue.x-k8s.io/",),
    "coscheduling": ("scheduling.x-k8s.io/",),
}


def unread_keys(keys: object) -> list[tuple[str, str]]:
    """(scheduler, key) of the keys in `keys` that belong to a scheduler but waslint does not read."""
    found = []
    for key in keys if isinstance(keys, (dict, list, tuple, set, frozenset)) else ():
        if not isinstance(key, str):
            continue
        for scheduler, prefixes in SCHEDULER_KEY_PREFIXES.items():
            if key.startswith(prefixes) and key not in READ_ANNOTATIONS[scheduler]:
                found.append((scheduler, key))
    return found
