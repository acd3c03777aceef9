"""What the WAS7xx rules share: the run's gate inventory, hits at inventory places, the advice on enabling a gate."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Path, Severity, Span
from waslint.knowledge.gates import (
    CONTROL_PLANE,
    KIND,
    KUBEADM_CLUSTER,
    KUBEADM_NODE,
    KUBEADM_SECTIONS,
    KUBELET,
    KUBELET_CONFIG,
    PATCHED,
    STATIC_POD,
)
from waslint.lint.context import Context
from waslint.lint.lookups import GATE_SOURCE_KINDS
from waslint.lint.registry import Hit, Place, Rule
from waslint.objects.gate_inventory import GateState, Inventory, Where, build_inventory
from waslint.objects.keys import POD
from waslint.objects.kobject import KObject

SECTION_OF = {component: section for section, component in KUBEADM_SECTIONS.items()}


def inventory_of(ctx: Context) -> Inventory:
    """The run's gate inventory, built once and shared through the context."""
    return ctx.derive("gate-inventory", _build_inventory)


def _build_inventory(ctx: Context) -> Inventory:
    # the gate sources lint/lookups.py declares: their kinds, and the static Pods that name a
    # control-plane component
    objects = ctx.index.select(GATE_SOURCE_KINDS, mentioning=CONTROL_PLANE, among=[POD])
    if ctx.gates is None:
        return build_inventory(objects)
    return build_inventory(objects, ctx.gates.gates, ctx.gates.document, ctx.gates.path, ctx.gates.from_metrics)


def hit_at(rule: Rule, where: Where, message: str, severity: Severity | None = None) -> Hit:
    """A hit at an inventory place: a field of an object in the set, or a line of --gates FILE."""
    if where.obj is not None:
        return rule.hit(where.obj, where.path, message, severity=severity)
    span = where.doc.locate(where.path) if where.doc is not None else Span(1, 1, 1, 1)
    place = Place(where.file_path or "-", span, 0, where.doc)
    return Hit(rule, None, where.path, message, severity, place=place)


def enable_advice(component: str, gates: list[str], where: Where | None) -> str:
    """Which flag or field to change to turn gates on, worded after the source of the component."""
    flag = ",".join(f"{gate}=true" for gate in gates)
    fields = ", ".join(f"{gate}: true" for gate in gates)
    source = where.source if where is not None else None
    if source == STATIC_POD:
        return f"add {flag} to --feature-gates of the {component} static Pod"
    if source == KUBEADM_CLUSTER and where is not None:
        return f"add {flag} to feature-gates in {where.section}.extraArgs of the kubeadm ClusterConfiguration"
    if source == KUBELET_CONFIG:
        return f"set featureGates {{{fields}}} in the KubeletConfiguration"
    if source == KUBEADM_NODE:
        return f"add {flag} to feature-gates in nodeRegistration.kubeletExtraArgs"
    if source == KIND and where is not None and where.section == PATCHED and component in SECTION_OF:
        return (
            f"add {flag} to feature-gates in {SECTION_OF[component]}.extraArgs of the ClusterConfiguration in"
            " the kind Cluster's kubeadmConfigPatches (a patched feature-gates flag replaces the cluster-wide"
            " featureGates for that component)"
        )
    if source == KIND:
        return f"add {fields} under featureGates of the kind Cluster (it reaches every component)"
    if component == KUBELET:
        return f"enable {flag} on the kubelets (KubeletConfiguration featureGates)"
    if where is not None and where.metrics:
        return f"start {component} with --feature-gates={flag} (its /metrics reports it off)"
    return f"start {component} with --feature-gates={flag} (the --gates inventory has it off)"


def components_text(components: Iterable[str]) -> str:
    names = list(dict.fromkeys(components))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def dedupe(states: list[tuple[str, GateState]]) -> list[tuple[str, GateState]]:
    seen: set[tuple[str, KObject | None, Path]] = set()
    kept: list[tuple[str, GateState]] = []
    for component, state in states:
        where = state.where
        key = (component, where.obj if where is not None else None, where.path if where is not None else ())
        if key not in seen:
            seen.add(key)
            kept.append((component, state))
    return kept
