"""The kinds the gate inventory (`gate_inventory.py`) reads feature-gate settings from, one
reader each: apart from the readers so that lint's lookups and rule-kinds index name them without
importing the inventory."""

from __future__ import annotations

SOURCE_KINDS = frozenset(
    {
        ("", "Pod"),  # the static Pods of the control plane
        ("kubelet.config.k8s.io", "KubeletConfiguration"),
        ("kubeadm.k8s.io", "ClusterConfiguration"),
        ("kubeadm.k8s.io", "InitConfiguration"),
        ("kubeadm.k8s.io", "JoinConfiguration"),
        ("kind.x-k8s.io", "Cluster"),
    }
)
