"""Live, read-only cluster access: the only package besides audit/ that imports the kubernetes client.

The client is the `cluster` extra (`pip install "waslint[cluster]"`): the base install lints, fixes
and checks feasibility without it, and the cluster commands ask for it by name (`missing_client`).
"""

from __future__ import annotations

# The modules the cluster commands import, with what a user reads when one is missing.
CLIENT_MODULES = {"kubernetes": "kubernetes client", "prometheus_client": "Prometheus text parser (prometheus-client)"}


def missing_client() -> str | None:
    """What the cluster commands need and this install lacks (None: all there). Looked up, not imported."""
    from importlib.util import find_spec

    for module, what in CLIENT_MODULES.items():
        try:
            found = find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is None:
            return what
    return None
