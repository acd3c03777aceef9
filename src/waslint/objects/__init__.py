"""Kubernetes objects, the typed getters and shared walks, the set index, quantities, the gate inventory."""
