"""Feature-gate facts (the `rules/feature-gates.yaml` table) and the gate inventory of one run.

The inventory says, per component (kube-apiserver, kube-scheduler, kube-controller-manager,
kubelet), which gates are set and where. It is read from the objects of the set and from
`--gates FILE`:

- static Pods of kube-apiserver / kube-scheduler / kube-controller-manager: container command and
  args `--feature-gates=A=true,B=false`, `--runtime-config=...` (the whole command line is there,
  so a gate it does not set has its default value on that component);
- KubeletConfiguration `featureGates` (the kubelet's whole configuration: defaults apply);
- kubeadm ClusterConfiguration `apiServer` / `scheduler` / `controllerManager` `extraArgs`, both the
  v1beta3 map and the v1beta4 list of `{name, value}` (kubeadm writes the three static Pods from
  it: defaults apply). Its top-level `featureGates` are kubeadm's own gates and are not read;
- kubeadm InitConfiguration / JoinConfiguration `nodeRegistration.kubeletExtraArgs`
  `feature-gates` (explicit settings only: the kubelet's config file may set more);
- kind `Cluster` (kind.x-k8s.io): `featureGates` (kind passes them to every component),
  `runtimeConfig`, and the kubeadm documents inside `kubeadmConfigPatches` (cluster and per node);
- `--gates FILE`: `{component: {Gate: bool}}`; a component listed there is fully known.

KubeSchedulerConfiguration has no feature-gate field (the scheduler reads gates from its command
line only), so it is not a source.

A component that no source covers is unknown, never off. A gate is known to be off on a covered
component when it is set to false there, or when nothing sets it and the table's default for the
target release is off and confirmed.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import field
from typing import Any

import yaml

from waslint.core.model import Path
from waslint.core.records import dataclass
from waslint.io.loader import Document
from waslint.knowledge.gates import (
    APISERVER,
    COMPONENTS,
    CONTROL_PLANE,
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
)
from waslint.knowledge.releases import Release
from waslint.objects.kobject import KObject, as_list, as_map, as_str, dig
from waslint.objects.walks import containers

# --------------------------------------------------------------------------- the inventory


@dataclass(frozen=True)
class Where:
    """A place in the input that sets gates for a component: an object field, or the gates file."""

    source: str  # STATIC_POD, KUBELET_CONFIG, ...
    obj: KObject | None
    path: Path
    label: str  # human words: "static Pod kube-system/kube-apiserver (manifests/kube-apiserver.yaml)"
    section: str | None = None  # kubeadm section (apiServer, scheduler, controllerManager)
    doc: Document | None = None  # the gates file's document, for positions
    file_path: str | None = None  # the gates file's path
    metrics: bool = False  # the inventory was read from the components' /metrics (waslint audit)

    def set_words(self, value: bool) -> str:
        """`set to true in --gates gates.yaml`, or `true as its /metrics reports`."""
        if self.metrics:
            return f"{_word(value)} as its /metrics reports"
        return f"set to {_word(value)} in {self.label}"

    def unset_words(self) -> str:
        return "at its default as its /metrics reports" if self.metrics else f"not set in {self.label}"


@dataclass(frozen=True)
class Setting:
    """One feature-gate value a component is given, and where it is set."""

    component: str
    gate: str
    value: bool
    where: Where


@dataclass(frozen=True)
class GateState:
    """What is known about one gate on one component."""

    value: bool | None  # None: unknown
    # why we believe it: "set to false in ...", "not set in ...; alpha, off by default in 1.37"
    reason: str
    explicit: tuple[Setting, ...] = ()
    where: Where | None = None  # the explicit setting, or the instance that does not set it

    @property
    def known(self) -> bool:
        return self.value is not None


@dataclass
class Inventory:
    """Every feature-gate setting the input holds, by component, with what covers them."""

    settings: list[Setting] = field(default_factory=list)
    coverage: dict[str, list[Where]] = field(default_factory=lambda: defaultdict(list))
    # kube-apiserver --runtime-config entries: (key, value or None, id of the source object)
    runtime_config: list[tuple[str, str | None, KObject | None]] = field(default_factory=list)
    # sources that show the kube-apiserver's whole command line (its runtime-config is known)
    runtime_sources: list[Where] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.settings and not self.coverage and not self.runtime_sources

    def explicit(self, component: str, gate: str) -> list[Setting]:
        return [s for s in self.settings if s.component == component and s.gate == gate]

    def states(self, component: str, gate: str, release: Release) -> list[GateState]:
        """One state per instance of the component (each static Pod, kubeadm or kind cluster,
        KubeletConfiguration, --gates entry), plus explicit settings that belong to no instance.
        kubeadm kubeletExtraArgs override every KubeletConfiguration (flags win over the file)."""
        explicit = self.explicit(component, gate)
        overrides = [s for s in explicit if s.where.source == KUBEADM_NODE]
        instances = self.coverage.get(component, [])
        if not instances:
            return [_explicit_state(s) for s in explicit]
        found: list[GateState] = []
        for instance in instances:
            own = [s for s in explicit if s.where.source != KUBEADM_NODE and _same_source(s.where, instance)]
            chosen = own or overrides
            if chosen:
                found.extend(_explicit_state(s) for s in _distinct_values(chosen))
                continue
            found.append(self._default_state(component, gate, release, instance))
        return found

    def _default_state(self, component: str, gate: str, release: Release, instance: Where) -> GateState:
        info = gate_info(gate)
        entry = info.at(release) if info is not None else None
        if entry is None or entry.removed or entry.stage is None:
            return GateState(None, f"{gate} is not known to {release}", where=instance)
        # AllAlpha / AllBeta switch every gate of that stage that is not set by name.
        blanket_gate = {"alpha": "AllAlpha", "beta": "AllBeta"}.get(entry.stage)
        if blanket_gate is not None:
            blanket = [s for s in self.explicit(component, blanket_gate) if _same_source(s.where, instance)]
            if blanket:
                setting = blanket[-1]
                return GateState(
                    setting.value,
                    f"{blanket_gate} {setting.where.set_words(setting.value)} ({gate} is {entry.stage} in {release})",
                    (setting,),
                    setting.where,
                )
        if not entry.confirmed or entry.default is None:
            return GateState(None, f"{gate}'s default in {release} is not confirmed", where=instance)
        value = entry.default
        return GateState(
            value,
            f"{instance.unset_words()}; {entry.stage}, {'on' if value else 'off'} by default in {release}",
            (),
            instance,
        )

    def known_value(
        self, gate: str, components: tuple[str, ...], release: Release
    ) -> tuple[bool | None, list[GateState]]:
        """(True/False when every known instance of those components agrees, else None;
        and the states)."""
        states = [state for component in components for state in self.states(component, gate, release)]
        values = {state.value for state in states if state.known}
        return (values.pop() if len(values) == 1 else None), states

    def runtime_enabled(self, group: str, version: str, stage: str) -> bool | None:
        """Whether kube-apiserver serves group/version per --runtime-config; None when unknown."""
        if not self.runtime_sources:
            return None
        decided: list[bool] = []
        for where in self.runtime_sources:
            entries = [(k, v) for k, v, owner in self.runtime_config if owner is where.obj]
            decided.append(_runtime_decision(entries, group, version, stage))
        return any(decided)

    def runtime_labels(self) -> str:
        labels = list(dict.fromkeys(w.label for w in self.runtime_sources))
        more = f" and {len(labels) - 1} more" if len(labels) > 1 else ""
        return f"{labels[0]}{more}" if labels else "no source"


def _runtime_decision(entries: list[tuple[str, str | None]], group: str, version: str, stage: str) -> bool:
    """kube-apiserver --runtime-config semantics: a specific group/version wins over api/<stage>,
    which wins over api/all. New beta APIs and every alpha API are off by default (KEP-3136)."""
    specific: bool | None = None
    by_stage: bool | None = None
    everything: bool | None = None
    for key, value in entries:
        enabled = _parse_bool(value) if value is not None else True
        if enabled is None:
            continue
        key = key.strip().rstrip("/")
        if key == f"{group}/{version}":
            specific = enabled
        elif key == f"api/{stage}":
            by_stage = enabled
        elif key == "api/all":
            everything = enabled
    for decision in (specific, by_stage, everything):
        if decision is not None:
            return decision
    return stage == "ga"


def _same_source(setting: Where, instance: Where) -> bool:
    if instance.obj is None or setting.obj is None:
        return instance.source == setting.source == GATES_FILE
    return setting.obj is instance.obj


def _explicit_state(setting: Setting) -> GateState:
    return GateState(
        setting.value,
        setting.where.set_words(setting.value),
        (setting,),
        setting.where,
    )


def _distinct_values(settings: list[Setting]) -> list[Setting]:
    """On one command line or config the last setting wins. Across kind's cluster-wide
    featureGates and its patches, or several kubeadm node configurations, both values are kept
    when they differ: that disagreement is what WAS701 reports."""
    if all(s.where.source not in (KIND, KUBEADM_NODE) for s in settings):
        return settings[-1:]
    last: dict[bool, Setting] = {}
    for setting in settings:
        last[setting.value] = setting
    return list(last.values())


def _word(value: bool) -> str:
    return "true" if value else "false"


def _parse_bool(text: Any) -> bool | None:
    """Go's strconv.ParseBool, which component flags use."""
    if isinstance(text, bool):
        return text
    if not isinstance(text, str):
        return None
    lowered = text.strip()
    if lowered in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if lowered in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    return None


