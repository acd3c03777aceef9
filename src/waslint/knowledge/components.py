"""The Kubernetes components that read feature gates, by their binary names: apart from the gate
table (`gates.py`) so that lint's lookups name the control plane without loading the table's
types."""

from __future__ import annotations

APISERVER = "kube-apiserver"
SCHEDULER = "kube-scheduler"
CONTROLLER_MANAGER = "kube-controller-manager"
KUBELET = "kubelet"
COMPONENTS = (APISERVER, SCHEDULER, CONTROLLER_MANAGER, KUBELET)
CONTROL_PLANE = (APISERVER, SCHEDULER, CONTROLLER_MANAGER)
