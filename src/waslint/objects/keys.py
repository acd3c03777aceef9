"""The names waslint reads objects by, defined once: the kinds that run Pods or hold gangs, and
the labels and annotations by which KAI-Scheduler, Volcano and the coscheduling plugin name a
gang, its members and their GPU shares. Readers (`pods`, `members`, `groups`) and rules import
these; nobody retypes them."""

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
KAI_SCHEDULER = "kai-scheduler"
KAI_GPU_FRACTION = "gpu-fraction"
KAI_GPU_FRACTION_DEVICES = "gpu-fraction-num-devices"
KAI_GPU_MEMORY = "gpu-memory"
# Volcano: a Pod joins a Volcano PodGroup by either annotation (the first one set counts).
VOLCANO_GROUP_ANNOTATIONS = ("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name")
# The coscheduling plugin (scheduler-plugins): a Pod joins a PodGroup by this label.
COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"
# Words whose mention marks an object that may be a member of a third-party gang: KAI's
# pod-group-name and Volcano's */group-name annotations, the coscheduling label.
SCHEDULER_MEMBER_WORDS = ("group-name", COSCHEDULING_LABEL)
# Words whose mention marks an object that may be a member of a WAS PodGroup.
MEMBER_WORD = "schedulingGroup"
