"""WAS501 queue-limit-unset."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.quotas.common import find_queue
from waslint.objects.keys import KAI_QUEUE
from waslint.objects.kobject import KObject, as_map, as_str
from waslint.objects.quantity import number, show

QUEUE_RESOURCES = ("gpu", "cpu", "memory")


UNITS = {"gpu": "GPUs", "cpu": "millicores", "memory": "MB"}


@register
class QueueLimitUnset(Rule):
    code = "WAS501"
    name = "queue-limit-unset"
    severity = Severity.ERROR
    summary = "A KAI Queue resource has a quota but no limit (KAI reads it as 0), or a limit above its parent's."
    what = (
        "For every `scheduling.run.ai/v2` Queue and each of `spec.resources.gpu`, `cpu` and"
        " `memory`: fires when `quota` is set (any value, `-1` included) but `limit` is not, and"
        " when `limit: 0` is paired with a non-zero `quota` (`-1`, unlimited, counts as non-zero)."
        ' `limit: 0` with `quota: 0` is read as a deliberate "none of this resource" and left'
        " alone, and so is a resource section without a quota. For a child queue"
        " (`spec.parentQueue`), it also fires when the child's limit is higher than its parent's"
        " (parent from the set, else from `--snapshot`); a child limit of `-1` under a finite"
        " parent is fine (it just inherits the parent's cap)."
    )
    why = (
        "KAI has no default for `limit`: an unset limit is the Go zero value, and"
        " `isOverLimit` only skips the check for `-1`. Every pod of the queue that requests that"
        " resource is refused with `OverLimit ... Limit is 0`, whatever the quota says, and the"
        " Queue is accepted by the webhook without a warning. A child limit above the parent's is"
        " never reachable (the limit is checked up the parent chain) and misleads whoever sizes"
        " workloads from the child queue."
    )
    example = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: ml-team
spec:
  parentQueue: research
  resources:
    gpu:
      quota: 4            # no limit: KAI caps the queue at 0 GPUs
      overQuotaWeight: 1
"""
    use_instead = """\
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: ml-team
spec:
  parentQueue: research
  resources:
    gpu:
      quota: 4
      limit: -1           # unlimited (still capped by the parent's limit)
      overQuotaWeight: 1
"""
    kinds = frozenset({KAI_QUEUE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.version != "v2":
            return
        queue = as_str(obj.metadata.get("name")) or "<unnamed>"
        resources = as_map(obj.spec.get("resources"))
        for resource in QUEUE_RESOURCES:
            section = resources.get(resource)
            if not isinstance(section, dict):
                continue
            quota = number(section.get("quota"))
            limit_set = section.get("limit") is not None
            limit = number(section.get("limit"))
            unit = UNITS[resource]
            if quota is not None and not limit_set:
                advice = f"Set {resource}.limit: -1 (unlimited)"
                if quota > 0:
                    advice += f" or a limit of at least {_amount(quota, unit)}"
                yield self.hit(
                    obj,
                    ("spec", "resources", resource),
                    f'Queue "{queue}": {resource} has quota {_amount(quota, unit)} but no limit;'
                    f" KAI reads an unset limit as 0 and rejects every {resource} request of this"
                    f" queue (OverLimit ... Limit is 0). {advice}",
                )
            elif limit == 0 and quota is not None and quota != 0:
                yield self.hit(
                    obj,
                    ("spec", "resources", resource, "limit"),
                    f'Queue "{queue}": {resource} has limit 0 but quota {_amount(quota, unit)};'
                    f" KAI refuses every {resource} request of this queue (OverLimit ... Limit is"
                    f" 0), so the quota can never be used. Set {resource}.limit: -1 (unlimited)"
                    " or a limit of at least the quota",
                )
        yield from self._parent(obj, ctx, queue, resources)

    def _parent(self, obj: KObject, ctx: Context, queue: str, resources: dict[str, Any]) -> Iterator[Hit]:
        parent_name = as_str(obj.spec.get("parentQueue"))
        if not parent_name:
            return
        parent = find_queue(ctx, parent_name)
        if parent is None or parent is obj:
            return
        parent_resources = as_map(parent.spec.get("resources"))
        for resource in QUEUE_RESOURCES:
            limit = number(as_map(resources.get(resource)).get("limit"))
            parent_limit = number(as_map(parent_resources.get(resource)).get("limit"))
            if limit is None or parent_limit is None or limit < 0 or parent_limit < 0:
                continue
            if limit > parent_limit:
                unit = UNITS[resource]
                yield self.hit(
                    obj,
                    ("spec", "resources", resource, "limit"),
                    f'Queue "{queue}": {resource} limit {_amount(limit, unit)} exceeds the limit'
                    f' of its parent queue "{parent_name}" ({_amount(parent_limit, unit)}); KAI'
                    " checks limits up the parent chain, so the child can never use more than"
                    f" {_amount(parent_limit, unit)}. Lower the child's limit, use -1 to inherit"
                    " the parent's, or raise the parent's",
                )


def _amount(value: Decimal, unit: str) -> str:
    if value < 0:
        return "-1 (unlimited)"
    return f"{show(value)} {unit}"
