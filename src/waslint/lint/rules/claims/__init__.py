"""WAS2xx: shared DRA claims between Pods and their PodGroup (or Job `spec.scheduling`).

A group claim (PodGroup `spec.resourceClaims`, Workload template `resourceClaims`, Job
`spec.scheduling.resourceClaims`) is shared by the whole gang only when a member Pod declares a
claim with the same triple: `name`, `resourceClaimName` and `resourceClaimTemplateName` all equal
("the Pod's claim must match all fields of the PodGroup's claim exactly": kubernetes/api
scheduling/v1beta1/types.go PodGroupResourceClaim). Anything else is silently a per-Pod claim.
The group of a pod template is the PodGroup its `spec.schedulingGroup.podGroupName` names (same
namespace), or, for a Job without `schedulingGroup`, the Job's own `spec.scheduling`.

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; what
several of them share is in `common.py`."""
