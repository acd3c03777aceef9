"""WAS6xx: structure and topology. Limits of the Workload template tree, scheduling-policy and
disruption-mode unions, topology keys (against a cluster snapshot) and immutable fields (against
a git base revision).

WAS606: with --snapshot, gangs the placement engine of `waslint feasibility` cannot place.

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; what
several of them share is in `common.py`."""
