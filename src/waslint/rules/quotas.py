"""WAS5xx: limits and quotas."""

from __future__ import annotations
