"""What a verdict rests on that feasibility does not model, said next to it: a label or annotation
of a scheduler whose meaning placement does not read (Kueue, KAI-Scheduler, Volcano, coscheduling:
`objects/keys.py` lists per scheduler what is read, `unread_keys` the rest),
and pod-spec terms the filters skip (required inter-pod affinity, topology spread, host ports,
node-affinity fields other than `metadata.name`, volumes bound to zones). A verdict with a caveat
is never stated as certain: the text report marks it and the JSON lists `caveats`.
"""

from __future__ import annotations

from typing import Any

from waslint.feasibility.model import Gang
from waslint.objects.keys import unread_keys
from waslint.objects.kobject import KObject, as_list, as_map

SCHEDULER_NAMES = {"kai": "KAI-Scheduler", "volcano": "Volcano", "kueue": "Kueue", "coscheduling": "coscheduling"}
CAVEATS_SHOWN = 6


def add_caveats(gangs: list[Gang]) -> None:
    for gang in gangs:
        for child in gang.children:
            add_caveats([child])
        found = list(gang.caveats)
        found += _unread(gang)
        for template in gang.templates:
            found += spec_caveats(template.spec)
        gang.caveats = list(dict.fromkeys(found))[:CAVEATS_SHOWN]


def _unread(gang: Gang) -> list[str]:
    """Labels and annotations of a scheduler that `objects/keys.py` does not list as read."""
    holders: list[dict[str, Any]] = []
    for template in gang.templates:
        holders += [template.annotations, template.labels]
    if isinstance(gang.origin, KObject):
        holders += [gang.origin.annotations, gang.origin.labels]
    found = []
    for held in holders:
        for scheduler, key in sorted(unread_keys(held)):
            found.append(
                f"{SCHEDULER_NAMES.get(scheduler, scheduler)} key {key} is not read: the verdict does not apply it"
            )
    return found


def spec_caveats(spec: dict[str, Any]) -> list[str]:
    """Pod-spec terms the node filters skip."""
    found = []
    affinity = as_map(spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        if as_list(as_map(affinity.get(kind)).get("requiredDuringSchedulingIgnoredDuringExecution")):
            found.append(f"required {kind} (InterPodAffinity) is not modelled")
    spread = [as_map(item) for item in as_list(spec.get("topologySpreadConstraints"))]
    if any(item.get("whenUnsatisfiable", "DoNotSchedule") == "DoNotSchedule" for item in spread):
        found.append("topologySpreadConstraints with DoNotSchedule (PodTopologySpread) are not modelled")
    required = as_map(as_map(affinity.get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution"))
    for term in as_list(required.get("nodeSelectorTerms")):
        for field in as_list(as_map(term).get("matchFields")):
            key = as_map(field).get("key")
            if key != "metadata.name":
                found.append(f"nodeAffinity matchFields on {key} is skipped (only metadata.name is read)")
    containers = [*as_list(spec.get("containers")), *as_list(spec.get("initContainers"))]
    if any(as_map(port).get("hostPort") for c in containers for port in as_list(as_map(c).get("ports"))):
        found.append("host ports (NodePorts) are not modelled")
    if any(as_map(volume).get("persistentVolumeClaim") for volume in as_list(spec.get("volumes"))):
        found.append("persistent volumes' node affinity (VolumeBinding, VolumeZone) is not modelled")
    return found
