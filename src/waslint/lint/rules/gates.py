"""WAS7xx: feature gates. Gate facts come from `knowledge/feature-gates.yaml` (`knowledge/gates.py`);
the gate settings of the cluster from the component manifests and configs in the set and from
`--gates FILE` (`objects/gate_inventory.py`). Nothing fires without an inventory: a component that no source
covers is unknown, never off."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from waslint.core.model import Path, Severity, Span
from waslint.knowledge import validation
from waslint.knowledge.gates import (
    COMPONENTS,
    GATES_FILE,
    KIND,
    KUBEADM_CLUSTER,
    KUBEADM_NODE,
    KUBEADM_SECTIONS,
    KUBELET,
    KUBELET_CONFIG,
    PATCHED,
    STATIC_POD,
    gate_info,
    gate_table,
)
from waslint.knowledge.lifecycle import lifecycle_entry
from waslint.knowledge.releases import Release, milestone
from waslint.knowledge.schema import render_path
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.gate_inventory import SOURCE_KINDS, GateState, Inventory, Setting, Where, build_inventory
from waslint.objects.kobject import SCHEDULING, KObject, as_list, dig
from waslint.objects.walks import POD_TEMPLATE_KINDS, group_policy_holders, job_scheduling, pod_templates

SECTION_OF = {component: section for section, component in KUBEADM_SECTIONS.items()}


def inventory_of(ctx: Context) -> Inventory:
    """The run's gate inventory, built once and shared through the context."""
    return ctx.derive("gate-inventory", _build_inventory)


def _build_inventory(ctx: Context) -> Inventory:
    objects = [obj for obj in ctx.index.objects if (obj.group, obj.kind) in SOURCE_KINDS]
    if ctx.gates is None:
        return build_inventory(objects)
    return build_inventory(objects, ctx.gates.gates, ctx.gates.document, ctx.gates.path, ctx.gates.from_metrics)


def hit_at(rule: Rule, where: Where, message: str, severity: Severity | None = None) -> Hit:
    """A hit at an inventory place: a field of an object in the set, or a line of --gates FILE."""
    if where.obj is not None:
        return rule.hit(where.obj, where.path, message, severity=severity)
    span = where.doc.locate(where.path) if where.doc is not None else Span(1, 1, 1, 1)
    extra = {"path": where.file_path or "-", "span": span, "document": 0, "doc": where.doc}
    return Hit(rule, None, where.path, message, severity, extra=extra)


def enable_advice(component: str, gates: list[str], where: Where | None) -> str:
    """Which flag or field to change to turn gates on, worded after the source of the component."""
    flag = ",".join(f"{gate}=true" for gate in gates)
    fields = ", ".join(f"{gate}: true" for gate in gates)
    source = where.source if where is not None else None
    if source == STATIC_POD:
        return f"add {flag} to --feature-gates of the {component} static Pod"
    if source == KUBEADM_CLUSTER and where is not None:
        return f"add {flag} to feature-gates in {where.section}.extraArgs of the kubeadm ClusterConfiguration"
    if source == KUBELET_CONFIG:
        return f"set featureGates {{{fields}}} in the KubeletConfiguration"
    if source == KUBEADM_NODE:
        return f"add {flag} to feature-gates in nodeRegistration.kubeletExtraArgs"
    if source == KIND and where is not None and where.section == PATCHED and component in SECTION_OF:
        return (
            f"add {flag} to feature-gates in {SECTION_OF[component]}.extraArgs of the ClusterConfiguration in"
            " the kind Cluster's kubeadmConfigPatches (a patched feature-gates flag replaces the cluster-wide"
            " featureGates for that component)"
        )
    if source == KIND:
        return f"add {fields} under featureGates of the kind Cluster (it reaches every component)"
    if component == KUBELET:
        return f"enable {flag} on the kubelets (KubeletConfiguration featureGates)"
    if where is not None and where.metrics:
        return f"start {component} with --feature-gates={flag} (its /metrics reports it off)"
    return f"start {component} with --feature-gates={flag} (the --gates inventory has it off)"


def _components_text(components: Iterable[str]) -> str:
    names = list(dict.fromkeys(components))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# --------------------------------------------------------------------------- WAS701


