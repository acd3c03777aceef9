"""WAS4xx: references and ownership.

Cross-object rules: a name in one object that must resolve to another object of the set (or of
the `--snapshot`), and objects that disagree about who owns a gang. A reference is only called
dangling when the set could have shown the target: the namespace holds objects of that kind
(WAS401/WAS402) or the set/snapshot holds PriorityClasses at all (WAS405). Otherwise the target
may well be made by a controller or live only in the cluster, and the rules stay silent.

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; what
several of them share is in `common.py`."""
