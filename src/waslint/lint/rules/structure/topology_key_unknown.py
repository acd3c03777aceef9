"""WAS603 topology-key-unknown."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from waslint.core.model import Severity
from waslint.knowledge.validation import format_problem
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import Group, groups_of
from waslint.objects.keys import POLICY_KINDS
from waslint.objects.kobject import KObject, as_map, dig
from waslint.objects.pods import pod_request
from waslint.objects.quantity import MILLI, Resources, milli
from waslint.objects.walks import (
    job_parallelism,
    job_spec,
    pod_templates,
)

if TYPE_CHECKING:
    from waslint.sources.snapshot import Snapshot


@register
class TopologyKeyUnknown(Rule):
    code = "WAS603"
    name = "topology-key-unknown"
    severity = Severity.WARNING
    summary = "With --snapshot: a topology key no node carries, or whose domains are too small for the gang."
    what = (
        "With `--snapshot`, checks every `schedulingConstraints.topology` key (Workload templates,"
        " PodGroup, CompositePodGroup, Job / CronJob `spec.scheduling`) against the snapshot's"
        " Nodes. Fires when no node carries the label, and, for a gang, when even the largest"
        " domain (the schedulable nodes that share one value of the key) cannot hold `minCount`"
        " pods (for a Job gang without `minCount`: `parallelism`). When the member pods' requests"
        " are known (a Job's own template, or the Pods of a PodGroup in the set), a node holds as"
        " many pods as its allocatable resources allow; otherwise one pod per node is assumed, the"
        " shape of whole-node GPU workers, and the message says so. Cordoned (unschedulable) nodes"
        " do not count. `waslint feasibility` does the full placement check."
    )
    why = (
        "A topology constraint puts the whole group in one domain. If no node has the label the"
        " group can never be placed, and the scheduler only says the pods are unschedulable: a"
        " typo in the key (`topology.kubernetes.io/zones`) or a label the cluster's nodes do not"
        " carry yet (a rack label set by a node-labelling daemon) strands the job silently."
    )
    example = """\
# waslint lint --snapshot cluster.yaml  (nodes labelled topology.kubernetes.io/zone)
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  schedulingConstraints:
    topology:
    - key: topology.kubernetes.io/zones
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  schedulingConstraints:
    topology:
    - key: topology.kubernetes.io/zone
"""
    kinds = POLICY_KINDS
    text_trigger = "topology"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        snapshot = ctx.snapshot
        if snapshot is None or not snapshot.nodes:
            return
        nodes = snapshot.nodes
        for group in groups_of(obj):
            for constraint in group.topology:
                key = constraint.key
                if key is None or format_problem("k8s-label-key", key) is not None:
                    continue  # WAS601 reports invalid keys
                message = self._key_problem(group, ctx, key, nodes, snapshot)
                if message is not None:
                    yield self.hit(obj, constraint.key_path, message, point_at_key=False)

    def _key_problem(
        self, group: Group, ctx: Context, key: str, nodes: list[KObject], snapshot: Snapshot
    ) -> str | None:
        where = f"the snapshot {snapshot.path}".rstrip()
        carriers = [node for node in nodes if key in as_map(node.metadata.get("labels"))]
        if not carriers:
            known = sorted({k for node in nodes for k in as_map(node.metadata.get("labels"))})
            import difflib  # only for an unknown key: not on every start

            close = difflib.get_close_matches(key, known, n=2, cutoff=0.75)
            hint = (
                f"; did you mean {' or '.join(close)}?"
                if close
                else (f": label the nodes with {key}=<domain>, or use a key they carry")
            )
            return (
                f"no node in {where} ({len(nodes)} nodes) carries the label {key}, so the group can never be"
                f" placed{hint}"
            )
        need = _gang_size(group)
        if need is None or need <= 1:
            return None
        requests = _member_requests(group.obj, ctx)
        domains: Counter[str] = Counter()
        for node in carriers:
            if as_map(node.data.get("spec")).get("unschedulable") is True:
                continue
            value = str(as_map(node.metadata.get("labels")).get(key))
            domains[value] += _pods_per_node(node, requests) if requests else 1
        best_value, best = max(domains.items(), key=lambda item: item[1], default=("", 0))
        if best >= need:
            return None
        if not domains:
            return (
                f"every node in {where} that carries {key} is cordoned (unschedulable); the gang"
                f" of {need} pods cannot be placed"
            )
        if requests:
            return (
                f"the largest {key} domain ({key}={best_value}) has room for {best} of the {need}"
                f" pods the gang needs at once (by the pods' requests and the nodes' allocatable"
                f" in {where}); the gang can never be placed in one domain: lower minCount, use a"
                " wider topology level, or add nodes"
            )
        return (
            f"the largest {key} domain ({key}={best_value}) has {best} schedulable node(s) in"
            f" {where}, fewer than the {need} pods the gang needs at once; it fits only if"
            " several pods share a node: check with `waslint feasibility`, or use a wider"
            " topology level"
        )


def _gang_size(group: Group) -> int | None:
    """The Pods a gang needs at once: its minCount (a Job gang without one: parallelism); None
    for a composite (its size is in groups) or a group that is no gang."""
    gang = group.policy.gang
    if group.composite:
        return None  # a composite's size is in groups, not pods
    count = group.policy.minimum.value
    if group.role == "job":
        if gang is None:
            return None
        job = job_spec(group.obj)
        return count if count is not None else max(job_parallelism(job[1] if job else {}), 1)
    return count


def _member_requests(obj: KObject, ctx: Context) -> Resources:
    """The request of one member pod (objects/pods.py, milli-units), when the members are known:
    a Job's template, or the first Pod/template in the set whose schedulingGroup names this
    PodGroup."""
    if obj.group == "batch":
        templates = pod_templates(obj)
    elif obj.kind == "PodGroup" and obj.name:
        templates = ctx.index.pod_group_members(obj.namespace, obj.name)
    else:
        return {}
    for template in templates:
        requests = {name: amount for name, amount in pod_request(template.spec).items() if amount > 0}
        if requests:
            return requests
    return {}


def _pods_per_node(node: KObject, requests: Resources) -> int:
    allocatable = as_map(dig(node.data, "status", "allocatable"))
    fits: list[int] = []
    for name, wanted in requests.items():
        capacity = milli(allocatable.get(name), round_up=False)
        if capacity is None:
            if name in ("cpu", "memory", "ephemeral-storage"):
                continue  # not recorded in the snapshot: do not guess
            return 0  # an extended resource the node does not have
        fits.append(capacity // wanted)
    pods = milli(allocatable.get("pods"), round_up=False)
    if pods is not None:
        fits.append(pods // MILLI)
    return min(fits) if fits else 1
