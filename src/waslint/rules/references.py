"""WAS4xx: references and ownership."""

from __future__ import annotations
