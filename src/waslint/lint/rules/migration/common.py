"""What the WAS1xx rules share."""

from __future__ import annotations

from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import WAS_KINDS

WAS_OBJECT_KINDS = frozenset((SCHEDULING, kind) for kind in WAS_KINDS)
