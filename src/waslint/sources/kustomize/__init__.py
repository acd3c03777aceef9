"""Kustomize build roots: the build graph (graph.py), the real kustomize's renders with their
origin build metadata (render.py), and where a rendered field was written (origins.py)."""
