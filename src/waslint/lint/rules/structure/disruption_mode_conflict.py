"""WAS605 disruption-mode-conflict."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.structure.common import holder_label, template_name
from waslint.objects.groups import groups_of, object_group
from waslint.objects.keys import COMPOSITE, POLICY_KINDS
from waslint.objects.kobject import KObject

_NO_GANG = (
    "a basic group is scheduled pod by pod, so there is no gang to keep whole; use a gang policy,"
    " or disruptionMode {single: {}}"
)


@register
class DisruptionModeConflict(Rule):
    code = "WAS605"
    name = "disruption-mode-conflict"
    severity = Severity.WARNING
    other_severities = (Severity.ERROR,)  # a Job: upstream Job validation rejects it
    summary = "disruptionMode `all` with a basic policy, or a composite `all` parent with a `single` child."
    what = (
        "Fires on `disruptionMode: {all: {}}` (1.36: `PodGroup`) in a Workload template,"
        " PodGroup, CompositePodGroup or Job `spec.scheduling` whose scheduling policy is `basic`"
        " (a Job without `schedulingPolicy` is basic); on a composite template with `all` that has"
        " a child template with `single`; and on a PodGroup or CompositePodGroup whose"
        " `parentCompositePodGroupName` names a CompositePodGroup of the set with `all` while the"
        " child is `single` (an unset `disruptionMode` on these objects defaults to `single`)."
    )
    why = (
        "`all` means the group is disrupted (preempted, evicted) only as a whole. A basic group is"
        " scheduled pod by pod and has no all-or-nothing admission to protect, so KEP-5710 forbids"
        " the combination; and an `all` parent promises that its children go together, which a"
        " `single` child breaks by losing pods one at a time (KEP-6012). The API server may not"
        " reject these yet (1.37), so they silently behave unlike what the manifest says. A Job"
        " `spec.scheduling` with `all` and a basic (or no) policy is rejected by the API server's Job"
        " validation: that case is an error (upstream validation detects it, this rule words it)."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    basic: {}
  disruptionMode:
    all: {}
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
    kinds = POLICY_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.group == "batch":
            yield from self._job(obj, ctx)
            return
        for group in groups_of(obj):
            if group.disruption.mode == "all" and group.policy.variant == "basic":
                yield self.hit(
                    obj,
                    group.disruption.path,
                    f"{holder_label(group)}: disruptionMode all (disrupt the whole group together) with"
                    f" a basic policy: {_NO_GANG}",
                )
        if obj.kind == "Workload":
            yield from self._composite_children(obj)
        elif obj.kind in ("PodGroup", "CompositePodGroup"):
            yield from self._parent_object(obj, ctx)

    def _job(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        """A Job's `all` without a gang policy: upstream's Job validation rejects it (the detector);
        an error, worded here."""
        from waslint.lint.rules.input.upstream import group_at, owned_issues

        for issue in owned_issues(obj, ctx.target, self.code):
            group = group_at(obj, issue.path)
            if group is None:
                continue
            basic = "a basic policy" if group.policy.present else "no schedulingPolicy (a Job's default is basic)"
            yield self.hit(
                obj,
                issue.path,
                f"{holder_label(group)}: disruptionMode all (disrupt the whole group together) with {basic}:"
                f" {_NO_GANG} (the API server rejects this Job)",
                severity=Severity.ERROR,
            )

    def _composite_children(self, obj: KObject) -> Iterator[Hit]:
        groups = groups_of(obj)
        mode_of = {group.template.path: group.disruption.mode for group in groups if group.template is not None}
        for group in groups:
            template = group.template
            parent = template.parent if template is not None else None
            if template is None or parent is None or mode_of.get(parent.path) != "all":
                continue
            if group.disruption.mode == "single":
                yield self.hit(
                    obj,
                    group.disruption.path,
                    f"template {template_name(template)!r} is single (pods disrupted one by one) under"
                    f" composite template {template_name(parent)!r}, which is all (children disrupted"
                    " together): make the child all too, or the parent single",
                )

    def _parent_object(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        group = object_group(obj)
        if group is None or group.parent is None:
            return
        parent_name = group.parent.value
        parent = ctx.index.get(*COMPOSITE, obj.namespace, parent_name)
        parent_group = object_group(parent) if parent is not None else None
        if parent_group is None or parent_group.disruption.mode != "all":
            return
        own = group.disruption
        if own.raw is None:
            yield self.hit(
                obj,
                group.parent.path,
                f"this {obj.kind} has no disruptionMode, which defaults to single, but its parent"
                f" CompositePodGroup {parent_name!r} is all (children disrupted together): set"
                " disruptionMode {all: {}} here",
            )
        elif own.mode == "single":
            yield self.hit(
                obj,
                own.path,
                f"disruptionMode single under parent CompositePodGroup {parent_name!r}, which is"
                " all (children disrupted together): make this one all too, or the parent single",
            )
