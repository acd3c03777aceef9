"""The feature-gate table (`feature-gates.yaml`): stage, default, components and dependencies of
each gate per release."""

from __future__ import annotations

import functools

from waslint.core.records import dataclass
from waslint.knowledge.components import APISERVER as APISERVER
from waslint.knowledge.components import COMPONENTS as COMPONENTS
from waslint.knowledge.components import CONTROL_PLANE as CONTROL_PLANE
from waslint.knowledge.components import CONTROLLER_MANAGER as CONTROLLER_MANAGER
from waslint.knowledge.components import KUBELET as KUBELET
from waslint.knowledge.components import SCHEDULER as SCHEDULER
from waslint.knowledge.releases import Release, parse_release
from waslint.knowledge.tables import load_table

# kubeadm ClusterConfiguration section -> component
KUBEADM_SECTIONS = {
    "apiServer": APISERVER,
    "scheduler": SCHEDULER,
    "controllerManager": CONTROLLER_MANAGER,
}

# Where the gate inventory can come from; the rules word their advice after it.
STATIC_POD = "static-pod"
KUBELET_CONFIG = "kubelet-config"
KUBEADM_CLUSTER = "kubeadm-cluster"
KUBEADM_NODE = "kubeadm-node"
KIND = "kind"
GATES_FILE = "gates-file"
PATCHED = "patched"  # Where.section of a kind Cluster whose kubeadmConfigPatches set feature-gates


# --------------------------------------------------------------------------- the gate table


@dataclass(frozen=True)
class GateRelease:
    """A feature gate in one release: stage, default and the gates it depends on."""

    release: Release
    stage: str | None
    default: bool | None
    depends_on: tuple[str, ...]
    depends_confirmed: bool
    removed: bool
    merged_into: str | None
    confirmed: bool
    note: str | None


@dataclass(frozen=True)
class GateInfo:
    """A feature gate: what it does, the components that read it, its releases."""

    name: str
    summary: str
    components: tuple[str, ...]
    components_confirmed: bool
    components_note: str | None
    releases: dict[Release, GateRelease]

    def at(self, release: Release | str) -> GateRelease | None:
        parsed = parse_release(release)
        return self.releases.get(parsed) if parsed is not None else None

    @property
    def first_release(self) -> Release:
        return min(self.releases)


@functools.cache
def gate_table() -> dict[str, GateInfo]:
    raw = load_table("feature-gates.yaml")
    table: dict[str, GateInfo] = {}
    for name, entry in raw["gates"].items():
        releases: dict[Release, GateRelease] = {}
        for text, row in entry["releases"].items():
            release = parse_release(str(text))
            if release is None:
                raise ValueError(f"feature-gates.yaml: {name}: {text!r} is not a release")
            releases[release] = GateRelease(
                release=release,
                stage=row.get("stage"),
                default=row.get("default"),
                depends_on=tuple(row.get("depends_on") or ()),
                depends_confirmed=row.get("depends_confidence", "confirmed") == "confirmed",
                removed=bool(row.get("removed", False)),
                merged_into=row.get("merged_into"),
                confirmed=row.get("confidence", "confirmed") == "confirmed",
                note=row.get("note"),
            )
        table[name] = GateInfo(
            name=name,
            summary=entry.get("summary", ""),
            components=tuple(entry["components"]),
            components_confirmed=entry.get("components_confidence", "confirmed") == "confirmed",
            components_note=entry.get("components_note"),
            releases=releases,
        )
    return table


def gate_info(name: str) -> GateInfo | None:
    return gate_table().get(name)
