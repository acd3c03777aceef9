"""WAS502 extended-resource-limits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.quantity import parse_quantity
from waslint.objects.templated import from_action, may_be_written
from waslint.objects.walks import POD_TEMPLATE_KINDS, containers, pod_templates


def is_extended_resource(name: str) -> bool:
    """Domain-prefixed and not native (`kubernetes.io/...` and `requests.*` are not extended)."""
    return "/" in name and "kubernetes.io/" not in name and not name.startswith("requests.")


@register
class ExtendedResourceLimits(Rule):
    code = "WAS502"
    name = "extended-resource-limits"
    severity = Severity.ERROR
    summary = "A container requests an extended resource (GPU...) without an equal limit."
    what = (
        "For every container, init container and ephemeral container of every pod template"
        " (Pod, Deployment, StatefulSet, DaemonSet, Job, CronJob, JobSet, LeaderWorkerSet,"
        " Volcano Job...), fires when `resources.requests` names an extended resource (a"
        " domain-prefixed name outside `kubernetes.io`, such as `nvidia.com/gpu`, `amd.com/gpu`,"
        " `example.com/foo`) and `resources.limits` does not name it, or names it with a"
        ' different quantity (`1` and `"1"` are equal). A limit alone is fine: the request'
        " defaults to it."
    )
    why = (
        "Extended resources cannot be overcommitted: the API server rejects a Pod whose request"
        ' has no limit ("Limit must be set for non overcommitable resources") or differs from'
        ' it ("must be equal to ... limit"). For a Deployment or Job the manifest applies'
        " fine and the controller fails to create pods, visible only in its events."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
        resources:
          requests:
            nvidia.com/gpu: 1     # no limit
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
        resources:
          limits:
            nvidia.com/gpu: 1     # the request defaults to the limit
"""
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "requests"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        for template in pod_templates(obj):
            for list_name, position, container in containers(template.spec):
                resources = container.get("resources")
                if not isinstance(resources, dict):
                    continue
                requests = resources.get("requests")
                if not isinstance(requests, dict):
                    continue
                label = as_str(container.get("name")) or f"{list_name}[{position}]"
                base: Path = (*template.path, list_name, position, "resources")
                if from_action(resources.get("limits")) or may_be_written(obj, base):
                    continue  # a template action writes the limits: known once rendered
                limits = as_map(resources.get("limits"))
                for resource, request in requests.items():
                    if not isinstance(resource, str) or not is_extended_resource(resource):
                        continue
                    if request is None:
                        continue
                    yield from self._compare(obj, base, label, resource, request, limits)

    def _compare(
        self,
        obj: KObject,
        base: Path,
        label: str,
        resource: str,
        request: Any,
        limits: dict[str, Any],
    ) -> Iterator[Hit]:
        if limits.get(resource) is None:
            yield self.hit(
                obj,
                (*base, "requests", resource),
                f'container "{label}" requests {resource}: {request} without a limit; the API'
                " server rejects the Pod (extended resources cannot be overcommitted). Set"
                f" resources.limits.{resource}: {request} (or only the limit: the request"
                " defaults to it)",
                structural=True,  # whatever the request renders to
            )
            return
        limit = limits[resource]
        wanted, given = parse_quantity(request), parse_quantity(limit)
        parsed = wanted is not None and given is not None
        same = wanted == given if parsed else str(request) == str(limit)
        if not same:
            yield self.hit(
                obj,
                (*base, "requests", resource),
                f'container "{label}" requests {resource}: {request} but its limit is {limit};'
                " the API server rejects the Pod (an extended resource's request must equal its"
                " limit). Make them equal",
            )
