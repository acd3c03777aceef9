"""What the cross-object rules (and the fixes lint previews) read from the set beyond the object
they check. A streamed lint (lint/engine.py) keeps whole values only for the files that may hold
these, indexes them, and checks every other file on its own before dropping its values; its
index refuses any lookup not declared here (objects/index.py: UndeclaredLookup), so a rule that
starts reading a new kind fails its tests until the kind is added.
"""

from __future__ import annotations

from waslint.knowledge.components import CONTROL_PLANE
from waslint.objects.gate_sources import SOURCE_KINDS
from waslint.objects.index import Lookups
from waslint.objects.keys import (
    COMPOSITE,
    COSCHEDULING_PODGROUP,
    KAI_MIN_MEMBER,
    KAI_PODGROUP,
    KAI_QUEUE,
    MEMBER_WORD,
    PODGROUP,
    PRIORITY_CLASS,
    SCHEDULER_MEMBER_WORDS,
    VOLCANO_JOB,
    VOLCANO_PODGROUP,
    WORKLOAD,
)

RESOURCE = "resource.k8s.io"
STORED_WORD = "creationTimestamp"  # objects the API server wrote (a dump, a snapshot): WAS8xx

# Static Pods are read (gate inventory) when their text names a control-plane component; the
# other gate sources are kinds of their own.
GATE_SOURCE_KINDS = frozenset(kind for kind in SOURCE_KINDS if kind != ("", "Pod"))

POD = ("", "Pod")


def cluster_wide(group: str, kind: str, text: str) -> bool:
    """Whether rules read a namespaced object together with every namespace's objects: the gate
    sources (the gate inventory reads every static Pod of the control plane, kube-system's, with
    the kubeadm and kubelet configurations; a Pod counts only with a command line naming a
    component, objects/gate_inventory.py). Every other namespaced object is read with its own
    namespace's objects and cluster-scoped ones only: an audit lints a cluster a group of
    namespaces at a time, each with the cluster-scoped and cluster-wide objects (audit/run.py)."""
    if (group, kind) == POD:
        has_command_line = '"command"' in text or '"args"' in text
        return has_command_line and any(word in text for word in CONTROL_PLANE)
    return (group, kind) in GATE_SOURCE_KINDS


RULE_LOOKUPS = Lookups(
    kinds=frozenset(
        {
            PODGROUP,
            WORKLOAD,
            COMPOSITE,
            PRIORITY_CLASS,
            (RESOURCE, "ResourceClaimTemplate"),
            (RESOURCE, "ResourceClaim"),
            KAI_QUEUE,
            KAI_PODGROUP,
            VOLCANO_JOB,
            VOLCANO_PODGROUP,
            COSCHEDULING_PODGROUP,
        }
        | GATE_SOURCE_KINDS
    ),
    words=frozenset({MEMBER_WORD, STORED_WORD, KAI_MIN_MEMBER, *SCHEDULER_MEMBER_WORDS, *CONTROL_PLANE}),
)