@register
class GateInconsistent(Rule):
    code = "WAS701"
    name = "gate-inconsistent"
    severity = Severity.ERROR
    other_severities = (Severity.WARNING,)  # components not confirmed: a warning
    summary = "A gate is on for some of the components that need it and off on others."
    what = (
        "Builds the gate inventory of the run (kube-apiserver, kube-scheduler and"
        " kube-controller-manager static Pods, KubeletConfiguration, kubeadm ClusterConfiguration"
        " and node configurations, kind Cluster configs, `--gates FILE`) and, for every WAS gate of"
        " the target release, compares the components that must agree (from the gate table):"
        " GenericWorkload on kube-apiserver, kube-scheduler and kube-controller-manager;"
        " DRAWorkloadResourceClaims also on the kubelet; and so on. It fires on each component"
        " instance that has the gate off while another has it on, including two instances of one"
        " component (an HA control plane whose static Pods differ). A gate is off where it is set"
        " to false, or where the component is configured by a source that does not set it and the"
        " gate is off by default in the target release. A component no source covers is unknown"
        " and never reported. Gates whose component list is not confirmed are reported as"
        " warnings."
    )
    why = (
        "A half-enabled gate fails quietly: the API server accepts and stores PodGroups while the"
        " scheduler without GenericWorkload schedules their pods one by one (no gang), or the"
        " kubelet without DRAWorkloadResourceClaims does not prepare the PodGroup's shared claim."
        " Every component that reads a gate must agree, and every instance of a component too."
    )
    example = """\
# The API server has GenericWorkload, the scheduler does not (off by default in 1.37).
apiVersion: v1
kind: Pod
metadata:
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
  - name: kube-apiserver
    image: registry.k8s.io/kube-apiserver:v1.37.0
    command:
    - kube-apiserver
    - --feature-gates=GenericWorkload=true
---
apiVersion: v1
kind: Pod
metadata:
  name: kube-scheduler
  namespace: kube-system
spec:
  containers:
  - name: kube-scheduler
    image: registry.k8s.io/kube-scheduler:v1.37.0
    command:
    - kube-scheduler
    - --kubeconfig=/etc/kubernetes/scheduler.conf
"""
    use_instead = """\
apiVersion: v1
kind: Pod
metadata:
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
  - name: kube-apiserver
    image: registry.k8s.io/kube-apiserver:v1.37.0
    command:
    - kube-apiserver
    - --feature-gates=GenericWorkload=true
---
apiVersion: v1
kind: Pod
metadata:
  name: kube-scheduler
  namespace: kube-system
spec:
  containers:
  - name: kube-scheduler
    image: registry.k8s.io/kube-scheduler:v1.37.0
    command:
    - kube-scheduler
    - --kubeconfig=/etc/kubernetes/scheduler.conf
    - --feature-gates=GenericWorkload=true
"""
    kinds = frozenset()

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        inventory = inventory_of(ctx)
        if inventory.empty:
            return
        for gate, info in gate_table().items():
            entry = info.at(ctx.target)
            if entry is None or entry.removed:
                continue
            severity = None if info.components_confirmed else Severity.WARNING
            unconfirmed = "" if info.components_confirmed else " (the component list is not confirmed)"
            scopes: dict[object, list[tuple[str, GateState]]] = {}
            for component in info.components:
                for state in inventory.states(component, gate, ctx.target):
                    scopes.setdefault(cluster_scope(state.where), []).append((component, state))
            for states in scopes.values():
                on = _dedupe([(c, s) for c, s in states if s.value is True])
                off = _dedupe([(c, s) for c, s in states if s.value is False])
                if not on or not off:
                    continue
                on_text = "; ".join(f"{c}: {s.reason}" for c, s in on[:2])
                if len(on) > 2:
                    on_text += f"; and {len(on) - 2} more"
                for component, state in off:
                    if state.where is None:
                        continue
                    yield hit_at(
                        self,
                        state.where,
                        f"{gate} is on for {on_text}, but off on {component} ({state.reason}); {gate}"
                        f" ({info.summary}) must be on for {_components_text(info.components)}{unconfirmed}:"
                        f" {enable_advice(component, [gate], state.where)}",
                        severity,
                    )


def cluster_scope(where: Where | None) -> object:
    """Which cluster an inventory place belongs to: each kind Cluster config is a cluster of its
    own; every other source (static Pods, kubeadm, kubelet configs, --gates) is the run's cluster."""
    if where is not None and where.source == KIND and where.obj is not None:
        return id(where.obj)
    return "cluster"


def _dedupe(states: list[tuple[str, GateState]]) -> list[tuple[str, GateState]]:
    seen: set[tuple[str, int, Path]] = set()
    kept: list[tuple[str, GateState]] = []
    for component, state in states:
        where = state.where
        key = (component, id(where.obj) if where is not None else 0, where.path if where is not None else ())
        if key not in seen:
            seen.add(key)
            kept.append((component, state))
    return kept


# --------------------------------------------------------------------------- WAS702


@dataclass(frozen=True)
class Need:
    path: Path
    what: str
    gates: tuple[str, ...]


