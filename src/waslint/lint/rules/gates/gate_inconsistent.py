"""WAS701 gate-inconsistent."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.knowledge.gates import (
    KIND,
    gate_table,
)
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.gates.common import components_text, dedupe, enable_advice, hit_at, inventory_of
from waslint.objects.gate_inventory import GateState, Where


@register
class GateInconsistent(Rule):
    code = "WAS701"
    name = "gate-inconsistent"
    severity = Severity.ERROR
    other_severities = (Severity.WARNING,)  # components not confirmed: a warning
    summary = "A gate is on for some of the components that need it and off on others."
    what = (
        "Builds the gate inventory of the run (kube-apiserver, kube-scheduler and"
        " kube-controller-manager static Pods, KubeletConfiguration, kubeadm ClusterConfiguration"
        " and node configurations, kind Cluster configs, `--gates FILE`) and, for every WAS gate of"
        " the target release, compares the components that must agree (from the gate table):"
        " GenericWorkload on kube-apiserver, kube-scheduler and kube-controller-manager;"
        " DRAWorkloadResourceClaims also on the kubelet; and so on. It fires on each component"
        " instance that has the gate off while another has it on, including two instances of one"
        " component (an HA control plane whose static Pods differ). A gate is off where it is set"
        " to false, or where the component is configured by a source that does not set it and the"
        " gate is off by default in the target release. A component no source covers is unknown"
        " and never reported. Gates whose component list is not confirmed are reported as"
        " warnings."
    )
    why = (
        "A half-enabled gate fails quietly: the API server accepts and stores PodGroups while the"
        " scheduler without GenericWorkload schedules their pods one by one (no gang), or the"
        " kubelet without DRAWorkloadResourceClaims does not prepare the PodGroup's shared claim."
        " Every component that reads a gate must agree, and every instance of a component too."
    )
    example = """\
# The API server has GenericWorkload, the scheduler does not (off by default in 1.37).
apiVersion: v1
kind: Pod
metadata:
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
  - name: kube-apiserver
    image: registry.k8s.io/kube-apiserver:v1.37.0
    command:
    - kube-apiserver
    - --feature-gates=GenericWorkload=true
---
apiVersion: v1
kind: Pod
metadata:
  name: kube-scheduler
  namespace: kube-system
spec:
  containers:
  - name: kube-scheduler
    image: registry.k8s.io/kube-scheduler:v1.37.0
    command:
    - kube-scheduler
    - --kubeconfig=/etc/kubernetes/scheduler.conf
"""
    use_instead = """\
apiVersion: v1
kind: Pod
metadata:
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
  - name: kube-apiserver
    image: registry.k8s.io/kube-apiserver:v1.37.0
    command:
    - kube-apiserver
    - --feature-gates=GenericWorkload=true
---
apiVersion: v1
kind: Pod
metadata:
  name: kube-scheduler
  namespace: kube-system
spec:
  containers:
  - name: kube-scheduler
    image: registry.k8s.io/kube-scheduler:v1.37.0
    command:
    - kube-scheduler
    - --kubeconfig=/etc/kubernetes/scheduler.conf
    - --feature-gates=GenericWorkload=true
"""
    kinds = frozenset()

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        inventory = inventory_of(ctx)
        if inventory.empty:
            return
        for gate, info in gate_table().items():
            entry = info.at(ctx.target)
            if entry is None or entry.removed:
                continue
            severity = None if info.components_confirmed else Severity.WARNING
            unconfirmed = "" if info.components_confirmed else " (the component list is not confirmed)"
            scopes: dict[object, list[tuple[str, GateState]]] = {}
            for component in info.components:
                for state in inventory.states(component, gate, ctx.target):
                    scopes.setdefault(cluster_scope(state.where), []).append((component, state))
            for states in scopes.values():
                on = dedupe([(c, s) for c, s in states if s.value is True])
                off = dedupe([(c, s) for c, s in states if s.value is False])
                if not on or not off:
                    continue
                on_text = "; ".join(f"{c}: {s.reason}" for c, s in on[:2])
                if len(on) > 2:
                    on_text += f"; and {len(on) - 2} more"
                for component, state in off:
                    if state.where is None:
                        continue
                    yield hit_at(
                        self,
                        state.where,
                        f"{gate} is on for {on_text}, but off on {component} ({state.reason}); {gate}"
                        f" ({info.summary}) must be on for {components_text(info.components)}{unconfirmed}:"
                        f" {enable_advice(component, [gate], state.where)}",
                        severity,
                    )


def cluster_scope(where: Where | None) -> object:
    """Which cluster an inventory place belongs to: each kind Cluster config is a cluster of its
    own; every other source (static Pods, kubeadm, kubelet configs, --gates) is the run's cluster."""
    if where is not None and where.source == KIND and where.obj is not None:
        return where.obj
    return "cluster"
