"""The placement engine of `waslint feasibility`: can each gang be placed all-or-nothing on a
snapshot's cluster, where, and if not, why.

Layers inside the package, low to high: model (compact node / pod-shape types parsed from plain
dicts), capacity (requests, free capacity, the mutable cluster state), filters (the scheduler's
node filters), placement (domains, gangs, composite groups, a run of several gangs), explain
(the words of a verdict). gangs.py reads the gangs out of manifest objects.
"""
