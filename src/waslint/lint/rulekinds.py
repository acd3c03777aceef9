"""The kinds each rule can fire on, by kind name, beside the codes table (`lint/codes.py`): a run
imports only the rules whose kinds occur in its input (a file of Workloads needs none of the Pod
rules). A rule that is not listed here, or is listed as None, is imported whatever the input holds:
the input rules (parse errors, unused suppressions, kustomize builds), the renamed status
conditions (any kind) and the gangs placed on --snapshot. The feature-gate rules fire only on a
set with a gate source (a static Pod, a kubeadm or kind config, a KubeletConfiguration) or on a
run given --gates.
tests/test_rulekinds.py checks each row against the rule's own `kinds` and against every fixture:
a rule run on a set holding none of its kinds yields nothing.

The names are kinds without their group: a superset, cheap to tell from a file's text before it is
parsed. A streamed file whose text named no kind of the index but whose objects hold one (a kind
spelled with escapes) starts the run again with every file parsed (lint/stream.py)."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.objects.gate_sources import SOURCE_KINDS

_GROUPS = frozenset({"Workload", "PodGroup", "CompositePodGroup"})
_JOBS = frozenset({"Job", "CronJob"})
_POD_TEMPLATES = frozenset(
    {
        "Pod",
        "PodTemplate",
        "Deployment",
        "ReplicaSet",
        "ReplicationController",
        "StatefulSet",
        "DaemonSet",
        "JobSet",
        "LeaderWorkerSet",
    }
    | _JOBS
)

# Not a kind: what a set holds when the run is given feature gates (--gates FILE, audit's /metrics).
GATES_INPUT = "--gates"
# The gate rules read the gate inventory, which only these kinds and --gates fill
# (objects/gate_sources.py; Pods for the static Pods of the control plane).
_GATE_SOURCES = frozenset({kind for _, kind in SOURCE_KINDS} | {GATES_INPUT})

KINDS: dict[str, frozenset[str] | None] = {
    "WAS000": None,
    "WAS001": None,
    "WAS002": _GROUPS | _POD_TEMPLATES,
    "WAS003": _GROUPS | _POD_TEMPLATES,
    "WAS004": _POD_TEMPLATES,
    "WAS005": None,
    "WAS101": _GROUPS,
    "WAS102": _GROUPS,
    "WAS103": _GROUPS | _JOBS,
    "WAS104": frozenset({"PodGroup", "CompositePodGroup"}),
    "WAS105": _POD_TEMPLATES,
    "WAS106": None,
    "WAS201": _POD_TEMPLATES,
    "WAS202": frozenset({"PodGroup"}) | _JOBS,
    "WAS203": frozenset({"Workload", "PodGroup"}) | _JOBS,
    "WAS204": _GROUPS | _POD_TEMPLATES,
    "WAS301": _JOBS,
    "WAS302": _JOBS,
    "WAS303": _GROUPS,
    "WAS304": frozenset({"PodGroup", "CompositePodGroup"}),
    "WAS305": _JOBS | frozenset({"JobSet", "LeaderWorkerSet", "PodGroup"}),
    "WAS306": _GROUPS | _JOBS | frozenset({"JobSet", "LeaderWorkerSet"}),
    "WAS401": _POD_TEMPLATES,
    "WAS402": frozenset({"PodGroup", "CompositePodGroup"}),
    "WAS403": _JOBS | frozenset({"PodGroup", "CompositePodGroup"}),
    "WAS404": _POD_TEMPLATES,
    "WAS405": _GROUPS | _POD_TEMPLATES,
    "WAS501": frozenset({"Queue"}),
    "WAS502": _POD_TEMPLATES,
    "WAS503": _POD_TEMPLATES - {"PodTemplate"},
    "WAS601": _GROUPS | _JOBS,
    "WAS602": _GROUPS | _JOBS,
    "WAS603": _GROUPS | _JOBS,
    "WAS604": _GROUPS | _JOBS,
    "WAS605": _GROUPS | _JOBS,
    "WAS606": None,
    "WAS607": frozenset({"PodGroup", "CompositePodGroup"}),
    "WAS701": _GATE_SOURCES,
    "WAS702": _GATE_SOURCES,
    "WAS703": _GATE_SOURCES,
    "WAS801": frozenset({"PodGroup"}),
    "WAS802": frozenset({"ResourceClaim"}),
    "WAS803": frozenset({"PodGroup"}),
    "WAS804": _GROUPS,
    "WAS805": frozenset({"PodGroup", "CompositePodGroup"}),
}

# Every kind name some row lists: an object of another kind needs no listed rule.
NAMED = frozenset(name for kinds in KINDS.values() if kinds is not None for name in kinds) - {GATES_INPUT}


def kinds_in_text(texts: Iterable[str]) -> set[str]:
    """The listed kind names some text holds (a superset of its objects' kinds, bar escapes)."""
    found: set[str] = set()
    for text in texts:
        found.update(name for name in NAMED - found if name in text)
        if len(found) == len(NAMED):
            break
    return found


def may_fire(code: str, kinds: set[str] | frozenset[str]) -> bool:
    """Whether the rule of `code` can fire on a set whose objects' kinds are among `kinds`."""
    listed = KINDS.get(code)
    return listed is None or not listed.isdisjoint(kinds)
