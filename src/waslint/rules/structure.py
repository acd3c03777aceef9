"""WAS6xx: structure and topology."""

from __future__ import annotations
