"""WAS101 api-version-not-served."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.knowledge.lifecycle import lifecycle_entry, preferred_entry
from waslint.knowledge.releases import Release, fix_target
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.keys import WAS_GROUP_KINDS
from waslint.objects.kobject import KObject


@register
class ApiVersionNotServed(Rule):
    code = "WAS101"
    name = "api-version-not-served"
    severity = Severity.ERROR
    fix_title = "rewrite the object as scheduling.k8s.io/v1beta1 (v1alpha3 for CompositePodGroup), mapping every field"
    summary = "The apiVersion/kind is not served by the target Kubernetes release."
    what = (
        "Flags scheduling.k8s.io Workload, PodGroup and CompositePodGroup objects whose apiVersion"
        " the target release does not serve: `v1alpha1` Workload (gone in 1.36), `v1alpha2`"
        " Workload/PodGroup (gone in 1.37), CompositePodGroup in any version but `v1alpha3`, and"
        " (with `--target-version 1.36`/`1.35`) versions that release does not serve yet."
    )
    why = (
        "The API server rejects the manifest, and there is no conversion: objects stored in an old"
        " version are not migrated by the upgrade. Every manifest must be rewritten before moving"
        " to 1.37. `waslint fix` rewrites to `v1beta1` with every field mapping (v1alpha1"
        " `podGroups`/`policy` become `podGroupTemplates`/`schedulingPolicy`)."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata:
  name: trainer-workers
spec:
  schedulingPolicy:
    gang:
      minCount: 4
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
spec:
  schedulingPolicy:
    gang:
      minCount: 4
"""
    kinds = WAS_GROUP_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        entry = lifecycle_entry(obj.group, obj.version, obj.kind)
        if entry is not None and entry.served_in(ctx.target):
            return
        preferred = preferred_entry(obj.group, obj.kind, ctx.target)
        if preferred is None:
            yield self.hit(
                obj,
                ("apiVersion",),
                f"{obj.kind} is not served by Kubernetes {ctx.target} in any version (it is new in"
                f" {_first_release(obj.kind)}); target a release that serves it or remove the object",
                fixable=False,
            )
            return
        if entry is None:
            why = "no Kubernetes release serves this version"
        elif entry.removed is not None and ctx.target >= entry.removed:
            why = f"removed in {entry.removed}; the API server neither serves nor converts it"
        else:
            why = f"new in {entry.introduced}"
        advice = f"rewrite it as {preferred.api_version}"
        mapping = _mapping_note(obj)
        # `waslint fix` knows the mapping of every listed version, and that CompositePodGroup has
        # only one version (v1alpha3) to move to.
        fixable = ctx.target == fix_target() and (entry is not None or obj.kind == "CompositePodGroup")
        if fixable:
            advice += " (`waslint fix` does it)"
        yield self.hit(
            obj,
            ("apiVersion",),
            f"{obj.api_version} {obj.kind} is not served by Kubernetes {ctx.target} ({why}): {advice}{mapping}",
            fixable=fixable,
        )


def _first_release(kind: str) -> Release | str:
    from waslint.knowledge.lifecycle import api_lifecycle

    releases = sorted(e.introduced for e in api_lifecycle() if e.kind == kind)
    return releases[0] if releases else "a later release"


def _mapping_note(obj: KObject) -> str:
    if obj.version == "v1alpha1" and obj.kind == "Workload":
        return "; spec.podGroups becomes spec.podGroupTemplates and each policy becomes schedulingPolicy"
    return ""
