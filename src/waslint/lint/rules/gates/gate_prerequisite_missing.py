"""WAS702 gate-prerequisite-missing."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from waslint.core.model import Path, Severity
from waslint.core.records import dataclass
from waslint.knowledge.gates import (
    APISERVER,
    GATES_FILE,
    KUBEADM_NODE,
    gate_info,
)
from waslint.knowledge.lifecycle import lifecycle_entry
from waslint.knowledge.releases import Release, milestone
from waslint.knowledge.schema import render_path
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.gates.common import components_text, dedupe, enable_advice, hit_at, inventory_of
from waslint.objects.gate_inventory import GateState, Inventory, Where
from waslint.objects.groups import groups_of
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import KObject, as_list
from waslint.objects.walks import POD_TEMPLATE_KINDS, job_scheduling, pod_templates

if TYPE_CHECKING:
    from waslint.knowledge.validation import ReleaseName


@dataclass(frozen=True)
class Need:
    """A field whose use needs these feature gates on."""

    path: Path
    what: str
    gates: tuple[str, ...]


_WAS_OBJECTS = frozenset({(SCHEDULING, "Workload"), (SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})


_COMPOSITE_GATES = ("CompositePodGroup", "GenericWorkload", "TopologyAwareWorkloadScheduling")


def object_needs(obj: KObject, target: Release) -> list[Need]:
    """The gated API features an object uses, per target release (the `+featureGate` markers of the
    upstream types: kubernetes/api scheduling/v1beta1, v1alpha3 and batch/v1 types.go)."""
    needs: list[Need] = []
    beta_api = target >= milestone("beta-api")
    group_constraints = target >= milestone("group-constraints")
    if (obj.group, obj.kind) in _WAS_OBJECTS:
        if obj.kind == "CompositePodGroup":
            needs.append(Need(("kind",), "a CompositePodGroup", _COMPOSITE_GATES))
        else:
            needs.append(Need(("kind",), f"the {obj.kind} API", ("GenericWorkload",)))
        if obj.kind == "Workload" and as_list(obj.spec.get("compositePodGroupTemplates")):
            needs.append(Need(("spec", "compositePodGroupTemplates"), "compositePodGroupTemplates", _COMPOSITE_GATES))
        if obj.kind == "PodGroup" and obj.spec.get("parentCompositePodGroupName") is not None:
            needs.append(Need(("spec", "parentCompositePodGroupName"), "parentCompositePodGroupName", _COMPOSITE_GATES))
    scheduling = job_scheduling(obj)
    if scheduling is not None and beta_api:
        needs.append(Need(scheduling[0], "Job spec.scheduling", ("WorkloadWithJob",)))
    for group in groups_of(obj):
        path, holder = group.path, group.data
        if group_constraints and group.topology:
            needs.append(
                Need(
                    (*path, "schedulingConstraints"),
                    "schedulingConstraints (topology)",
                    ("TopologyAwareWorkloadScheduling",),
                )
            )
        if group_constraints and as_list(holder.get("resourceClaims")):
            needs.append(Need((*path, "resourceClaims"), "group resourceClaims", ("DRAWorkloadResourceClaims",)))
        if beta_api and holder.get("preemptionPolicy") is not None:
            needs.append(Need((*path, "preemptionPolicy"), "preemptionPolicy", ("PodGroupPreemptionPolicy",)))
        if group_constraints and not beta_api:
            for field in ("disruptionMode", "priorityClassName", "priority"):
                if holder.get(field) is not None:
                    needs.append(Need((*path, field), field, ("WorkloadAwarePreemption",)))
    needs.extend(_marker_needs(obj, target, [need.path for need in needs]))
    if (obj.group, obj.kind) in POD_TEMPLATE_KINDS:
        field = "schedulingGroup" if target >= milestone("scheduling-group") else "workloadRef"
        for template in pod_templates(obj):
            if isinstance(template.spec.get(field), dict):
                needs.append(Need((*template.path, field), f"pod spec.{field}", ("GenericWorkload",)))
                break
    return needs


def _marker_needs(obj: KObject, target: ReleaseName, known: list[Path]) -> list[Need]:
    """Fields upstream's markers forbid while a gate is off (`+k8s:ifDisabled(G)=+k8s:forbidden`,
    from the generated validation data) that the list above does not name already."""
    from waslint.knowledge import validation  # its data loads on the first object, not at start-up

    if (obj.group, obj.kind) in _WAS_OBJECTS:
        fields = validation.gated_fields(target, obj.api_version, obj.kind, obj.data)
    elif (obj.group, obj.kind) == ("batch", "Job"):
        fields = validation.gated_fields(target, "batch/v1", "Job", obj.data)
    else:
        return []
    return [
        Need(path, render_path(path), (gate,))
        for path, gate in fields
        if not any(path[: len(other)] == other or other[: len(path)] == path for other in known)
    ]


_NEED_KINDS = _WAS_OBJECTS | POD_TEMPLATE_KINDS


@register
class GatePrerequisiteMissing(Rule):
    code = "WAS702"
    name = "gate-prerequisite-missing"
    severity = Severity.ERROR
    summary = "An object uses a field or API whose feature gate (or API version) is known to be off."
    what = (
        "For each object, finds the gated features it uses: Workload/PodGroup (GenericWorkload),"
        " CompositePodGroup, `compositePodGroupTemplates` and `parentCompositePodGroupName`"
        " (CompositePodGroup + GenericWorkload + TopologyAwareWorkloadScheduling), Job"
        " `spec.scheduling` (WorkloadWithJob), group `resourceClaims` (DRAWorkloadResourceClaims),"
        " `preemptionPolicy` (PodGroupPreemptionPolicy), `schedulingConstraints`"
        " (TopologyAwareWorkloadScheduling), pod `schedulingGroup` (GenericWorkload), and in 1.36"
        " `disruptionMode`/`priority*` (WorkloadAwarePreemption), and any other field that upstream's"
        " `+k8s:ifDisabled(Gate)=+k8s:forbidden` markers forbid while the gate is off (the generated"
        " validation data of WAS003). It fires only when the gate is"
        " known to be off on a component that needs it and on on none: set to false, or"
        " off by default in the target release on a component the inventory covers. Also a WAS"
        " apiVersion that the kube-apiserver's `--runtime-config` does not enable (v1beta1 too:"
        " new beta APIs are off by default; a Job's `spec.scheduling` needs v1alpha3, the version"
        " the Job controller writes), and a component that enables a gate whose prerequisite gate"
        " is off there (warning when the dependency is not confirmed). Silent without an inventory."
    )
    why = (
        "With the gate off on the API server a gated field is silently dropped on create by the"
        " registry strategy (the message says so where upstream's strategy drops it:"
        " `knowledge/strategies.yaml`, e.g. Job `spec.scheduling` without WorkloadWithJob) or the"
        " object is rejected; with it off on the scheduler or controller-manager the object is stored and"
        " then ignored: no gang, no shared claim, no Workload for the Job. With the API version"
        " not in --runtime-config the API server answers 404. Each fails far from the manifest."
    )
    example = """\
