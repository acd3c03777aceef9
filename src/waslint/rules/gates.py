"""WAS7xx: feature gates."""

from __future__ import annotations
