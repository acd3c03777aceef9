"""WAS8xx: runtime hygiene, read from stored objects and their status (a live audit, or a
`kubectl get -o yaml` dump of one), never from manifests: every rule judges only objects the API
server wrote (with a creationTimestamp or uid), so a manifest never fires, not even one that
carries a `status` (a blog post's example).

Thresholds (config `runtime:`): `orphan-after` and `stuck-deletion-after`, in seconds or with a
unit (`90s`, `30m`, `2h`, `1d`); both default to one hour. A rule that needs the Pods (or the
PodGroups) of the cluster stays silent when they were not read: in a live audit, when the list was
refused or limited to other namespaces; in files, when the set holds no stored object of that kind
in the judged object's namespace (Pod manifests say nothing of what runs).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable
from typing import Any

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.lookups import STORED_WORD
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.index import MEMBER_WORD
from waslint.objects.kobject import SCHEDULING, KObject, as_int, as_list, as_map, as_str, dig

PODGROUP = (SCHEDULING, "PodGroup")
COMPOSITE = (SCHEDULING, "CompositePodGroup")
WORKLOAD = (SCHEDULING, "Workload")
POD = ("", "Pod")
CLAIM_KINDS = frozenset({("resource.k8s.io", "ResourceClaim")})
DEFAULT_THRESHOLDS = {"orphan-after": 3600.0, "stuck-deletion-after": 3600.0}
# The scheduling condition per kind and version line: 1.37 names it InitiallyScheduled, 1.36 Scheduled.
SCHEDULED_CONDITIONS = ("PodGroupInitiallyScheduled", "PodGroupScheduled", "CompositePodGroupInitiallyScheduled")


def threshold(ctx: Context, name: str) -> float:
    return ctx.runtime.thresholds.get(name, DEFAULT_THRESHOLDS[name])


def now(ctx: Context) -> datetime.datetime:
    return ctx.derive("runtime-now", lambda _ctx: datetime.datetime.now(datetime.timezone.utc))


def parse_time(value: Any) -> datetime.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.timezone.utc)


def age_text(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


def stamp(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def stored(obj: KObject) -> bool:
    """Whether the API server wrote the object (a live read, a `kubectl get -o yaml` dump): it has a
    metadata.creationTimestamp or uid. A manifest (from git, or a blog post with a `status`) never has."""
    metadata = obj.metadata
    return metadata.get(STORED_WORD) is not None or metadata.get("uid") is not None


def listed(ctx: Context, group: str, kind: str, namespace: str) -> bool:
    """Whether the run read every object of that kind in that namespace (so absence means absent):
    in a live audit, the lists it was allowed; in files, stored objects of that kind in that
    namespace (a manifest in git says nothing of what a cluster holds)."""
    live = ctx.runtime.listed_kinds
    if live is not None:
        scope = live.get((group, kind))
        return scope is not None and (scope == "*" or namespace in scope)
    if (group, kind) == POD:
        return namespace in stored_namespaces(ctx)
    return any(stored(obj) and obj.namespace == namespace for obj in ctx.index.of_kind(group, kind))


def stored_namespaces(ctx: Context) -> frozenset[str]:
    """The namespaces of the set's Pods that the API server wrote (a dump, a snapshot)."""

    def build(context: Context) -> frozenset[str]:
        pods = context.index.mentioning(STORED_WORD, kinds=[POD])
        return frozenset(pod.namespace for pod in pods if pod.metadata.get(STORED_WORD) is not None)

    return ctx.derive("runtime-stored-pod-namespaces", build)


def members(ctx: Context, namespace: str, pod_group: str) -> list[KObject]:
    """The stored Pods of `namespace` that name the PodGroup (in a live audit every Pod is stored)."""

    def build(context: Context) -> dict[tuple[str, str], list[KObject]]:
        found: dict[tuple[str, str], list[KObject]] = {}
        for pod in context.index.mentioning(MEMBER_WORD, kinds=[POD]):
            name = as_str(dig(pod.data, "spec", "schedulingGroup", "podGroupName"))
            if name is not None and stored(pod):
                found.setdefault((pod.namespace, name), []).append(pod)
        return found

    return ctx.derive("runtime-members", build).get((namespace, pod_group), [])


