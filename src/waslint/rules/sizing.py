"""WAS3xx: gang sizing."""

from __future__ import annotations
