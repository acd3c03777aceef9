"""WAS302 elastic-gang."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.sizing.common import job_gang, job_prefix
from waslint.objects.groups import MIN_COUNT
from waslint.objects.keys import (
    JOB_KINDS,
)
from waslint.objects.kobject import KObject, as_map, dig
from waslint.objects.walks import (
    job_pods,
)


@register
class ElasticGang(Rule):
    code = "WAS302"
    name = "elastic-gang"
    severity = Severity.WARNING
    summary = "A Job's gang minCount is smaller than its parallelism: a partial world may start."
    what = (
        "Fires when Job `spec.scheduling.schedulingPolicy.gang.minCount` (or a CronJob"
        " jobTemplate's) is at least 1 but smaller than the Pods the Job runs at once"
        " (`parallelism`, default 1, capped by `completions`). Not when the pod template sets"
        " `schedulingGroup` (the Job controller then ignores `spec.scheduling`; see WAS403), and"
        " only for a target of 1.37 or later. An unset minCount defaults to parallelism and does"
        ' not fire: leaving it unset is the way to say "all of them".'
    )
    why = (
        "The scheduler may admit the gang with only minCount Pods placed and start them while"
        " the rest wait: a training job with a fixed world size (torchrun --nnodes=N, MPI) then"
        " hangs in its first collective, holding the GPUs it got. This is right only when the"
        " framework handles a changing world size (elastic training, independent workers); then"
        " suppress the finding on the Job."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 8
  completions: 8
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 8     # or leave minCount out: it defaults to parallelism
"""
    kinds = JOB_KINDS
    text_trigger = MIN_COUNT

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("beta-api"):
            return
        gang = job_gang(obj)
        if gang is None:
            return
        path, min_count, job_path, job_spec = gang
        if "schedulingGroup" in as_map(dig(job_spec, "template", "spec")):
            return
        prefix = job_prefix(job_path)
        pods = job_pods(job_spec, prefix)
        if pods is None or not 1 <= min_count < pods.pods:
            return
        yield self.hit(
            obj,
            path,
            f"gang minCount {min_count} ({prefix}scheduling.schedulingPolicy.gang.minCount) is"
            f" smaller than {pods.why}: the scheduler may start {min_count} of {pods.pods} Pods"
            " and leave the rest pending. Right only if the framework handles a changing world size"
            f" (elastic training); otherwise set minCount to {pods.pods} or remove it (it"
            " defaults to parallelism)",
        )
