"""WAS607 composite-hierarchy-invalid, in three parts: a cycle of parents (`parent-cycle`), a
hierarchy deeper than the scheduler walks (`too-deep`), and one hierarchy naming several Workloads
(`several-workloads`).

The hierarchy is the tree of PodGroups and CompositePodGroups that `spec.parentCompositePodGroupName`
links, per namespace (a PodGroup or a CompositePodGroup names a CompositePodGroup as its parent).
kube-scheduler walks from a group up to its root at most WorkloadMaxTreeDepth (4) steps and gives
up on a longer walk with "deeper than the maximum of 4, or contains a cycle" (kubernetes/kubernetes
pkg/scheduler/backend/cache/hierarchy.go `findRootKey`, commit b58fcf1; its test
TestHierarchyWrapper_FindRootKeyForGroup "cycle detected"); the CompositePodGroup then carries
condition reason `Invalid`, whose message names "a detected cycle, exceeding the maximum depth of 4,
or referencing multiple distinct Workloads" (kubernetes/api scheduling/v1alpha3/types.go
CompositePodGroupStatus).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Iterable, Iterator
from dataclasses import field

from waslint.core.model import Severity
from waslint.core.records import dataclass
from waslint.knowledge.imperative import WORKLOAD_MAX_TREE_DEPTH as MAX_TREE_DEPTH
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Part, Rule, register
from waslint.objects.groups import Group, object_group
from waslint.objects.keys import COMPOSITE, PODGROUP
from waslint.objects.kobject import KObject

PARENT_CYCLE = Part(
    "parent-cycle",
    "CompositePodGroups whose `parentCompositePodGroupName` links lead back to themselves (`a` names"
    " `b` as parent and `b` names `a`); reported on each CompositePodGroup of the cycle.",
)
TOO_DEEP = Part(
    "too-deep",
    f"a PodGroup or CompositePodGroup more than {MAX_TREE_DEPTH} levels below its root (the root is"
    f" level 1: a PodGroup under {MAX_TREE_DEPTH} CompositePodGroups); reported on each group at"
    f" level {MAX_TREE_DEPTH + 1}, the first one the scheduler cannot reach. A parent that is not in"
    " the set counts as one more level, so a chain already too deep is reported even then.",
)
SEVERAL_WORKLOADS = Part(
    "several-workloads",
    "the groups of one hierarchy (a root and everything below it, all in the set) name more than"
    " one Workload in `spec.workloadRef.workloadName`; reported on each group that names another"
    " Workload than the root (or, when the root names none, than most groups).",
)


@dataclass(eq=False)
class _Node:
    """One group of the hierarchy: its object, reading and parent (None: a root; a name the set
    does not hold: a missing parent)."""

    obj: KObject
    group: Group
    parent: _Node | None = None
    parent_missing: bool = False
    children: list[_Node] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.obj.kind} {self.obj.namespace}/{self.obj.name}"

    @property
    def workload(self) -> str | None:
        ref = self.group.workload_ref
        return ref.workload if ref is not None and not ref.legacy else None


@register
class CompositeHierarchyInvalid(Rule):
    code = "WAS607"
    name = "composite-hierarchy-invalid"
    severity = Severity.ERROR
    summary = "A CompositePodGroup hierarchy the scheduler marks Invalid: a cycle, too deep, or several Workloads."
    what = (
        "Follows `spec.parentCompositePodGroupName` from every PodGroup and CompositePodGroup of the"
        " set (same namespace) and fires in three parts:"
    )
    parts = (PARENT_CYCLE, TOO_DEEP, SEVERAL_WORKLOADS)
    why = (
        "The API server validates each object alone, so all of them are accepted. kube-scheduler"
        " walks a group's parents to find the root of its hierarchy, at most 4 steps, and gives up"
        " on a cycle or a longer chain: the CompositePodGroup is marked `Invalid` and no pod of the"
        " hierarchy is ever scheduled, while each object looks fine on its own. One hierarchy is one"
        " all-or-nothing placement of one workload: groups made from different Workloads' templates"
        " cannot share it."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata:
  name: job-a
spec:
  parentCompositePodGroupName: job-b
  workloadRef: {workloadName: training, templateName: job}
  schedulingPolicy:
    gang:
      minGroupCount: 1
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata:
  name: job-b
spec:
  parentCompositePodGroupName: job-a
  workloadRef: {workloadName: training, templateName: job}
  schedulingPolicy:
    gang:
      minGroupCount: 1
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata:
  name: job-a
spec:
  parentCompositePodGroupName: job-b
  workloadRef: {workloadName: training, templateName: job}
  schedulingPolicy:
    gang:
      minGroupCount: 1
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata:
  name: job-b            # the root: no parent
spec:
  workloadRef: {workloadName: training, templateName: job}
  schedulingPolicy:
    gang:
      minGroupCount: 1
"""

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        nodes = _hierarchy(ctx)
        in_cycles = yield from self._parent_cycle(nodes)
        yield from self._too_deep(nodes, in_cycles)
        yield from self._several_workloads(nodes, in_cycles)

    # -- parent-cycle

    def _parent_cycle(self, nodes: list[_Node]) -> Generator[Hit, None, set[_Node]]:
        """Hits on the CompositePodGroups of each cycle; returns every node on or below a cycle."""
        on_cycle: set[_Node] = set()
        for start in nodes:
            trail: list[_Node] = []
            node: _Node | None = start
            while node is not None and node not in trail and node not in on_cycle:
                trail.append(node)
                node = node.parent
            if node is None or node in on_cycle or node not in trail:
                continue
            cycle = trail[trail.index(node) :]
            on_cycle.update(cycle)
            for position, member in enumerate(cycle):
                around = [*cycle[position:], *cycle[:position], member]  # the cycle, from this member
                names = " -> ".join(node.obj.name or "<unnamed>" for node in around)
                parent = member.group.parent
                assert parent is not None
                yield self.hit(
                    member.obj,
                    parent.path,
                    f"{member.label} is on a cycle of parents ({names}): kube-scheduler never"
                    " finds the root of this hierarchy and marks it Invalid, so none of its pods"
                    " is scheduled. Make one of them the root (remove its parentCompositePodGroupName)",
                    point_at_key=False,
                )
        return {node for node in nodes if _reaches(node, on_cycle)}

    # -- too-deep

    def _too_deep(self, nodes: list[_Node], in_cycles: set[_Node]) -> Iterator[Hit]:
        for node in nodes:
            if node in in_cycles:
                continue
            chain = _chain(node)
            level = len(chain) + (1 if chain[-1].parent_missing else 0)
            if level != MAX_TREE_DEPTH + 1:
                continue
            parent = node.group.parent
            assert parent is not None
            shown = " -> ".join(member.obj.name or "<unnamed>" for member in chain)
            more = (
                " (its top's parent is not in the set: the chain is longer still)" if chain[-1].parent_missing else ""
            )
            yield self.hit(
                node.obj,
                parent.path,
                f"{node.label} is level {level} of its hierarchy ({shown}){more}; kube-scheduler"
                f" walks at most {MAX_TREE_DEPTH} levels to the root and marks a deeper hierarchy"
                " Invalid, so none of its pods is scheduled. Flatten the hierarchy (at most"
                f" {MAX_TREE_DEPTH} levels, the root included)",
                point_at_key=False,
            )

    # -- several-workloads

    def _several_workloads(self, nodes: list[_Node], in_cycles: set[_Node]) -> Iterator[Hit]:
        for root in nodes:
            if root.parent is not None or root.parent_missing or root in in_cycles or not root.children:
                continue
            members = _subtree(root)
            named = [member for member in members if member.workload is not None]
            workloads = Counter(member.workload for member in named)
            if len(workloads) < 2:
                continue
            main = root.workload or workloads.most_common(1)[0][0]
            shown = ", ".join(sorted(name for name in workloads if name is not None))
            for member in named:
                ref = member.group.workload_ref
                if member.workload == main or ref is None:
                    continue
                yield self.hit(
                    member.obj,
                    (*ref.path, "workloadName"),
                    f"{member.label} names Workload {member.workload!r}, but its hierarchy (root"
                    f" {root.label}) belongs to Workload {main!r}: one hierarchy may reference one"
                    f" Workload (this one names {shown}), so kube-scheduler marks it Invalid. Make the"
                    f" group part of Workload {main!r}, or give it its own hierarchy",
                    point_at_key=False,
                )


