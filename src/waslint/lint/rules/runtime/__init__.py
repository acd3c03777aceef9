"""WAS8xx: runtime hygiene, read from stored objects and their status (a live audit, or a
`kubectl get -o yaml` dump of one), never from manifests: every rule judges only objects the API
server wrote (with a creationTimestamp or uid), so a manifest never fires, not even one that
carries a `status` (a blog post's example).

Thresholds (config `runtime:`): `orphan-after` and `stuck-deletion-after`, in seconds or with a
unit (`90s`, `30m`, `2h`, `1d`); both default to one hour. A rule that needs the Pods (or the
PodGroups) of the cluster stays silent when they were not read: in a live audit, when the list was
refused or limited to other namespaces; in files, when the set holds no stored object of that kind
in the judged object's namespace (Pod manifests say nothing of what runs).

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; what
several of them share is in `common.py`."""
