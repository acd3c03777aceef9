"""WAS4xx: references and ownership.

Cross-object rules: a name in one object that must resolve to another object of the set (or of
the `--snapshot`), and objects that disagree about who owns a gang. A reference is only called
dangling when the set could have shown the target: the namespace holds objects of that kind
(WAS401/WAS402) or the set/snapshot holds PriorityClasses at all (WAS405). Otherwise the target
may well be made by a controller or live only in the cluster, and the rules stay silent.
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from waslint.core.model import Path, Severity
from waslint.knowledge.lifecycle import lifecycle_entry
from waslint.lint.context import Context
from waslint.lint.priority import (
    SYSTEM_PRIORITY_CLASSES,
    PriorityClasses,
    is_kai_template,
    priority_classes,
)
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import object_group
from waslint.objects.keys import (
    COMPOSITE,
    COSCHEDULING_LABEL,
    JOB_KINDS,
    KAI_GROUP_ANNOTATION,
    KAI_MIN_MEMBER,
    KAI_QUEUE_LABELS,
    KAI_SCHEDULER,
    KAI_SUBGROUP_LABEL,
    PODGROUP,
    SCHEDULING,
    VOLCANO_GROUP_ANNOTATIONS,
    WORKLOAD,
)
from waslint.objects.kobject import KObject, as_map, as_str, dig
from waslint.objects.members import is_controlled
from waslint.objects.walks import POD_TEMPLATE_KINDS, PodTemplate, pod_templates, workload_templates

GROUP_TEMPLATE_ANNOTATION = "scheduling.k8s.io/group-template-name"


def templated(name: str) -> bool:
    """A name still holding a template placeholder (Helm/Go `{{ }}`, envsubst `${}`): unresolvable."""
    return "{{" in name or "${" in name


def _close(name: str, candidates: Iterable[str]) -> str:
    """', did you mean "x"?' when a candidate is close to name, else ''."""
    found = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.75)
    return f' (did you mean "{found[0]}"?)' if found else ""


def _names(objects: Iterable[KObject], limit: int = 5) -> str:
    names = sorted({name for obj in objects if (name := as_str(obj.metadata.get("name")))})
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _where(obj: KObject) -> str:
    line = obj.doc.locate(obj.full_path(("metadata", "name")), key=True).line
    return f"{obj.file.path}:{line}"


# --------------------------------------------------------------------------- WAS401


@register
class DanglingPodGroupRef(Rule):
    code = "WAS401"
    name = "dangling-podgroup-ref"
    severity = Severity.WARNING
    summary = "`spec.schedulingGroup.podGroupName` names a PodGroup that the set does not define."
    what = (
        "For every Pod and pod template (Deployment, StatefulSet, Job, CronJob, JobSet,"
        " LeaderWorkerSet, Volcano Job...) with `spec.schedulingGroup.podGroupName`, looks the"
        " PodGroup up by name in the object's namespace across every file of the run. It fires only"
        " when the set holds at least one PodGroup of that namespace: then the manifests are the"
        " source of the namespace's PodGroups and a missing one is almost always a typo or a file"
        " left out. When the namespace has no PodGroup in the set the rule stays silent, because"
        " the group may be created by a controller (the Job controller, JobSet, Kueue...). The"
        " message names the missing PodGroup, the namespace and the closest existing name."
    )
    why = (
        "The Pod is accepted by the API server (the PodGroup may legitimately be created later), so"
        " nothing fails at apply time. The scheduler then keeps the Pod in PreEnqueue until the"
        " PodGroup exists: the gang waits forever with no event pointing at the typo."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-workers
  namespace: ml
spec:
  schedulingPolicy:
    gang:
      minCount: 2
---
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
spec:
  schedulingGroup:
    podGroupName: trainer-worker    # typo: no such PodGroup in ml
  containers:
  - name: main
    image: trainer:1.0
"""
    use_instead = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
spec:
  schedulingGroup:
    podGroupName: trainer-workers
  containers:
  - name: main
    image: trainer:1.0
