"""WAS000 unused-suppression."""

from __future__ import annotations

from waslint.core.model import Severity
from waslint.lint.registry import Rule, register


@register
class UnusedSuppression(Rule):
    code = "WAS000"
    name = "unused-suppression"
    severity = Severity.INFO
    summary = "A waslint suppression (annotation or comment) that suppresses nothing."
    what = (
        "Reports a `waslint.io/ignore` annotation, `# waslint: ignore[...]` or"
        " `# waslint: ignore-file[...]` comment that did not suppress any finding in this run."
    )
    why = (
        "Stale suppressions hide the next real finding at that place. A suppression naming a rule"
        " that this run did not select is not reported (it may be used by another run)."
    )
    example = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    waslint.io/ignore: WAS302   # nothing here triggers WAS302
"""
    use_instead = """\
# remove the annotation (or the comment) that suppresses nothing
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
"""
