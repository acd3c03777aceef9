"""WAS106 status-condition-renamed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Path, Severity
from waslint.core.patterns import LazyPattern
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.kobject import KObject

_CONDITION = LazyPattern(r"\bPodGroupScheduled\b")


@register
class StatusConditionRenamed(Rule):
    code = "WAS106"
    name = "status-condition-renamed"
    severity = Severity.INFO
    summary = "Tooling reads the PodGroup condition `PodGroupScheduled`, renamed in 1.37."
    what = (
        "Finds the string `PodGroupScheduled` anywhere in a manifest (a `kubectl wait` in a Job's"
        " command, an alert expression, a health check, a status block) when the target is 1.37."
    )
    why = (
        "1.37 names the condition `PodGroupInitiallyScheduled`, and it is an initial-placement"
        " signal: once True it stays True even when members die. Scripts waiting on the old name"
        " hang; dashboards reading it as health are wrong."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: wait-for-gang
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: wait
        image: bitnami/kubectl:1.37
        command: ["kubectl", "wait", "--for=condition=PodGroupScheduled", "podgroup/workers"]
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: wait-for-gang
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: wait
        image: bitnami/kubectl:1.37
        # and check the member Pods for runtime health
        command: ["kubectl", "wait", "--for=condition=PodGroupInitiallyScheduled", "podgroup/workers"]
"""
    kinds = None
    text_trigger = "PodGroupScheduled"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("beta-api"):
            return
        for path, text in _strings_in(obj.data, ()):
            if _CONDITION.search(text):
                yield self.hit(
                    obj,
                    path,
                    "reads PodGroup condition PodGroupScheduled (1.36): in 1.37 it is"
                    " PodGroupInitiallyScheduled, and it only says the gang was placed once (it stays"
                    " True when members fail); check member Pods for runtime health",
                    point_at_key=False,
                    substring="PodGroupScheduled",
                )


def _strings_in(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings_in(item, (*path, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _strings_in(item, (*path, position))