def parse_feature_gates(value: str) -> list[tuple[str, bool]]:
    """`A=true,B=false` -> [(A, True), (B, False)]; malformed entries are skipped."""
    found: list[tuple[str, bool]] = []
    for part in value.split(","):
        name, sep, raw = part.partition("=")
        name = name.strip()
        parsed = _parse_bool(raw)
        if name and sep and parsed is not None:
            found.append((name, parsed))
    return found


def parse_runtime_config(value: str) -> list[tuple[str, str | None]]:
    """`scheduling.k8s.io/v1beta1=true,api/alpha` -> [(key, value-or-None)]."""
    found: list[tuple[str, str | None]] = []
    for part in value.split(","):
        key, sep, raw = part.partition("=")
        key = key.strip()
        if key:
            found.append((key, raw.strip() if sep else None))
    return found


def build_inventory(
    objects: list[KObject],
    gates_file: dict[str, dict[str, bool]] | None = None,
    gates_doc: Document | None = None,
    gates_path: str | None = None,
    from_metrics: bool = False,
) -> Inventory:
    """The gate settings of the objects, plus a --gates inventory (`from_metrics`: the one waslint
    audit read from the components' /metrics, worded so)."""
    inventory = Inventory()
    for obj in objects:
        reader = _READERS.get((obj.group, obj.kind))
        if reader is not None:
            reader(obj, inventory)
    if gates_file is not None:
        for component, entries in gates_file.items():
            where = Where(
                GATES_FILE,
                None,
                (component,),
                "its /metrics" if from_metrics else f"--gates {gates_path}",
                doc=gates_doc,
                file_path=gates_path,
                metrics=from_metrics,
            )
            inventory.coverage[component].append(where)
            for gate, value in entries.items():
                gate_where = Where(
                    GATES_FILE,
                    None,
                    (component, gate),
                    "its /metrics" if from_metrics else f"--gates {gates_path}",
                    doc=gates_doc,
                    file_path=gates_path,
                    metrics=from_metrics,
                )
                inventory.settings.append(Setting(component, gate, value, gate_where))
    return inventory