def scheduling_condition(obj: KObject) -> tuple[int, dict[str, Any]] | None:
    for position, condition in enumerate(as_list(dig(obj.data, "status", "conditions"))):
        if as_map(condition).get("type") in SCHEDULED_CONDITIONS:
            return position, as_map(condition)
    return None


def label(obj: KObject) -> str:
    return f"{obj.kind} {obj.namespace}/{obj.name}"


@register
class OrphanPodGroup(Rule):
    code = "WAS801"
    name = "orphan-podgroup"
    severity = Severity.WARNING
    summary = "A stored PodGroup with no owner and no member Pods, for longer than `orphan-after`."
    what = (
        "For every stored `scheduling.k8s.io` PodGroup (it has a `metadata.creationTimestamp`) that is not"
        " being deleted: fires when it has no `metadata.ownerReferences`, no Pod of its namespace names it in"
        " `spec.schedulingGroup.podGroupName`, and it is older than `runtime: orphan-after` (default 1h)."
        " Silent when the Pods of that namespace were not read (in files: the set holds no stored Pod of that"
        " namespace)."
    )
    why = (
        "Nothing will ever schedule into it or garbage-collect it: the Job or operator that made it is gone,"
        " or it was created by hand. It can keep PodGroup-level ResourceClaims (and the devices allocated"
        " to them) reserved, and it is counted by quota and monitoring as a waiting gang."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: ghost
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"   # no ownerReferences, no Pod names it
spec:
  schedulingPolicy:
    gang:
      minCount: 2
---
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  containers:
  - name: web
    image: web:1
"""
    use_instead = """\
# Delete it (kubectl delete podgroup -n ml ghost), or give it an owner that deletes it:
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: ml
  ownerReferences:
  - apiVersion: batch/v1
    kind: Job
    name: trainer
    uid: 6f1c2b3a-0000-4000-8000-000000000001
spec:
  schedulingPolicy:
    gang:
      minCount: 2
"""
    kinds = frozenset({PODGROUP})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        created = parse_time(obj.metadata.get("creationTimestamp"))
        if created is None or obj.metadata.get("deletionTimestamp") or as_list(obj.metadata.get("ownerReferences")):
            return
        if obj.name is None or not listed(ctx, *POD, obj.namespace) or members(ctx, obj.namespace, obj.name):
            return
        age = (now(ctx) - created).total_seconds()
        if age < threshold(ctx, "orphan-after"):
            return
        yield self.hit(
            obj,
            ("metadata", "name"),
            f"{label(obj)} has no owner and no member Pods, and was created {stamp(created)} (more than"
            f" orphan-after {age_text(threshold(ctx, 'orphan-after'))} ago): delete it, or re-create the workload"
            " that should own it (it may hold PodGroup-level ResourceClaims)",
            point_at_key=False,
        )


@register
class OrphanClaim(Rule):
    code = "WAS802"
    name = "orphan-claim"
    severity = Severity.WARNING
    summary = "A ResourceClaim reserved for a PodGroup that no longer exists, or allocated with no consumer."
    what = (
        "For every stored ResourceClaim: fires when `status.reservedFor` names a `podgroups` consumer of"
        " `scheduling.k8s.io` that is not in the cluster (silent when the PodGroups of that namespace were not"
        " read), and when `status.allocation` is set but `status.reservedFor` is empty for longer than"
        " `runtime: orphan-after`."
    )
    why = (
        "An allocated claim holds its devices: with its PodGroup gone, or no consumer at all, the GPUs are"
        " allocated to nobody and no other Pod can use them until the claim is deleted."
    )
    example = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared-gpus
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec: {}
status:
  allocation: {}     # allocated, and reserved for nobody
"""
    use_instead = """\
# Delete the claim (kubectl delete resourceclaim -n ml shared-gpus); claims made from a
# PodGroup's resourceClaimTemplateName are owned by the PodGroup and go with it.
"""
    kinds = CLAIM_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        created = parse_time(obj.metadata.get("creationTimestamp"))
        if created is None:
            return
        status = as_map(obj.data.get("status"))
        reserved = as_list(status.get("reservedFor"))
        for position, consumer in enumerate(reserved):
            entry = as_map(consumer)
            if entry.get("resource") != "podgroups" or entry.get("apiGroup") != SCHEDULING:
                continue
            name = as_str(entry.get("name"))
            if name is None or not listed(ctx, *PODGROUP, obj.namespace):
                continue
            if not any(stored(group) for group in ctx.index.get_all(*PODGROUP, obj.namespace, name)):
                yield self.hit(
                    obj,
                    ("status", "reservedFor", position, "name"),
                    f"{label(obj)} is reserved for PodGroup {obj.namespace}/{name}, which does not exist: its devices"
                    " are held for nobody; delete the claim",
                    point_at_key=False,
                )
        age = (now(ctx) - created).total_seconds()
        if "allocation" in status and not reserved and age >= threshold(ctx, "orphan-after"):
            yield self.hit(
                obj,
                ("status", "allocation"),
                f"{label(obj)} is allocated but reserved for no consumer (created {stamp(created)}, more than"
                f" orphan-after {age_text(threshold(ctx, 'orphan-after'))} ago): its devices are unusable until it is"
                " deleted",
            )


@register
class DegradedGang(Rule):
    code = "WAS803"
    name = "degraded-gang"
    severity = Severity.WARNING
    summary = "A gang that was scheduled whole now runs fewer members than its minCount."
    what = (
        "For every stored PodGroup whose scheduling condition (`PodGroupInitiallyScheduled`, 1.36"
        " `PodGroupScheduled`) is `True` and whose policy is `gang`: fires when fewer of the Pods that name it"
        " in `spec.schedulingGroup.podGroupName` are `Running` than `gang.minCount`. Silent when the Pods of"
        " that namespace were not read (in files: the set holds no stored Pod of that namespace). Manifests are"
        " never judged, even with a `status`: only stored objects (with a creationTimestamp or uid)."
    )
    why = (
        "Gang scheduling guarantees all-or-nothing at admission only. `PodGroupInitiallyScheduled` stays True"
        " after members fail or are evicted, so the gang looks healthy while a distributed job is stalled"
        " waiting for peers, holding the GPUs of the members that are left."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  schedulingPolicy:
    gang:
      minCount: 2          # only 1 member Pod is Running
status:
  conditions:
  - type: PodGroupInitiallyScheduled
    status: "True"
    reason: Scheduled
    message: ""
    lastTransitionTime: "2026-01-01T00:01:00Z"
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer-0
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  schedulingGroup:
    podGroupName: trainer-workers
  containers:
  - name: main
    image: main:1
status:
  phase: Failed
"""
    use_instead = """\
# Restart the job as a whole (the Job's podFailurePolicy / JobSet failurePolicy can do it), or
# lower gang.minCount (mutable in v1beta1) if the job can run with fewer members.
"""
    kinds = frozenset({PODGROUP})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not stored(obj):
            return
        found = scheduling_condition(obj)
        min_count = as_int(dig(obj.data, "spec", "schedulingPolicy", "gang", "minCount"))
        if found is None or found[1].get("status") != "True" or min_count is None or obj.name is None:
            return
        if obj.metadata.get("deletionTimestamp") or not listed(ctx, *POD, obj.namespace):
            return
        pods = members(ctx, obj.namespace, obj.name)
        phases = Counter(as_str(dig(pod.data, "status", "phase")) or "Unknown" for pod in pods)
        running = phases.get("Running", 0)
        if running >= min_count:
            return
        seen = ", ".join(f"{count} {phase}" for phase, count in sorted(phases.items())) or "no member Pods"
        yield self.hit(
            obj,
            ("spec", "schedulingPolicy", "gang", "minCount"),
            f"{label(obj)} was scheduled as a gang but only {running} of its minCount {min_count} members are"
            f" Running ({seen}): the job is likely stalled while holding the remaining members' resources",
            point_at_key=False,
        )


@register
class StuckDeletion(Rule):
    code = "WAS804"
    name = "stuck-deletion"
    severity = Severity.WARNING
    summary = "A Workload, PodGroup or CompositePodGroup has been deleting for longer than `stuck-deletion-after`."
    what = (
        "For every stored Workload, PodGroup and CompositePodGroup: fires when `metadata.deletionTimestamp` is"
        " older than `runtime: stuck-deletion-after` (default 1h). The message names the finalizers left."
    )
    why = (
        "A finalizer whose controller is gone (an uninstalled scheduler plugin, an operator scaled to zero)"
        " blocks deletion forever: the name cannot be reused, a re-created Job's PodGroup collides with it,"
        " and its claims stay allocated."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: stuck
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
  deletionTimestamp: "2026-01-02T00:00:00Z"
  finalizers:
  - example.com/cleanup
spec:
  schedulingPolicy:
    gang:
      minCount: 1
"""
    use_instead = """\
# Bring back the controller that owns the finalizer, or, once you know nothing needs it:
# kubectl patch podgroup -n ml stuck --type=merge -p '{"metadata":{"finalizers":null}}'
"""
    kinds = frozenset({WORKLOAD, PODGROUP, COMPOSITE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        deleting = parse_time(obj.metadata.get("deletionTimestamp"))
        if deleting is None or not stored(obj):
            return
        age = (now(ctx) - deleting).total_seconds()
        if age < threshold(ctx, "stuck-deletion-after"):
            return
        finalizers = [str(item) for item in as_list(obj.metadata.get("finalizers"))]
        held = f"finalizers {', '.join(finalizers)} still set" if finalizers else "no finalizer left"
        yield self.hit(
            obj,
            ("metadata", "deletionTimestamp"),
            f"{label(obj)} has been deleting since {stamp(deleting)}, longer than stuck-deletion-after"
            f" {age_text(threshold(ctx, 'stuck-deletion-after'))} ({held}): the controller that should remove the"
            " finalizer is not running",
            point_at_key=False,
        )


@register
class UnschedulableGang(Rule):
    code = "WAS805"
    name = "unschedulable-gang"
    severity = Severity.INFO
    summary = "A PodGroup or CompositePodGroup the scheduler reports Unschedulable."
    what = (
        "For every stored PodGroup and CompositePodGroup: fires when its scheduling condition"
        " (`PodGroupInitiallyScheduled`, `PodGroupScheduled` in 1.36, `CompositePodGroupInitiallyScheduled`)"
        " is `False` with reason `Unschedulable`. The message carries the scheduler's message and the"
        " `waslint feasibility` command that explains where the gang could go."
    )
    why = (
        "An unschedulable gang waits forever without an event on the Job; the scheduler's message names one"
        " failed attempt. A feasibility check on a capture of the same cluster shows whether the gang can fit"
        " at all (how many members fit in the best topology domain and what excluded the other nodes)."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: too-big
  namespace: ml
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  schedulingPolicy:
    gang:
      minCount: 64
status:
  conditions:
  - type: PodGroupInitiallyScheduled
    status: "False"
    reason: Unschedulable
    message: 0/8 nodes are available
    lastTransitionTime: "2026-01-01T00:01:00Z"
"""
    use_instead = """\
# waslint snapshot capture -o cluster.json
# waslint feasibility --snapshot cluster.json deploy/   # why the gang cannot be placed, and where it could
"""
    kinds = frozenset({PODGROUP, COMPOSITE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        found = scheduling_condition(obj)
        if (
            not stored(obj)
            or found is None
            or found[1].get("status") != "False"
            or found[1].get("reason") != "Unschedulable"
        ):
            return
        position, condition = found
        said = as_str(condition.get("message"))
        scheduler = f': "{said}"' if said else ""
        yield self.hit(
            obj,
            ("status", "conditions", position, "reason"),
            f"{label(obj)} is Unschedulable{scheduler}; run `waslint snapshot capture -o cluster.json` and"
            " `waslint feasibility --snapshot cluster.json` on its manifest to see why it cannot be placed",
            point_at_key=False,
        )