"""
    kinds = POD_TEMPLATE_KINDS
    text_trigger = "schedulingGroup"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        index = ctx.index
        namespace = obj.namespace
        if not index.has_kind_in_namespace(*PODGROUP, namespace):
            return
        for template in pod_templates(obj):
            joined = template.membership.pod_group
            if joined is None or templated(joined.value):
                continue
            group = joined.value
            if index.get(*PODGROUP, namespace, group) is not None:
                continue
            present = [pg for pg in index.of_kind(*PODGROUP) if pg.namespace == namespace]
            hint = _close(group, (pg.name for pg in present if pg.name))
            yield self.hit(
                obj,
                joined.path,
                f'PodGroup "{group}" is not defined in namespace "{namespace}"{hint}; the set'
                f" defines PodGroups {_names(present)} there. The pods stay Pending (the"
                " scheduler waits for the PodGroup to exist): fix podGroupName or add the PodGroup",
            )


# --------------------------------------------------------------------------- WAS402


@register
class DanglingWorkloadRef(Rule):
    code = "WAS402"
    name = "dangling-workload-ref"
    severity = Severity.ERROR
    other_severities = (Severity.WARNING,)
    summary = "A PodGroup/CompositePodGroup `workloadRef` names a missing Workload or template."
    what = (
        "Resolves `spec.workloadRef.{workloadName,templateName}` of every PodGroup and"
        " CompositePodGroup against the Workloads of the same namespace in the set. Error when the"
        " Workload is in the set but has no template of that name anywhere in its tree (nested"
        " composite templates included), or when the template is of the wrong kind (a PodGroup"
        " must name a `podGroupTemplates` entry, a CompositePodGroup a"
        " `compositePodGroupTemplates` entry). Warning when the Workload itself is absent but"
        " the namespace has other Workloads in the set; silent when the namespace has none (the"
        " Workload may be created by a controller or live elsewhere)."
    )
    why = (
        "The API server does not resolve the reference, so the object is accepted. The group then"
        " belongs to no template of its Workload: the template's policy, priority and claims are"
        " not the ones in force, controllers that reconcile the Workload do not recognise the group"
        " as theirs, and a CompositePodGroup fails with condition reason `Invalid`."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: worker          # no such template
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
    kinds = frozenset({PODGROUP, COMPOSITE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        group = object_group(obj)
        reference = group.workload_ref if group is not None else None
        if reference is None or reference.legacy:
            return  # the 1.36 podGroupTemplateRef is WAS104's (it rewrites it)
        workload_name = reference.workload
        if workload_name is None or templated(workload_name):
            return
        namespace = obj.namespace
        workloads = ctx.index.get_all(*WORKLOAD, namespace, workload_name)
        if not workloads:
            if ctx.index.has_kind_in_namespace(*WORKLOAD, namespace):
                present = [wl for wl in ctx.index.of_kind(*WORKLOAD) if wl.namespace == namespace]
                hint = _close(workload_name, (wl.name for wl in present if wl.name))
                yield self.hit(
                    obj,
                    (*reference.path, "workloadName"),
                    f'Workload "{workload_name}" is not defined in namespace "{namespace}"{hint};'
                    f" the set defines Workloads {_names(present)} there. Fix workloadName or"
                    " add the Workload",
                    severity=Severity.WARNING,
                )
            return
        template_name = reference.template
        if template_name is None or templated(template_name):
            return
        kinds_by_name: dict[str, set[bool]] = defaultdict(set)
        for workload in workloads:
            for template in workload_templates(workload):
                name = as_str(template.data.get("name"))
                if name is not None:
                    kinds_by_name[name].add(template.composite)
        want_composite = obj.kind == "CompositePodGroup"
        wanted_list = "compositePodGroupTemplates" if want_composite else "podGroupTemplates"
        fitting = sorted(name for name, kinds in kinds_by_name.items() if want_composite in kinds)
        label = f"Workload {namespace}/{workload_name}"
        if template_name not in kinds_by_name:
            shown = f"it has no {wanted_list}"
            if fitting:
                shown = f"its {wanted_list}: {', '.join(fitting)}"
            yield self.hit(
                obj,
                (*reference.path, "templateName"),
                f'{label} has no template "{template_name}"{_close(template_name, fitting)};'
                f" {shown}. The {obj.kind} is tied to no template: set templateName to one of"
                " them or add the template to the Workload",
            )
        elif want_composite not in kinds_by_name[template_name]:
            actual = "podGroupTemplates" if want_composite else "compositePodGroupTemplates"
            shown = ", ".join(fitting) if fitting else "none"
            yield self.hit(
                obj,
                (*reference.path, "templateName"),
                f'template "{template_name}" of {label} is a {actual} entry, but a {obj.kind}'
                f" must reference a {wanted_list} entry (candidates: {shown})",
            )


# --------------------------------------------------------------------------- WAS403


@dataclass(frozen=True)
class _JobShape:
    spec_path: Path
    spec: dict[str, Any]
    metadata_path: Path
    metadata: dict[str, Any]
    owned_by_parent: bool  # a CronJob's Jobs always have the CronJob as controller owner


def _job_shape(obj: KObject) -> _JobShape | None:
    if obj.kind == "Job":
        return _JobShape(("spec",), obj.spec, ("metadata",), obj.metadata, is_controlled(obj.metadata))
    template = as_map(obj.spec.get("jobTemplate"))
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return None
    base: Path = ("spec", "jobTemplate")
    metadata = as_map(template.get("metadata"))
    return _JobShape((*base, "spec"), spec, (*base, "metadata"), metadata, True)


@register
class DuplicateGroupOwnership(Rule):
    code = "WAS403"
    name = "duplicate-group-ownership"
    severity = Severity.WARNING
    summary = "Two owners claim one gang: a Job's own scheduling is silently ignored, or a PodGroup is defined twice."
    what = (
        "Fires on: (1) a Job (or CronJob `jobTemplate`) with `spec.scheduling` whose pod template"
        " also sets `schedulingGroup`; (2) a Job with the `scheduling.k8s.io/group-template-name`"
        " annotation but no controller owner (`metadata.ownerReferences` entry with"
        " `controller: true`), or with a pod-template `schedulingGroup`; (3) two PodGroups (or"
        " CompositePodGroups) with the same namespace and name, both in apiVersions the target"
        " serves, with different specs: two objects that would both create the same PodGroup."
        " Identical copies are left alone (applying both is idempotent), and so are copies in"
        " versions the target no longer serves (WAS101 reports those)."
    )
    why = (
        "The 1.37 Job controller treats a pod-template `schedulingGroup` as bring-your-own"
        " PodGroup and then manages nothing: `spec.scheduling` (gang, topology, claims) is dropped"
        " without an event, and so is the group-template annotation. The annotation only works on"
        " a Job that a parent controller owns (JobSet, a training operator): on a root Job the"
        " controller ignores it and builds its own Workload and PodGroup instead of the parent's"
        " template. Two different definitions of one PodGroup race: every field is immutable, so"
        " whichever is applied second fails (or a GitOps tool flips between them)."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      schedulingGroup:
        podGroupName: trainer-workers   # the controller now ignores spec.scheduling
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:                 # let the Job controller create the Workload and PodGroup
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    kinds = JOB_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        shape = _job_shape(obj)
        if shape is None:
            return
        pod_spec = as_map(dig(shape.spec, "template", "spec"))
        group = pod_spec.get("schedulingGroup")
        group_name = as_str(as_map(group).get("podGroupName"))
        group_label = f'PodGroup "{group_name}"' if group_name else "its own PodGroup"
        if shape.spec.get("scheduling") is not None and group is not None:
            yield self.hit(
                obj,
                (*shape.spec_path, "scheduling"),
                f"spec.scheduling is ignored: the pod template sets schedulingGroup (joins"
                f" {group_label}), which opts the Job out of controller-managed groups, so the Job"
                " controller creates no Workload/PodGroup and drops this policy silently. Keep one:"
                " remove spec.scheduling, or remove template.spec.schedulingGroup",
            )
        annotations = as_map(shape.metadata.get("annotations"))
        template_name = as_str(annotations.get(GROUP_TEMPLATE_ANNOTATION))
        if template_name is None:
            return
        reasons = []
        if not shape.owned_by_parent:
            reasons.append(
                "the Job has no controller owner (no metadata.ownerReferences entry with"
                " controller: true), so it is a root Job and the controller builds its own Workload"
                " and PodGroup instead"
            )
        if group is not None:
            reasons.append(
                f"the pod template sets schedulingGroup ({group_label}), which opts the Job out"
                " of controller-managed groups"
            )
        if reasons:
            yield self.hit(
                obj,
                (*shape.metadata_path, "annotations", GROUP_TEMPLATE_ANNOTATION),
                f'annotation {GROUP_TEMPLATE_ANNOTATION}: "{template_name}" is ignored: '
                + "; and ".join(reasons)
                + ". The annotation is for Jobs a parent controller (JobSet, an operator)"
                " creates from a template of the parent's Workload: remove it, or let the"
                " parent own the Job",
            )

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        for kind in (PODGROUP, COMPOSITE):
            groups: dict[tuple[str, str], list[KObject]] = defaultdict(list)
            for obj in ctx.index.of_kind(*kind):
                name = as_str(obj.metadata.get("name"))  # generateName never collides
                if name is None or templated(name):
                    continue
                entry = lifecycle_entry(obj.group, obj.version, obj.kind)
                if entry is None or not entry.served_in(ctx.target):
                    continue
                groups[(obj.namespace, name)].append(obj)
            for (namespace, name), same in groups.items():
                yield from self._duplicates(namespace, name, same)

    def _duplicates(self, namespace: str, name: str, same: list[KObject]) -> Iterator[Hit]:
        first = same[0]
        for other in same[1:]:
            differing = _differing_fields(first.data.get("spec"), other.data.get("spec"))
            if not differing:
                continue
            shown = ", ".join(differing[:4]) + (" ..." if len(differing) > 4 else "")
            yield self.hit(
                other,
                ("metadata", "name"),
                f"{other.kind} {namespace}/{name} is also defined at {_where(first)} with a"
                f" different spec ({shown}): both would create the same {other.kind}, its spec is"
                " immutable, so whichever is applied second fails. Keep one definition, or rename"
                " one of them",
            )


def _differing_fields(left: Any, right: Any, path: str = "spec") -> list[str]:
    if isinstance(left, dict) and isinstance(right, dict):
        found: list[str] = []
        for key in sorted(set(left) | set(right), key=str):
            found.extend(_differing_fields(left.get(key), right.get(key), f"{path}.{key}"))
        return found
    return [] if left == right else [path]


# --------------------------------------------------------------------------- WAS404


@dataclass(frozen=True)
class _Marker:
    system: str
    text: str


def _markers(owner: KObject, template: PodTemplate) -> list[_Marker]:
    """The non-native gang systems that claim this pod template."""
    found: list[_Marker] = []
    scheduler = as_str(template.spec.get("schedulerName"))
    if scheduler == KAI_SCHEDULER:
        found.append(_Marker("KAI", f"schedulerName: {scheduler}"))
    elif scheduler == "volcano":
        found.append(_Marker("Volcano", f"schedulerName: {scheduler}"))
    if owner.group == "batch.volcano.sh":
        found.append(_Marker("Volcano", f"the owner is a Volcano {owner.kind}"))
    seen: set[tuple[str, str]] = set()
    for where, values in (
        ("label", template.labels),
        ("label", owner.labels),
        ("annotation", template.annotations),
        ("annotation", owner.annotations),
    ):
        for key in values:
            system = _FOREIGN_GANG_KEYS.get((where, key)) if isinstance(key, str) else None
            if system is not None and (where, key) not in seen:
                seen.add((where, key))
                found.append(_Marker(system, f"{where} {key}"))
    return found


_FOREIGN_GANG_KEYS = {
    ("label", KAI_QUEUE_LABELS[0]): "KAI",
    ("label", KAI_QUEUE_LABELS[1]): "KAI",
    ("label", KAI_SUBGROUP_LABEL): "KAI",
    ("annotation", KAI_GROUP_ANNOTATION): "KAI",
    ("annotation", KAI_MIN_MEMBER): "KAI",
    ("annotation", VOLCANO_GROUP_ANNOTATIONS[0]): "Volcano",
    ("annotation", VOLCANO_GROUP_ANNOTATIONS[1]): "Volcano",
    ("annotation", "scheduling.volcano.sh/queue-name"): "Volcano",
    ("annotation", "volcano.sh/queue-name"): "Volcano",
    ("label", COSCHEDULING_LABEL): "coscheduling",
    ("label", "pod-group.scheduling.sigs.k8s.io"): "coscheduling",
    ("label", "kueue.x-k8s.io/queue-name"): "Kueue",
}


@register
class CompetingGangSchedulers(Rule):
    code = "WAS404"
    name = "competing-gang-schedulers"
    severity = Severity.WARNING
    summary = "Native gang scheduling on pods that KAI, Volcano, coscheduling or Kueue also gangs."
    what = (
        "Finds pods with a native group (pod-template `schedulingGroup`, or a Job/CronJob"
        " `spec.scheduling` with a `gang` policy) that another gang system also claims:"
        " `schedulerName: kai-scheduler` or `volcano`, a Volcano Job owner, KAI labels and"
        " annotations (`kai.scheduler/queue`, `runai/queue`, `kai.scheduler/subgroup-name`,"
        " `pod-group-name`, `kai.scheduler/batch-min-member`), Volcano annotations"
        " (`scheduling.k8s.io/group-name`, `scheduling.volcano.sh/queue-name`...), the"
        " coscheduling label `scheduling.x-k8s.io/pod-group`, or the Kueue"
        " `kueue.x-k8s.io/queue-name` label. Labels and annotations are read from the pod"
        " template and from the owning object. A `basic` (non-gang) Job `spec.scheduling` is not"
        " a gang and is not reported."
    )
    why = (
        "Each system makes its own all-or-nothing decision and none of them knows about the other:"
        " a third-party scheduler ignores the native PodGroup and binds pods one by one or by its"
        " own PodGroup, while the native PodGroup waits for members it never sees; Kueue admits"
        " and may evict the workload on its own (waitForPodsReady) while the native gang holds"
        " half-placed pods. The result is deadlocks or partial starts that neither side reports."
        " One layer must own admission and one scheduler must bind. If you deliberately run an"
        " integration where the other system reads the native objects (KAI's Workload API design,"
        " for one), say so with `waslint.io/ignore: WAS404` on that object."
    )
    example = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
  labels:
    kueue.x-k8s.io/queue-name: team-a
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    use_instead = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: 4
  completions: 4
  completionMode: Indexed
  scheduling:
    schedulingPolicy:
      gang:
        minCount: 4
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: trainer:1.0
"""
    kinds = POD_TEMPLATE_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if not obj.doc.mentions("schedulingGroup") and not obj.doc.mentions("gang"):
            return
        job_gang = _job_gang_path(obj)
        for template in pod_templates(obj):
            joined = template.membership
            if joined.scheduling_group:
                native_path: Path = (*template.path, "schedulingGroup")
                group = joined.pod_group.value if joined.pod_group is not None else None
                native = "native schedulingGroup" + (f' (PodGroup "{group}")' if group else "")
            elif job_gang is not None:
                native_path = job_gang
                native = "native Job spec.scheduling gang"
            else:
                continue
            markers = _markers(obj, template)
            if not markers:
                continue
            systems = sorted({marker.system for marker in markers})
            evidence = "; ".join(marker.text for marker in markers)
            yield self.hit(
                obj,
                native_path,
                f"{native} on pods that {' and '.join(systems)} also gang-schedules ({evidence}):"
                " two gang layers each wait for their own all-or-nothing decision, which"
                " deadlocks or starts partial gangs. Keep one: drop the native group, or drop the"
                f" {'/'.join(systems)} settings",
            )