# The kubeadm control plane has GenericWorkload but not WorkloadWithJob (alpha, off by default):
# the API server drops the Job's spec.scheduling and the gang never exists.
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
apiServer:
  extraArgs:
  - name: feature-gates
    value: GenericWorkload=true
  - name: runtime-config
    value: scheduling.k8s.io/v1alpha3=true
controllerManager:
  extraArgs:
  - name: feature-gates
    value: GenericWorkload=true
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
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
      - name: trainer
        image: registry.example.com/trainer:1.0
"""
    use_instead = """\
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
apiServer:
  extraArgs:
  - name: feature-gates
    value: GenericWorkload=true,WorkloadWithJob=true
  - name: runtime-config
    value: scheduling.k8s.io/v1alpha3=true
controllerManager:
  extraArgs:
  - name: feature-gates
    value: GenericWorkload=true,WorkloadWithJob=true
---
apiVersion: batch/v1
kind: Job
metadata:
  name: train
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
      - name: trainer
        image: registry.example.com/trainer:1.0
"""
    kinds = _NEED_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        inventory = inventory_of(ctx)
        if inventory.empty:
            return
        reported: set[str] = set()
        for need in object_needs(obj, ctx.target):
            missing: list[str] = []
            off: list[tuple[str, GateState]] = []
            for gate in need.gates:
                info = gate_info(gate)
                if gate in reported or info is None or info.at(ctx.target) is None:
                    continue
                value, _ = inventory.known_value(gate, info.components, ctx.target)
                if value is not False:
                    continue
                reported.add(gate)
                missing.append(gate)
                off.extend(
                    (c, s) for c in info.components for s in inventory.states(c, gate, ctx.target) if s.value is False
                )
            if missing:
                message = _need_message(need.what, missing, dedupe(off))
                yield self.hit(obj, need.path, message + _apiserver_effect(obj, need.path, missing, off, ctx))
        yield from self._runtime_config(obj, ctx, inventory)

    def _runtime_config(self, obj: KObject, ctx: Context, inventory: Inventory) -> Iterator[Hit]:
        wanted: list[tuple[Path, str, str, str]] = []  # path, group, version, why
        if (obj.group, obj.kind) in _WAS_OBJECTS:
            wanted.append((("apiVersion",), obj.group, obj.version, f"{obj.api_version} {obj.kind}"))
        scheduling = job_scheduling(obj)
        if scheduling is not None and ctx.target_at_least("beta-api"):
            wanted.append(
                (
                    scheduling[0],
                    SCHEDULING,
                    "v1alpha3",
                    "Job spec.scheduling (the Job controller writes its Workload and PodGroup as"
                    " scheduling.k8s.io/v1alpha3)",
                )
            )
        for path, group, version, what in wanted:
            entry = lifecycle_entry(group, version, "Workload") or lifecycle_entry(group, version, obj.kind)
            if entry is None or not entry.served_in(ctx.target):
                continue  # not served at all: WAS101
            enabled = inventory.runtime_enabled(group, version, entry.stage)
            if enabled is False:
                yield self.hit(
                    obj,
                    path,
                    f"{what} needs {group}/{version} served by kube-apiserver, and its --runtime-config"
                    f" does not enable it ({inventory.runtime_labels()}; {entry.stage} API versions are"
                    f" off by default): add --runtime-config={group}/{version}=true to kube-apiserver,"
                    " or the API server answers 404",
                )

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        """A component that enables a gate whose prerequisite gate is off on the same component."""
        inventory = inventory_of(ctx)
        if inventory.empty:
            return
        done: set[tuple[str, str, KObject | None, Path]] = set()
        for setting in inventory.settings:
            if not setting.value:
                continue
            info = gate_info(setting.gate)
            entry = info.at(ctx.target) if info is not None else None
            if entry is None or entry.removed:
                continue
            for dependency in entry.depends_on:
                states = [
                    s
                    for s in inventory.states(setting.component, dependency, ctx.target)
                    if s.value is False and _same_instance(s, setting.where)
                ]
                if not states:
                    continue
                key = (setting.component, dependency, setting.where.obj, setting.where.path)
                if key in done:
                    continue
                done.add(key)
                unconfirmed = "" if entry.depends_confirmed else " (this dependency is not confirmed)"
                yield hit_at(
                    self,
                    setting.where,
                    f"{setting.gate} is enabled on {setting.component} but its prerequisite {dependency} is"
                    f" off there ({states[0].reason}){unconfirmed}; the component may refuse to start or"
                    f" the feature stays inert: {enable_advice(setting.component, [dependency], setting.where)}",
                    None if entry.depends_confirmed else Severity.WARNING,
                )


def _apiserver_effect(
    obj: KObject, path: Path, missing: list[str], off: list[tuple[str, GateState]], ctx: Context
) -> str:
    """What kube-apiserver does with the field while the gate is off there: its registry strategy
    drops it on create (knowledge/strategies.yaml), so the object is stored without it."""
    if not any(component == APISERVER for component, _ in off):
        return ""
    from waslint.knowledge import strategies  # its table loads with the first gated field

    if any(strategies.drops_field(ctx.target, obj.group, obj.kind, path, gate) for gate in missing):
        return "; meanwhile kube-apiserver silently drops the field on create"
    return ""


def _need_message(what: str, missing: list[str], off: list[tuple[str, GateState]]) -> str:
    plural = len(missing) > 1
    components = components_text(c for c, _ in off)
    first = off[0][1]
    more = len({(s.where.obj if s.where else None) for _, s in off}) - 1
    reason = first.reason + (f"; likewise in {more} more source{'s' if more > 1 else ''}" if more > 0 else "")
    steps: dict[str, None] = {}
    for component, state in off:
        gates = [g for g in missing if any(x.gate == g for x in state.explicit) or not state.explicit]
        steps[enable_advice(component, gates or missing, state.where)] = None
    advice = "; ".join(list(steps)[:3]) + ("; ..." if len(steps) > 3 else "")
    return (
        f"{what} needs the feature gate{'s' if plural else ''} {', '.join(missing)}, off on {components}"
        f" ({reason}): {advice}"
    )


def _same_instance(state: GateState, where: Where) -> bool:
    other = state.where
    if other is None:
        return False
    if where.source == KUBEADM_NODE or other.source == KUBEADM_NODE:
        return True
    if where.obj is None or other.obj is None:
        return where.source == other.source == GATES_FILE
    return where.obj is other.obj
