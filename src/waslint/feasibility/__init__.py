"""Feasibility: can each gang be placed all-or-nothing on a snapshot's cluster, where, and if not why."""
