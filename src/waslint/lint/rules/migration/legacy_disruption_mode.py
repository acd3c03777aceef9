"""WAS103 legacy-disruption-mode."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import LEGACY_DISRUPTION_MODES, groups_of
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import KObject

LEGACY_DISRUPTION = {legacy: f"{{{mode}: {{}}}}" for legacy, mode in LEGACY_DISRUPTION_MODES.items()}


@register
class LegacyDisruptionMode(Rule):
    code = "WAS103"
    name = "legacy-disruption-mode"
    severity = Severity.ERROR
    fix_title = "rewrite disruptionMode as {single: {}} or {all: {}}"
    summary = "`disruptionMode` is written as a 1.36 string; 1.37 takes `{single: {}}` or `{all: {}}`."
    what = (
        "Flags `disruptionMode: Pod` / `disruptionMode: PodGroup` (the 1.36 string form) in a"
        " Workload template, PodGroup, CompositePodGroup or Job `spec.scheduling` when the target is"
        " 1.37, and any unknown string in every release."
    )
    why = (
        "In 1.37 `disruptionMode` is an object union. The string is rejected by the API server;"
        " `Pod` means `{single: {}}` (pods are disrupted one by one) and `PodGroup` means"
        " `{all: {}}` (the whole gang is disrupted together)."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 4
  disruptionMode: PodGroup
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 4
  disruptionMode:
    all: {}
"""
    kinds = frozenset(
        {
            (SCHEDULING, "Workload"),
            (SCHEDULING, "PodGroup"),
            (SCHEDULING, "CompositePodGroup"),
            ("batch", "Job"),
            ("batch", "CronJob"),
        }
    )

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        object_form = ctx.target_at_least("beta-api")
        for group in groups_of(obj):
            value = group.disruption.raw
            if not isinstance(value, str):
                continue
            field_path = group.disruption.path
            if value not in LEGACY_DISRUPTION:
                yield self.hit(
                    obj,
                    field_path,
                    f"unknown disruptionMode {value!r}: write {{single: {{}}}} (disrupt pods one by one)"
                    " or {all: {}} (disrupt the whole group)"
                    if object_form
                    else f"unknown disruptionMode {value!r}: use Pod or PodGroup",
                    fixable=False,
                )
            elif object_form:
                yield self.hit(
                    obj,
                    field_path,
                    f"disruptionMode: {value} is the 1.36 string form, rejected by 1.37: use"
                    f" disruptionMode: {LEGACY_DISRUPTION[value]}",
                )
