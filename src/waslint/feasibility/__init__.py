"""The placement engine of `waslint feasibility`: can each gang be placed all-or-nothing on a
snapshot's cluster, where, and if not, why.

Layers inside the package, low to high: model (compact node / pod-shape types parsed from plain
dicts, requests), filters (the scheduler's node filters), capacity (free capacity, the mutable
cluster state), dra (ResourceSlice devices and claim requests), placement (domains, gangs,
composite groups), explain (the words of a verdict), analysis (a run of several gangs, blockers,
what-ifs), gangs (the gangs read out of manifest objects), render and command (the command).
"""
