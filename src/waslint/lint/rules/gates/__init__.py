"""WAS7xx: feature gates. Gate facts come from `knowledge/feature-gates.yaml` (`knowledge/gates.py`);
the gate settings of the cluster from the component manifests and configs in the set and from
`--gates FILE` (the inventory of `objects/gate_inventory.py`). Nothing fires without an inventory:
a component that no source covers is unknown, never off.

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; what
several of them share is in `common.py`."""
