"""WAS2xx: shared DRA claims between Pods and their PodGroup."""

from __future__ import annotations
