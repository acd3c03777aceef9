"""WAS004 quantity-out-of-range: a container's request or limit Kubernetes cannot count."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.quantity import range_problem
from waslint.objects.walks import POD_TEMPLATE_KINDS, containers, pod_templates

_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
  - name: main
    image: trainer:1.0
    resources:
      requests:
        memory: {memory}
"""


@register
class QuantityOutOfRange(Rule):
    code = "WAS004"
    name = "quantity-out-of-range"
    severity = Severity.ERROR
    summary = "A resource quantity is larger than Kubernetes can count (or has an exponent it rejects)."
    what = (
        "For every container, init container and ephemeral container of every pod template, and"
        " the pod-level `resources`, fires when a value of `requests` or `limits` is a quantity"
        " beyond 2^63-1 (`1e5000`, `1e999999999`, `8Ei`), an infinite number, or has a decimal"
        " exponent that is no 64-bit integer."
    )
    why = (
        "Kubernetes reads quantities as 64-bit integers when it schedules and enforces them"
        " (kubernetes/apimachinery pkg/api/resource/quantity.go: `Value`, `MilliValue`; a"
        " binary-suffixed value is capped at 2^63-1 when parsed, and an exponent that does not"
        ' parse as a 64-bit integer is rejected: "unable to parse quantity\'s suffix"). A value'
        " past that is rejected or silently becomes another number; no node can hold it."
    )
    example = _POD.format(memory='"1e5000"')
    use_instead = _POD.format(memory="64Gi")
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "resources"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        for template in pod_templates(obj):
            places: list[tuple[Path, str, object]] = [((*template.path, "resources"), "the pod", template.spec)]
            for list_name, position, container in containers(template.spec):
                label = as_str(container.get("name")) or f"{list_name}[{position}]"
                places.append(((*template.path, list_name, position, "resources"), f'container "{label}"', container))
            for base, label, holder in places:
                resources = as_map(as_map(holder).get("resources"))
                for kind in ("requests", "limits"):
                    for resource, value in as_map(resources.get(kind)).items():
                        problem = range_problem(value)
                        if problem is not None:
                            shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
                            yield self.hit(
                                obj,
                                (*base, kind, resource),
                                f"{label} {kind} {resource}: {shown} {problem}; no node can hold it",
                                point_at_key=False,
                            )
