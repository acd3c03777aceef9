"""The scheduler's node filters for one pod shape: Ready / unschedulable (NodeUnschedulable),
taints and tolerations (TaintToleration: NoSchedule and NoExecute), nodeSelector and required node
affinity (NodeAffinity, every operator), nodeName (NodeName).

`exclusion()` returns the first reason a node is excluded, in the scheduler's filter order (the
default plugins' order in kubernetes/kubernetes pkg/scheduler/apis/config/v1/default_plugins.go:
NodeUnschedulable, NodeName, TaintToleration, NodeAffinity; Kueue TAS also drops tainted nodes
before matching selectors), so per-reason counts match theirs. It is worded as the report counts
it (`taint "nvidia.com/gpu=true:NoSchedule" not tolerated`), or None when the node passes.
"""

from __future__ import annotations

from waslint.feasibility.model import NodeInfo, Taint
from waslint.objects.shapes import PodShape, Requirement, Term, Toleration

HARD_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"

NOT_READY = "not Ready"
UNSCHEDULABLE = "unschedulable (cordoned)"
NODE_NAME = "nodeName names another node"
NODE_SELECTOR = "nodeSelector does not match"
NODE_AFFINITY = "required node affinity does not match"
DRAINED = "drained (--drain)"


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """v1 Toleration.ToleratesTaint: empty effect matches every effect; empty key with Exists
    matches every taint; Equal compares values (Exists ignores them)."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator == "Exists":
        return True
    if toleration.operator in ("Equal", ""):
        return bool(toleration.key) and toleration.value == taint.value
    return False


def untolerated_taint(shape: PodShape, node: NodeInfo) -> Taint | None:
    for taint in node.taints:
        if taint.effect not in HARD_EFFECTS:
            continue
        if not any(tolerates(toleration, taint) for toleration in shape.tolerations):
            return taint
    return None


def requirement_matches(requirement: Requirement, node: NodeInfo) -> bool:
    if requirement.key == "metadata.name":
        present, value = True, node.name
    else:
        present, value = requirement.key in node.labels, node.labels.get(requirement.key, "")
    operator = requirement.operator
    if operator == "In":
        return present and value in requirement.values
    if operator == "NotIn":
        return not present or value not in requirement.values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt"):
        if not present or len(requirement.values) != 1:
            return False
        try:
            have, bound = int(value), int(requirement.values[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False  # an unknown operator is rejected by validation; it matches nothing


def term_matches(term: Term, node: NodeInfo) -> bool:
    """A term with no requirements matches no node (v1 NodeSelectorTerm semantics)."""
    return bool(term) and all(requirement_matches(requirement, node) for requirement in term)


def exclusion(shape: PodShape, node: NodeInfo) -> str | None:
    if not node.ready:
        return NOT_READY
    if node.unschedulable and not any(
        tolerates(t, Taint(UNSCHEDULABLE_TAINT, "", "NoSchedule")) for t in shape.tolerations
    ):
        return UNSCHEDULABLE
    if shape.node_name is not None and shape.node_name != node.name:
        return NODE_NAME
    taint = untolerated_taint(shape, node)
    if taint is not None:
        return f'taint "{taint}" not tolerated'
    for key, value in shape.node_selector:
        if node.labels.get(key) != value:
            return NODE_SELECTOR
    if shape.affinity and not any(term_matches(term, node) for term in shape.affinity):
        return NODE_AFFINITY
    return None
