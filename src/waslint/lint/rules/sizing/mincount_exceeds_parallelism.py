"""WAS301 mincount-exceeds-parallelism."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.sizing.common import job_gang, job_prefix, pods_text
from waslint.objects.groups import MIN_COUNT
from waslint.objects.keys import (
    JOB_KINDS,
)
from waslint.objects.kobject import KObject
from waslint.objects.walks import (
    job_pods,
)


@register
class MinCountExceedsParallelism(Rule):
    code = "WAS301"
    name = "mincount-exceeds-parallelism"
    severity = Severity.ERROR
    summary = "A Job's gang minCount is greater than its parallelism: the gang is never admitted."
    what = (
        "Compares Job `spec.scheduling.schedulingPolicy.gang.minCount` with `spec.parallelism`"
        " (default 1), and the same fields of a CronJob's `jobTemplate`. Also fires when"
        " `completions` is set and smaller than both (the Job controller never runs more Pods"
        " than the completions left, so `min(parallelism, completions)` is the most that can"
        " ever be waiting together). The message gives minCount, parallelism (and completions)"
        " and the field each comes from. Only for a target of 1.37 or later (earlier releases"
        " have no `spec.scheduling`). A missing minCount defaults to parallelism and is fine."
    )
    why = (
        "The gang is admitted only when minCount Pods can be placed together, and the Job"
        " never creates more than parallelism Pods at once: the Pods stay Pending forever."
        " KEP-5547 makes the API server reject minCount > parallelism on create and update"
        " (CronJob jobTemplates included), so the apply fails too."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 8
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
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
        minCount: 8
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
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
        prefix = job_prefix(job_path)
        pods = job_pods(job_spec, prefix)
        if pods is None or min_count <= pods.pods:
            return
        yield self.hit(
            obj,
            path,
            f"gang minCount {min_count} ({prefix}scheduling.schedulingPolicy.gang.minCount) is"
            f" greater than {pods.why}: the Job never runs more than {pods_text(pods.pods)} at once,"
            f" so the gang is never admitted. Set minCount to at most {pods.pods}, or raise"
            " parallelism (and completions) to at least minCount",
        )
