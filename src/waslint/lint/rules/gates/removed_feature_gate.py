"""WAS703 removed-feature-gate."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Path, Severity
from waslint.knowledge.gates import (
    COMPONENTS,
    GATES_FILE,
    KIND,
    KUBEADM_CLUSTER,
    KUBEADM_NODE,
    KUBELET_CONFIG,
    STATIC_POD,
    gate_info,
)
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.gates.common import components_text, hit_at, inventory_of
from waslint.objects.gate_inventory import Setting, Where
from waslint.objects.kobject import KObject


@register
class RemovedFeatureGate(Rule):
    code = "WAS703"
    name = "removed-feature-gate"
    severity = Severity.ERROR
    summary = "A feature gate that the target release does not know (removed, merged, or not yet added)."
    what = (
        "Every WAS gate set in the inventory (static Pod flags, KubeletConfiguration, kubeadm"
        " extraArgs and kubeletExtraArgs, kind featureGates and patches, `--gates FILE`) is looked"
        " up in the gate table for the target release: GangScheduling and WorkloadAwarePreemption"
        " were folded into GenericWorkload in 1.37, and a 1.36 gate set for a 1.35 target does not"
        " exist yet. Each setting is reported where it is written."
    )
    why = (
        "A Kubernetes component given a feature gate it does not know refuses to start"
        " (`unrecognized feature gate`): an upgrade to 1.37 that keeps GangScheduling=true in the"
        " scheduler's flags leaves the cluster without a scheduler. Whether 1.37 removed those"
        " gates or keeps them as deprecated no-ops is not confirmed upstream; removing them is"
        " right either way, and GenericWorkload=true turns their behaviour on."
    )
    example = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
featureGates:
  GangScheduling: true
"""
    use_instead = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
featureGates:
  GenericWorkload: true
"""
    kinds = frozenset()

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        inventory = inventory_of(ctx)
        places: dict[tuple[KObject | None, Path, str], list[Setting]] = {}
        for setting in inventory.settings:
            info = gate_info(setting.gate)
            if info is None:
                continue
            entry = info.at(ctx.target)
            if entry is not None and not entry.removed:
                continue
            key = (setting.where.obj, setting.where.path, setting.gate)
            places.setdefault(key, []).append(setting)
        for settings in places.values():
            setting = settings[-1]
            info = gate_info(setting.gate)
            assert info is not None
            entry = info.at(ctx.target)
            components = sorted({s.component for s in settings}, key=COMPONENTS.index)
            who = "every component" if len(components) == len(COMPONENTS) else components_text(components)
            value = "true" if setting.value else "false"
            if entry is None:
                message = (
                    f"{setting.gate}={value} on {who}: the gate does not exist in Kubernetes {ctx.target}"
                    f" (it is new in {info.first_release}), and a component given an unknown gate refuses to"
                    f" start: remove it from {_where_words(setting.where)}, or target {info.first_release} or later"
                )
            else:
                merged = f" (folded into {entry.merged_into})" if entry.merged_into else ""
                doubt = (
                    " (upstream has not confirmed whether it is removed or left as a deprecated no-op;"
                    " removing it is right either way)"
                    if not entry.confirmed
                    else ""
                )
                target_info = gate_info(entry.merged_into) if entry.merged_into else None
                instead = (
                    f", and make sure {entry.merged_into}=true is set there instead"
                    if target_info is not None and setting.value and set(components) & set(target_info.components)
                    else ""
                )
                message = (
                    f"{setting.gate}={value} on {who}: Kubernetes {ctx.target} no longer has this gate{merged},"
                    f" and a component given an unknown gate refuses to start{doubt}: remove it from"
                    f" {_where_words(setting.where)}{instead}"
                )
            yield hit_at(self, setting.where, message)


def _where_words(where: Where) -> str:
    if where.metrics:
        return "the component's --feature-gates flag or config file (its /metrics reports it set)"
    if where.source == KIND:
        if where.path[:1] == ("featureGates",):
            return "featureGates of the kind Cluster"
        return "the feature-gates flag in the kind Cluster's kubeadmConfigPatches"
    return {
        STATIC_POD: "the --feature-gates flag of the static Pod",
        KUBELET_CONFIG: "featureGates of the KubeletConfiguration",
        KUBEADM_CLUSTER: "the feature-gates extraArg of the kubeadm ClusterConfiguration",
        KUBEADM_NODE: "the feature-gates kubeletExtraArg",
        GATES_FILE: "the cluster's configuration (the --gates inventory lists it)",
    }.get(where.source, "the configuration")