def _describe(obj: KObject, what: str) -> str:
    return f"{what} ({obj.file.path})"


# static Pods ---------------------------------------------------------------


def _static_pod(obj: KObject, inventory: Inventory) -> None:
    spec = obj.spec
    for list_name, position, container in containers(spec):
        component, tokens = _component_command(container)
        if component is None:
            continue
        base: Path = ("spec", list_name, position)
        name = f"{obj.namespace}/{obj.name}" if obj.name else "<unnamed>"
        label = _describe(obj, f"{component} static Pod {name}")
        cover = Where(
            STATIC_POD,
            obj,
            (*base, "command") if "command" in container else (*base, "args"),
            label,
        )
        inventory.coverage[component].append(cover)
        if component == APISERVER:
            inventory.runtime_sources.append(cover)
        for flag, value, path in _flags(tokens, base):
            _add_flag(inventory, component, flag, value, Where(STATIC_POD, obj, path, label))


def _component_command(container: dict[str, Any]) -> tuple[str | None, list[tuple[str, Path]]]:
    """The control-plane component a container runs, and its argument tokens with their paths."""
    tokens: list[tuple[str, Path]] = []
    for list_name in ("command", "args"):
        for position, item in enumerate(as_list(container.get(list_name))):
            if not isinstance(item, str):
                continue
            pieces = [item]
            if any(ch.isspace() for ch in item.strip()):
                import shlex  # only for a command line with spaces: kept off the start-up

                try:
                    pieces = shlex.split(item)
                except ValueError:
                    pieces = item.split()
            tokens.extend((piece, (list_name, position)) for piece in pieces)
    for index, (token, _) in enumerate(tokens):
        binary = os.path.basename(token)
        if binary in CONTROL_PLANE:
            return binary, tokens[index + 1 :]
    image = as_str(container.get("image")) or ""
    repository = image.split("@")[0].rsplit(":", 1)[0] if ":" in image.rsplit("/", 1)[-1] else image.split("@")[0]
    binary = repository.rsplit("/", 1)[-1]
    if binary in CONTROL_PLANE and tokens:
        return binary, tokens
    return None, []