_WAS_OBJECTS = frozenset({(SCHEDULING, "Workload"), (SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})
_COMPOSITE_GATES = ("CompositePodGroup", "GenericWorkload", "TopologyAwareWorkloadScheduling")


def object_needs(obj: KObject, target: Release) -> list[Need]:
    """The gated API features an object uses, per target release: the gated fields of the
    upstream types (kubernetes/api `scheduling/*/types.go`, `batch/v1/types.go`, `core/v1/types.go`)
    and the website feature-gate pages."""
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
    for path, holder in group_policy_holders(obj):
        if group_constraints and as_list(dig(holder, "schedulingConstraints", "topology")):
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


def _marker_needs(obj: KObject, target: validation.ReleaseName, known: list[Path]) -> list[Need]:
    """Fields upstream's markers forbid while a gate is off (`+k8s:ifDisabled(G)=+k8s:forbidden`,
    from the generated validation data) that the list above does not name already."""
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
        "With the gate off on the API server a gated field is dropped on create or the object is"
        " rejected; with it off on the scheduler or controller-manager the object is stored and"
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
                yield self.hit(obj, need.path, _need_message(need.what, missing, _dedupe(off)))
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
        done: set[tuple[str, str, int, Path]] = set()
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
                key = (setting.component, dependency, id(setting.where.obj), setting.where.path)
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


def _need_message(what: str, missing: list[str], off: list[tuple[str, GateState]]) -> str:
    plural = len(missing) > 1
    components = _components_text(c for c, _ in off)
    first = off[0][1]
    more = len({(id(s.where.obj) if s.where else 0) for _, s in off}) - 1
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


# --------------------------------------------------------------------------- WAS703


@register
class RemovedFeatureGate(Rule):
    code = "WAS703"
    name = "removed-feature-gate"
    severity = Severity.ERROR
    summary = "A feature gate that the target release does not know (removed, merged, or not yet added)."
    what = (
        "Every WAS gate set in the inventory (static Pod flags, KubeletConfiguration, kubeadm"
        " extraArgs and kubeletExtraArgs, kind featureGates and patches, `--gates FILE`) is looked"
        " up in the gate table for the target release: GangScheduling and WorkloadAwarePreemption"
        " were folded into GenericWorkload in 1.37, and a 1.36 gate set for a 1.35 target does not"
        " exist yet. Each setting is reported where it is written."
    )
    why = (
        "A Kubernetes component given a feature gate it does not know refuses to start"
        " (`unrecognized feature gate`): an upgrade to 1.37 that keeps GangScheduling=true in the"
        " scheduler's flags leaves the cluster without a scheduler. Whether 1.37 removed those"
        " gates or keeps them as deprecated no-ops is not confirmed upstream; removing them is"
        " right either way, and GenericWorkload=true turns their behaviour on."
    )
    example = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
featureGates:
  GangScheduling: true
"""
    use_instead = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
featureGates:
  GenericWorkload: true
"""
    kinds = frozenset()

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        inventory = inventory_of(ctx)
        places: dict[tuple[int, Path, str], list[Setting]] = {}
        for setting in inventory.settings:
            info = gate_info(setting.gate)
            if info is None:
                continue
            entry = info.at(ctx.target)
            if entry is not None and not entry.removed:
                continue
            key = (id(setting.where.obj), setting.where.path, setting.gate)
            places.setdefault(key, []).append(setting)
        for settings in places.values():
            setting = settings[-1]
            info = gate_info(setting.gate)
            assert info is not None
            entry = info.at(ctx.target)
            components = sorted({s.component for s in settings}, key=COMPONENTS.index)
            who = "every component" if len(components) == len(COMPONENTS) else _components_text(components)
            value = "true" if setting.value else "false"
            if entry is None:
                message = (
                    f"{setting.gate}={value} on {who}: the gate does not exist in Kubernetes {ctx.target}"
                    f" (it is new in {info.first_release}), and a component given an unknown gate refuses to"
                    f" start: remove it from {_where_words(setting.where)}, or target {info.first_release} or later"
                )
            else:
                merged = f" (folded into {entry.merged_into})" if entry.merged_into else ""
                doubt = (
                    " (upstream has not confirmed whether it is removed or left as a deprecated no-op;"
                    " removing it is right either way)"
                    if not entry.confirmed
                    else ""
                )
                target_info = gate_info(entry.merged_into) if entry.merged_into else None
                instead = (
                    f", and make sure {entry.merged_into}=true is set there instead"
                    if target_info is not None and setting.value and set(components) & set(target_info.components)
                    else ""
                )
                message = (
                    f"{setting.gate}={value} on {who}: Kubernetes {ctx.target} no longer has this gate{merged},"
                    f" and a component given an unknown gate refuses to start{doubt}: remove it from"
                    f" {_where_words(setting.where)}{instead}"
                )
            yield hit_at(self, setting.where, message)


def _where_words(where: Where) -> str:
    if where.metrics:
        return "the component's --feature-gates flag or config file (its /metrics reports it set)"
    if where.source == KIND:
        if where.path[:1] == ("featureGates",):
            return "featureGates of the kind Cluster"
        return "the feature-gates flag in the kind Cluster's kubeadmConfigPatches"
    return {
        STATIC_POD: "the --feature-gates flag of the static Pod",
        KUBELET_CONFIG: "featureGates of the KubeletConfiguration",
        KUBEADM_CLUSTER: "the feature-gates extraArg of the kubeadm ClusterConfiguration",
        KUBEADM_NODE: "the feature-gates kubeletExtraArg",
        GATES_FILE: "the cluster's configuration (the --gates inventory lists it)",
    }.get(where.source, "the configuration")
