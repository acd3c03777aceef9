"""WAS1xx: API migration. 1.35/1.36 WAS objects and fields on a 1.37 cluster."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from waslint.core.model import Path, Severity
from waslint.knowledge.lifecycle import lifecycle_entry, preferred_entry
from waslint.knowledge.releases import Release, fix_target
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import LEGACY_DISRUPTION_MODES, groups_of
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import WAS_KINDS, KObject, as_map, as_str
from waslint.objects.walks import POD_TEMPLATE_KINDS, pod_templates

WAS_OBJECT_KINDS = frozenset((SCHEDULING, kind) for kind in WAS_KINDS)
LEGACY_DISRUPTION = {legacy: f"{{{mode}: {{}}}}" for legacy, mode in LEGACY_DISRUPTION_MODES.items()}


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
    kinds = WAS_OBJECT_KINDS

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


@register
class AlphaApiInUse(Rule):
    code = "WAS102"
    name = "alpha-api-in-use"
    severity = Severity.WARNING
    fix_title = "change the apiVersion to scheduling.k8s.io/v1beta1 (same schema)"
    other_severities = (Severity.INFO,)
    summary = "An alpha WAS apiVersion is used where the target serves a beta one."
    what = (
        "Workload/PodGroup at `scheduling.k8s.io/v1alpha3` when the target serves `v1beta1`: the"
        " schemas are identical, the fix is the apiVersion alone. CompositePodGroup `v1alpha3` gets"
        " `info`: it exists only as alpha and needs the CompositePodGroup gate."
    )
    why = (
        "Alpha versions need `--runtime-config` on the API server, can change without notice and"
        " are removed without conversion (as v1alpha2 was in 1.37). v1beta1 is the version to store."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 8
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 8
"""
    kinds = WAS_OBJECT_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        entry = lifecycle_entry(obj.group, obj.version, obj.kind)
        if entry is None or not entry.served_in(ctx.target) or entry.stage != "alpha":
            return
        preferred = preferred_entry(obj.group, obj.kind, ctx.target)
        if preferred is not None and preferred.stage != "alpha":
            yield self.hit(
                obj,
                ("apiVersion",),
                f"{obj.api_version} {obj.kind} is alpha; Kubernetes {ctx.target} serves"
                f" {preferred.api_version} with the same schema: change the apiVersion (`waslint fix`)",
                fixable=ctx.target == fix_target(),
            )
        elif entry.notice:
            yield self.hit(obj, ("apiVersion",), entry.notice, severity=Severity.INFO, fixable=False)


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


@register
class LegacyTemplateRef(Rule):
    code = "WAS104"
    name = "legacy-template-ref"
    severity = Severity.ERROR
    fix_title = "move spec.podGroupTemplateRef.workload to spec.workloadRef (podGroupTemplateName becomes templateName)"
    summary = "PodGroup `spec.podGroupTemplateRef.workload` (1.36) is `spec.workloadRef` in 1.37."
    what = (
        "Flags `spec.podGroupTemplateRef.workload.{workloadName,podGroupTemplateName}` on a"
        " PodGroup when the target is 1.37."
    )
    why = (
        "The field was renamed: 1.37 rejects `podGroupTemplateRef` as unknown, and without"
        " `workloadRef` the PodGroup is no longer tied to its Workload's template."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  podGroupTemplateRef:
    workload:
      workloadName: training
      podGroupTemplateName: workers
  schedulingPolicy:
    gang:
      minCount: 4
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 4
"""
    kinds = frozenset({(SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("beta-api") or "podGroupTemplateRef" not in obj.spec:
            return
        workload = as_map(as_map(obj.spec["podGroupTemplateRef"]).get("workload"))
        name = as_str(workload.get("workloadName")) or "<workload>"
        template = as_str(workload.get("podGroupTemplateName")) or "<template>"
        yield self.hit(
            obj,
            ("spec", "podGroupTemplateRef"),
            "spec.podGroupTemplateRef.workload is the 1.36 shape, unknown to 1.37: write"
            f" spec.workloadRef: {{workloadName: {name}, templateName: {template}}}",
        )


@register
class LegacyPodWorkloadRef(Rule):
    code = "WAS105"
    name = "legacy-pod-workload-ref"
    severity = Severity.ERROR
    fix_title = "add a PodGroup object and point spec.schedulingGroup.podGroupName at it (--unsafe-fixes)"
    summary = "A Pod or pod template uses `spec.workloadRef` (1.35), removed in 1.36."
    what = (
        "Flags `spec.workloadRef` in a Pod or in the pod template of any workload kind when the"
        " target is 1.36 or later."
    )
    why = (
        "Since 1.36 a Pod joins its gang through `spec.schedulingGroup.podGroupName`, naming a"
        " PodGroup object; `workloadRef` is gone from PodSpec and the Pod would be scheduled alone"
        " (or rejected). The fix (opt-in, `--unsafe-fixes`, because it adds objects) creates one"
        " PodGroup per (workload, podGroup, replicaKey) with the template's policy and points the"
        " Pod at it."
    )
    example = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  workloadRef:
    name: training
    podGroup: workers
  containers:
  - name: main
    image: trainer:1.0
"""
    use_instead = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
spec:
  schedulingGroup:
    podGroupName: training-workers
  containers:
  - name: main
    image: trainer:1.0
"""
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "workloadRef"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not ctx.target_at_least("scheduling-group"):
            return
        for template in pod_templates(obj):
            reference = template.spec.get("workloadRef")
            if reference is None:
                continue
            reference = as_map(reference)
            workload = as_str(reference.get("name")) or "<workload>"
            group = as_str(reference.get("podGroup")) or "<podGroup>"
            replica = as_str(reference.get("podGroupReplicaKey"))
            replica_note = f", replica key {replica!r}" if replica else ""
            # The fix copies the template's policy into the new PodGroup: it needs the Workload.
            known = ctx.index.get(SCHEDULING, "Workload", obj.namespace, workload) is not None
            advice = (
                "(`waslint fix --unsafe-fixes` does both)"
                if known
                else "(`waslint fix --unsafe-fixes` does both when the Workload's manifest is linted with it)"
            )
            yield self.hit(
                obj,
                (*template.path, "workloadRef"),
                f"spec.workloadRef (1.35) was removed in 1.36: create a PodGroup for Workload"
                f" {workload!r} template {group!r}{replica_note} and set"
                f" spec.schedulingGroup.podGroupName to its name {advice}",
                fixable=known,
            )


_CONDITION = re.compile(r"\bPodGroupScheduled\b")


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
