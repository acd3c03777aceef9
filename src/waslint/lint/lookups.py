"""What the cross-object rules (and the fixes lint previews) read from the set beyond the object
they check. A streamed lint (lint/engine.py) keeps whole values only for the files that may hold
these, indexes them, and checks every other file on its own before dropping its values; its
index refuses any lookup not declared here (objects/index.py: UndeclaredLookup), so a rule that
starts reading a new kind fails its tests until the kind is added.
"""

from __future__ import annotations

from waslint.knowledge.gates import CONTROL_PLANE
from waslint.objects.gate_inventory import SOURCE_KINDS
from waslint.objects.index import MEMBER_WORD, Lookups
from waslint.objects.kobject import SCHEDULING
from waslint.objects.walks import (
    COSCHEDULING_LABEL,
    COSCHEDULING_PODGROUP,
    KAI_MIN_MEMBER,
    KAI_PODGROUP,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
)

RESOURCE = "resource.k8s.io"
STORED_WORD = "creationTimestamp"  # objects the API server wrote (a dump, a snapshot): WAS8xx
THIRD_PARTY_MEMBER_WORD = "group-name"  # KAI pod-group-name, Volcano */group-name annotations

# Static Pods are read (gate inventory) when their text names a control-plane component; the
# other gate sources are kinds of their own.
GATE_SOURCE_KINDS = frozenset(kind for kind in SOURCE_KINDS if kind != ("", "Pod"))

RULE_LOOKUPS = Lookups(
    kinds=frozenset(
        {
            (SCHEDULING, "PodGroup"),
            (SCHEDULING, "Workload"),
            (SCHEDULING, "CompositePodGroup"),
            (SCHEDULING, "PriorityClass"),
            (RESOURCE, "ResourceClaimTemplate"),
            (RESOURCE, "ResourceClaim"),
            ("scheduling.run.ai", "Queue"),
            KAI_PODGROUP,
            VOLCANO_JOB,
            VOLCANO_PODGROUP,
            COSCHEDULING_PODGROUP,
        }
        | GATE_SOURCE_KINDS
    ),
    words=frozenset(
        {MEMBER_WORD, STORED_WORD, KAI_MIN_MEMBER, THIRD_PARTY_MEMBER_WORD, COSCHEDULING_LABEL, *CONTROL_PLANE}
    ),
)
