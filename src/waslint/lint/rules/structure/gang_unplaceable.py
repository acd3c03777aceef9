"""WAS606 gang-unplaceable: the feasibility check (`waslint feasibility`) as a lint rule, with --snapshot."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.kobject import KObject


@register
class GangUnplaceable(Rule):
    code = "WAS606"
    name = "gang-unplaceable"
    severity = Severity.ERROR
    summary = "With --snapshot: no all-or-nothing placement exists for the gang on the snapshot's cluster."
    what = (
        "With `--snapshot`, runs the placement engine of `waslint feasibility` over every gang of the set"
        " (WAS PodGroups with their members or their owner's pod template, CompositePodGroups, Jobs with a"
        " `spec.scheduling` gang, KAI PodGroups and `kai.scheduler/batch-min-member`, Volcano and coscheduling"
        " PodGroups): free capacity is the nodes' allocatable minus the requests of the Pods bound to them;"
        " taints, nodeSelector, required node affinity and nodeName filter nodes; all `required` pods must fit"
        " in one domain of the topology key. Each gang is first admitted by the queue it names (KAI, Kueue,"
        " Volcano: their queues in the snapshot or the set, with the use the snapshot records); a gang its"
        " queue does not admit is reported with the queue's words (`queue team-a: limit 8 nvidia.com/gpu, 6 in"
        " use, the gang needs 4`). Gangs are placed in priority order, then file order, each"
        " consuming capacity and its queue's quota. Points at the gang's minimum (`minCount`, `minMember`,"
        " `batch-min-member`); the"
        " message is the feasibility explanation: how many pods fit against how many are required in the best"
        " domain, the nodes excluded by reason, the limiting resource and the fragmentation (free in the"
        " cluster against free in the best domain). Pods in no gang, and gangs whose member Pods are"
        " not in the set (the WAS3xx sizing rules' business), are not reported here (see"
        " `waslint feasibility`)."
    )
    why = (
        "A gang that cannot be placed all-or-nothing stays Pending forever: KAI reports `Resources were found"
        " for 2 pods while 3 are required`, Kueue `topology ... allows to fit only 2 out of 3 pod(s)`, the"
        " 1.37 scheduler `minCount (3) cannot be satisfied`. Finding out in CI beats finding out after hours."
    )
    example = """\
# waslint lint --snapshot snapshot.yaml  (no rack has 3 free 8-GPU nodes)
apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
  namespace: research
spec:
  parallelism: 3
  completions: 3
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 3
    schedulingConstraints:
      topology:
      - key: topology.kubernetes.io/rack
  template:
    spec:
      restartPolicy: Never
      tolerations: [{key: nvidia.com/gpu, operator: Exists}]
      containers:
      - name: trainer
        image: trainer:2.1
        resources: {limits: {nvidia.com/gpu: 8}}
"""
    use_instead = """\
# no rack constraint (or fewer GPUs per pod, or more free nodes in one rack): 4 whole nodes are free
apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
  namespace: research
spec:
  parallelism: 3
  completions: 3
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 3
  template:
    spec:
      restartPolicy: Never
      tolerations: [{key: nvidia.com/gpu, operator: Exists}]
      containers:
      - name: trainer
        image: trainer:2.1
        resources: {limits: {nvidia.com/gpu: 8}}
"""
    kinds = frozenset()
    whole_set_with_snapshot = True  # placement consumes the capacity every Pod of the set requests

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        snapshot = ctx.snapshot
        if snapshot is None or not snapshot.nodes:
            return
        from waslint.feasibility.command import check, message

        _, located = check(snapshot, ctx.index)
        for item in located:
            verdict = item.verdict
            origin = verdict.gang.origin
            if verdict.feasible or not verdict.gang.is_gang or not isinstance(origin, KObject):
                continue
            if verdict.gang.problems:  # members missing from the set: the sizing rules (WAS3xx) say so
                continue
            yield self.hit(origin, verdict.gang.min_path, message(verdict))
