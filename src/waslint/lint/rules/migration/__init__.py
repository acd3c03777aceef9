"""WAS1xx: API migration. 1.35/1.36 WAS objects and fields on a 1.37 cluster.

One module per rule (named after the rule), listed in the codes table `lint/codes.py`. The fixes
are `lint/fixers/migration.py` (WAS101-104) and `lint/fixers/podgroups.py` (WAS105)."""
