"""WAS401 dangling-podgroup-ref."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.references.common import close_name, names_of, templated
from waslint.objects.keys import (
    PODGROUP,
)
from waslint.objects.kobject import KObject
from waslint.objects.walks import POD_TEMPLATE_KINDS, pod_templates


@register
class DanglingPodGroupRef(Rule):
    code = "WAS401"
    name = "dangling-podgroup-ref"
    severity = Severity.WARNING
    summary = "`spec.schedulingGroup.podGroupName` names a PodGroup that the set does not define."
    what = (
        "For every Pod and pod template (Deployment, StatefulSet, Job, CronJob, JobSet,"
        " LeaderWorkerSet, Volcano Job...) with `spec.schedulingGroup.podGroupName`, looks the"
        " PodGroup up by name in the object's namespace across every file of the run. It fires only"
        " when the set holds at least one PodGroup of that namespace: then the manifests are the"
        " source of the namespace's PodGroups and a missing one is almost always a typo or a file"
        " left out. When the namespace has no PodGroup in the set the rule stays silent, because"
        " the group may be created by a controller (the Job controller, JobSet, Kueue...). The"
        " message names the missing PodGroup, the namespace and the closest existing name."
    )
    why = (
        "The Pod is accepted by the API server (the PodGroup may legitimately be created later), so"
        " nothing fails at apply time. The scheduler then keeps the Pod in PreEnqueue until the"
        " PodGroup exists: the gang waits forever with no event pointing at the typo."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: ml
spec:
  schedulingPolicy:
    gang:
      minCount: 2
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
spec:
  schedulingGroup:
    podGroupName: trainer-worker    # typo: no such PodGroup in ml
  containers:
  - name: main
    image: trainer:1.0
"""
    use_instead = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
spec:
  schedulingGroup:
    podGroupName: trainer-workers
  containers:
  - name: main
    image: trainer:1.0
"""
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "schedulingGroup"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        index = ctx.index
        namespace = obj.namespace
        if not index.has_kind_in_namespace(*PODGROUP, namespace):
            return
        for template in pod_templates(obj):
            joined = template.membership.pod_group
            if joined is None or templated(joined.value):
                continue
            group = joined.value
            if index.get(*PODGROUP, namespace, group) is not None:
                continue
            present = [pg for pg in index.of_kind(*PODGROUP) if pg.namespace == namespace]
            hint = close_name(group, (pg.name for pg in present if pg.name))
            yield self.hit(
                obj,
                joined.path,
                f'PodGroup "{group}" is not defined in namespace "{namespace}"{hint}; the set'
                f" defines PodGroups {names_of(present)} there. The pods stay Pending (the"
                " scheduler waits for the PodGroup to exist): fix podGroupName or add the PodGroup",
            )
