"""WAS3xx: gang sizing. Gang sizes against the number of Pods that can exist, and against templates.

Pod counts come from the pod templates (`objects/walks.py` `pod_templates`), counted as the Pods that can run
at the same time: a Job runs `parallelism` Pods (default 1), never more than `completions`; a
JobSet replicated job runs `replicas` x that; a LeaderWorkerSet group is `size` Pods; Deployments,
ReplicaSets, StatefulSets count their explicit `spec.replicas` (absent: unknown, an autoscaler may
own it); DaemonSets and PodTemplates are unknown, and so is any object with a controller
`ownerReference` (a dump of one of a controller's Pods: its siblings are not in the set). A group
with a member of unknown size is not judged.

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; what
several of them share is in `common.py`."""
