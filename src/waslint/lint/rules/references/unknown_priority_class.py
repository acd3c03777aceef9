"""WAS405 unknown-priority-class."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Path, Severity
from waslint.lint.context import Context
from waslint.lint.priority import (
    SYSTEM_PRIORITY_CLASSES,
    PriorityClasses,
    is_kai_template,
    priority_classes,
)
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.references.common import close_name, templated
from waslint.objects.keys import (
    COMPOSITE,
    PODGROUP,
    SCHEDULING,
    WORKLOAD,
)
from waslint.objects.kobject import KObject, as_str
from waslint.objects.walks import POD_TEMPLATE_KINDS, GroupTemplate, pod_templates, workload_templates


@register
class UnknownPriorityClass(Rule):
    code = "WAS405"
    name = "unknown-priority-class"
    severity = Severity.WARNING
    other_severities = (Severity.ERROR,)  # templates of one Workload that disagree
    summary = "`priorityClassName` names no PriorityClass; or one Workload's templates disagree on priority."
    what = (
        "Checks `priorityClassName` on Workload templates (the whole tree), PodGroups,"
        " CompositePodGroups and every pod template (Pod, Job, CronJob, Deployment, JobSet...)"
        " against the PriorityClasses of the set and of `--snapshot`, plus the built-in"
        " `system-cluster-critical` and `system-node-critical`. It only runs when the set or the"
        " snapshot holds at least one PriorityClass; with a snapshot, the snapshot is taken as the"
        " cluster's truth. Without one, pods of KAI workloads may also use the classes the KAI"
        " installation creates (`train`, `build-preemptible`, `build`, `inference`)."
        " Separately, and always: templates of one Workload whose `priorityClassName` or"
        " `priority` differ, which upstream validation rejects (validateWorkloadPriority), are an"
        " error, reported once, on the first template that differs from the value most templates"
        " share (ties: the first template), naming the others."
    )
    why = (
        "The Priority admission plugin rejects a Pod, PodGroup or CompositePodGroup whose class"
        " does not exist, so a typo stops the whole gang at creation (for a Job or Deployment, the"
        " controller retries and only its events show why). 1.37 validation requires every"
        " template of one Workload to share `priorityClassName` and `priority`: a Workload with"
        " differing templates is rejected."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority
value: 1000
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  priorityClassName: high-priorty     # typo
  schedulingPolicy:
    gang:
      minCount: 4
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  priorityClassName: high-priority
  schedulingPolicy:
    gang:
      minCount: 4
"""
    kinds = frozenset({WORKLOAD, PODGROUP, COMPOSITE}) | POD_TEMPLATE_KINDS
    text_trigger = "priority"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        classes = priority_classes(ctx)
        if obj.group == SCHEDULING and obj.kind == "Workload":
            yield from self._workload(obj, ctx, classes)
        elif obj.group == SCHEDULING:
            yield from self._reference(obj, ("spec",), obj.spec, classes, False)
        else:
            for template in pod_templates(obj):
                kai = is_kai_template(obj, template)
                yield from self._reference(obj, template.path, template.spec, classes, kai)

    def _reference(
        self, obj: KObject, path: Path, holder: dict[str, Any], classes: PriorityClasses, kai: bool
    ) -> Iterator[Hit]:
        if not classes.known:
            return
        name = as_str(holder.get("priorityClassName"))
        if name is None or templated(name) or classes.exists(name, kai):
            return
        source = (
            "the set and the snapshot"
            if classes.from_set and classes.from_snapshot
            else ("the snapshot" if classes.from_snapshot else "the set")
        )
        candidates = [*classes.values, *SYSTEM_PRIORITY_CLASSES]
        known = sorted(classes.values)
        shown = ", ".join(known[:8]) + (f" and {len(known) - 8} more" if len(known) > 8 else "")
        yield self.hit(
            obj,
            (*path, "priorityClassName"),
            f'PriorityClass "{name}" does not exist in {source}{close_name(name, candidates)}: the'
            f" Priority admission plugin rejects the {_what(obj, path)}. Known classes:"
            f" {shown or 'only the system ones'}",
        )

    def _workload(self, obj: KObject, ctx: Context, classes: PriorityClasses) -> Iterator[Hit]:
        templates = workload_templates(obj)
        for template in templates:
            yield from self._reference(obj, template.path, template.data, classes, False)
        yield from self._shared_priority(obj, ctx, templates)

    def _shared_priority(self, obj: KObject, ctx: Context, templates: list[GroupTemplate]) -> Iterator[Hit]:
        """Upstream's validateWorkloadPriority rejects templates that differ (the detector, at
        `spec`); worded here once, at the first template that differs from what most share."""
        from waslint.lint.rules.input.upstream import owned_issues

        if not ctx.target_at_least("beta-api") or not owned_issues(obj, ctx.target, self.code):
            return
        for field in ("priorityClassName", "priority"):
            values = [template.data.get(field) for template in templates]
            keys = [repr(value) for value in values]
            if len(set(keys)) < 2:
                continue
            counts = Counter(keys)
            best = max(counts.values())
            reference = next(key for key in keys if counts[key] == best)
            shared = values[keys.index(reference)]
            shown = "unset" if shared is None else f"{field}: {shared}"
            differing = [(t, v) for t, v, k in zip(templates, values, keys, strict=True) if k != reference]
            first, value = differing[0]
            names = ", ".join(repr(as_str(t.data.get("name")) or "<unnamed>") for t, _ in differing)
            where = field if field in first.data else "name"
            mine = "unset" if value is None else f"{value}"
            others = f" (also {names})" if len(differing) > 1 else ""
            yield self.hit(
                obj,
                (*first.path, where),
                f'template "{as_str(first.data.get("name")) or "<unnamed>"}" has {field} {mine}{others}'
                f" while the other templates of Workload {obj.namespace}/{obj.name or '<unnamed>'} have"
                f" {shown}: 1.37 rejects a Workload whose templates differ in {field}. Give every"
                " template the same value",
                severity=Severity.ERROR,
            )
            return


def _what(obj: KObject, path: Path) -> str:
    if obj.kind == "Pod" and obj.group == "":
        return "Pod"
    if obj.group == SCHEDULING and obj.kind == "Workload":
        return "PodGroups made from this template"
    if obj.group == SCHEDULING:
        return obj.kind
    return f"pods of this {obj.kind} (its controller retries and reports it only in events)"