def _flags(tokens: list[tuple[str, Path]], base: Path) -> Iterator[tuple[str, str, Path]]:
    """(flag name, value, path of the list item) for `--flag=value` and `--flag value` tokens."""
    index = 0
    while index < len(tokens):
        token, where = tokens[index]
        index += 1
        if not token.startswith("-"):
            continue
        name, sep, value = token.lstrip("-").partition("=")
        if not sep and index < len(tokens) and not tokens[index][0].startswith("-"):
            value = tokens[index][0]
            index += 1
        elif not sep:
            continue
        yield name, value, (*base, *where)


# KubeletConfiguration ---------------------------------------------------------


def _kubelet_config(obj: KObject, inventory: Inventory) -> None:
    label = _describe(obj, "KubeletConfiguration")
    path: Path = ("featureGates",) if "featureGates" in obj.data else ("kind",)
    inventory.coverage[KUBELET].append(Where(KUBELET_CONFIG, obj, path, label))
    for gate, value in as_map(obj.data.get("featureGates")).items():
        enabled = _parse_bool(value)
        if isinstance(gate, str) and enabled is not None:
            where = Where(KUBELET_CONFIG, obj, ("featureGates", gate), label)
            inventory.settings.append(Setting(KUBELET, gate, enabled, where))


# kubeadm ----------------------------------------------------------------------


def _extra_args(value: Any) -> Iterator[tuple[str, str, Path]]:
    """kubeadm extraArgs: v1beta3 map {flag: value} or v1beta4 list [{name, value}]."""
    if isinstance(value, dict):
        for name, raw in value.items():
            text = _arg_text(raw)
            if isinstance(name, str) and text is not None:
                yield name, text, (name,)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            item = as_map(item)
            name = as_str(item.get("name"))
            text = _arg_text(item.get("value"))
            if name is not None and text is not None:
                yield name, text, (position, "value")


def _arg_text(raw: Any) -> str | None:
    if isinstance(raw, bool):
        return _word(raw)
    if isinstance(raw, (str, int)):
        return str(raw)
    return None


def _cluster_configuration(obj: KObject, inventory: Inventory) -> None:
    """A standalone kubeadm ClusterConfiguration: kubeadm writes the three control-plane static
    Pods from it, so it covers them (a gate it does not set has its default there)."""
    for section, component in KUBEADM_SECTIONS.items():
        label = _describe(obj, f"kubeadm ClusterConfiguration {section}")
        path: Path = (section,) if section in obj.data else ("kind",)
        cover = Where(KUBEADM_CLUSTER, obj, path, label, section=section)
        inventory.coverage[component].append(cover)
        if component == APISERVER:
            inventory.runtime_sources.append(cover)
        holder = as_map(obj.data.get(section))
        for name, value, arg_path in _extra_args(holder.get("extraArgs")):
            where = Where(KUBEADM_CLUSTER, obj, (section, "extraArgs", *arg_path), label, section=section)
            _add_flag(inventory, component, name, value, where)


def _add_flag(inventory: Inventory, component: str, name: str, value: str, where: Where) -> None:
    if name == "feature-gates":
        for gate, enabled in parse_feature_gates(value):
            inventory.settings.append(Setting(component, gate, enabled, where))
    elif name == "runtime-config" and component == APISERVER and where.obj is not None:
        for key, raw in parse_runtime_config(value):
            inventory.runtime_config.append((key, raw, where.obj))


def _node_configuration(obj: KObject, inventory: Inventory) -> None:
    """kubeadm Init/JoinConfiguration: kubelet flags. Explicit settings only: the kubelet's
    configuration file (KubeletConfiguration) may set other gates, so it covers nothing."""
    label = _describe(obj, f"kubeadm {obj.kind} nodeRegistration.kubeletExtraArgs")
    extra = dig(obj.data, "nodeRegistration", "kubeletExtraArgs")
    for name, value, arg_path in _extra_args(extra):
        if name == "feature-gates":
            where = Where(KUBEADM_NODE, obj, ("nodeRegistration", "kubeletExtraArgs", *arg_path), label)
            _add_flag(inventory, KUBELET, name, value, where)


