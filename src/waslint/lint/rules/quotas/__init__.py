"""WAS5xx: limits and quotas.

KAI queue semantics (`scheduling.run.ai/v2` Queue, `spec.resources.{cpu,gpu,memory}`): `quota` is
the guaranteed share, `limit` the hard cap, `-1` means unlimited for either. An unset field is the
Go zero value 0: an unset `limit` therefore caps the resource at 0 (`OverLimit`). Units: CPU in
millicores, memory in MB, GPUs in (possibly fractional) devices. A workload whose priority class
value is 100 or more is non-preemptible and may only use in-quota resources.

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; what
several of them share is in `common.py`."""