def _job_gang_path(obj: KObject) -> Path | None:
    group = object_group(obj)
    if group is None or as_map(group.policy.raw).get("gang") is None:
        return None
    return (*group.policy.path, "gang")


# --------------------------------------------------------------------------- WAS405


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
        " `priority` differ are an error, reported on every template that differs from the value"
        " most templates share (ties: the first template)."
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
            f'PriorityClass "{name}" does not exist in {source}{_close(name, candidates)}: the'
            f" Priority admission plugin rejects the {_what(obj, path)}. Known classes:"
            f" {shown or 'only the system ones'}",
        )

    def _workload(self, obj: KObject, ctx: Context, classes: PriorityClasses) -> Iterator[Hit]:
        templates = workload_templates(obj)
        for template in templates:
            yield from self._reference(obj, template.path, template.data, classes, False)
        if len(templates) < 2 or not ctx.target_at_least("beta-api"):
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
            for template, value, key in zip(templates, values, keys, strict=True):
                if key == reference:
                    continue
                name = as_str(template.data.get("name")) or "<unnamed>"
                mine = "unset" if value is None else f"{value}"
                where = field if field in template.data else "name"
                path = (*template.path, where)
                yield self.hit(
                    obj,
                    path,
                    f'template "{name}" has {field} {mine} while the other templates of Workload'
                    f" {obj.namespace}/{obj.name or '<unnamed>'} have {shown}: 1.37 rejects a"
                    f" Workload whose templates differ in {field}. Give every template the"
                    " same value",
                    severity=Severity.ERROR,
                )


def _what(obj: KObject, path: Path) -> str:
    if obj.kind == "Pod" and obj.group == "":
        return "Pod"
    if obj.group == SCHEDULING and obj.kind == "Workload":
        return "PodGroups made from this template"
    if obj.group == SCHEDULING:
        return obj.kind
    return f"pods of this {obj.kind} (its controller retries and reports it only in events)"