# kind -------------------------------------------------------------------------


def _kind_cluster(obj: KObject, inventory: Inventory) -> None:
    """A kind Cluster writes every component's configuration: it covers all four. Its
    `featureGates` go to every component; kubeadmConfigPatches add per-component flags."""
    data = obj.data
    label = _describe(obj, "kind Cluster")
    patches: list[tuple[Path, dict[str, Any]]] = []
    for i, patch in enumerate(as_list(data.get("kubeadmConfigPatches"))):
        patches.extend((("kubeadmConfigPatches", i), document) for document in _patch_documents(patch))
    for n, node in enumerate(as_list(data.get("nodes"))):
        for i, patch in enumerate(as_list(as_map(node).get("kubeadmConfigPatches"))):
            patches.extend((("nodes", n, "kubeadmConfigPatches", i), document) for document in _patch_documents(patch))
    # Control-plane flags written in a ClusterConfiguration patch replace kind's cluster-wide
    # featureGates for that component, so advice must name the patch then.
    gate_patch = next(
        (
            path
            for path, document in patches
            if document.get("kind") == "ClusterConfiguration"
            and any(
                name == "feature-gates"
                for section in KUBEADM_SECTIONS
                for name, _, _ in _extra_args(as_map(document.get(section)).get("extraArgs"))
            )
        ),
        None,
    )
    path: Path = ("featureGates",) if "featureGates" in data else (gate_patch or ("kind",))
    cover = Where(KIND, obj, path, label, section=PATCHED if gate_patch else None)
    for component in COMPONENTS:
        inventory.coverage[component].append(cover)
    inventory.runtime_sources.append(cover)
    for gate, value in as_map(data.get("featureGates")).items():
        enabled = _parse_bool(value)
        if isinstance(gate, str) and enabled is not None:
            where = Where(KIND, obj, ("featureGates", gate), label)
            for component in COMPONENTS:
                inventory.settings.append(Setting(component, gate, enabled, where))
    for key, value in as_map(data.get("runtimeConfig")).items():
        text = _arg_text(value)
        if isinstance(key, str):
            inventory.runtime_config.append((key, text, obj))
    for patch_path, document in patches:
        _kind_patch(obj, patch_path, document, label, inventory)


def _patch_documents(patch: Any) -> list[dict[str, Any]]:
    if not isinstance(patch, str):
        return []
    try:
        return [d for d in yaml.safe_load_all(patch) if isinstance(d, dict)]
    except yaml.YAMLError:
        return []


def _kind_patch(obj: KObject, path: Path, document: dict[str, Any], label: str, inventory: Inventory) -> None:
    kind = document.get("kind")
    if kind == "ClusterConfiguration":
        for section, component in KUBEADM_SECTIONS.items():
            where = Where(
                KIND,
                obj,
                path,
                f"{label} kubeadmConfigPatches ({section}.extraArgs)",
                section=section,
            )
            for name, value, _ in _extra_args(as_map(document.get(section)).get("extraArgs")):
                _add_flag(inventory, component, name, value, where)
    elif kind in ("InitConfiguration", "JoinConfiguration"):
        where = Where(KIND, obj, path, f"{label} kubeadmConfigPatches ({kind} kubeletExtraArgs)")
        for name, value, _ in _extra_args(dig(document, "nodeRegistration", "kubeletExtraArgs")):
            if name == "feature-gates":
                _add_flag(inventory, KUBELET, name, value, where)
    elif kind == "KubeletConfiguration":
        where = Where(KIND, obj, path, f"{label} kubeadmConfigPatches (KubeletConfiguration)")
        for gate, value in as_map(document.get("featureGates")).items():
            enabled = _parse_bool(value)
            if isinstance(gate, str) and enabled is not None:
                inventory.settings.append(Setting(KUBELET, gate, enabled, where))


_READERS = {
    ("", "Pod"): _static_pod,
    ("kubelet.config.k8s.io", "KubeletConfiguration"): _kubelet_config,
    ("kubeadm.k8s.io", "ClusterConfiguration"): _cluster_configuration,
    ("kubeadm.k8s.io", "InitConfiguration"): _node_configuration,
    ("kubeadm.k8s.io", "JoinConfiguration"): _node_configuration,
    ("kind.x-k8s.io", "Cluster"): _kind_cluster,
}