def _hierarchy(ctx: Context) -> list[_Node]:
    """The PodGroups and CompositePodGroups of the set (one per identity), linked to their parents."""
    index = ctx.index
    composites: dict[tuple[str, str], _Node] = {}
    nodes: list[_Node] = []
    for kind in (COMPOSITE, PODGROUP):
        for obj in index.of_kind(*kind):
            group = object_group(obj)
            if obj.name is None or group is None or index.get(*kind, obj.namespace, obj.name) is not obj:
                continue  # a copy of an object already read
            node = _Node(obj, group)
            nodes.append(node)
            if kind == COMPOSITE:
                composites[(obj.namespace, obj.name)] = node
    for node in nodes:
        parent = node.group.parent
        if parent is None:
            continue
        found = composites.get((node.obj.namespace, parent.value))
        if found is None:
            node.parent_missing = True
        else:
            node.parent = found
            found.children.append(node)
    return nodes


def _reaches(node: _Node, targets: set[_Node]) -> bool:
    seen: set[_Node] = set()
    current: _Node | None = node
    while current is not None and current not in seen:
        if current in targets:
            return True
        seen.add(current)
        current = current.parent
    return False


def _chain(node: _Node) -> list[_Node]:
    """The node and its ancestors up to the top (the node is not on or below a cycle)."""
    chain = [node]
    while chain[-1].parent is not None:
        chain.append(chain[-1].parent)
    return chain


def _subtree(root: _Node) -> list[_Node]:
    found: list[_Node] = []
    pending = [root]
    while pending:
        node = pending.pop()
        found.append(node)
        pending.extend(reversed(node.children))
    return found
