"""Kustomize build roots: the build graph (graph.py), the real kustomize's renders with their
origin build metadata (render.py), and where a rendered field was written (origins.py)."""

from __future__ import annotations

import os

# The names kustomize reads a folder's kustomization from, in its order. Here, not in graph.py:
# a lint run asks whether it holds a kustomization before it imports any of this package.
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def is_kustomization(path: str) -> bool:
    return os.path.basename(path) in KUSTOMIZATION_FILES
