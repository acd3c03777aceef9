"""Feature gates of a live cluster, from each component's `kubernetes_feature_enabled` metric.

The API server's `/metrics`, each kubelet's through the node proxy (`/api/v1/nodes/NAME/proxy/metrics`,
a sample of the nodes), kube-scheduler and kube-controller-manager through the pod proxy of their
static Pods when RBAC lets us. A component that cannot be read is unknown, never off.

What the gate rules (WAS7xx) receive is the run's gate inventory, `{component: {Gate: bool}}` like a
`--gates` file, holding only the gates whose value differs from the current release's default: a
metric lists every gate the binary knows, so a value equal to the default cannot be told apart
from "not set", and it is what the target release's default replaces on upgrade.

The exposition text is read with `prometheus-client`'s own parser (a dependency of the cluster
commands only, imported here), on the `kubernetes_feature_enabled` sample lines alone, picked
out first in one linear pass; a line longer than MAX_METRIC_LINE or that the parser rejects is
skipped. Node and Pod names reach the proxy paths only through `sources/cluster/paths.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from waslint.knowledge.gates import APISERVER, CONTROLLER_MANAGER, KUBELET, SCHEDULER, gate_table
from waslint.knowledge.releases import Release
from waslint.sources.cluster import paths
from waslint.sources.cluster.connection import ClusterError, Connection, RequestFailed

METRIC_NAME = "kubernetes_feature_enabled"
MAX_METRIC_LINE = 4096  # a gate's sample line is under 200 characters
DEFAULT_KUBELETS = 20
# Static control-plane Pods (kubeadm labels them component=<name>) and their secure metrics ports.
CONTROL_PLANE_PODS = ((SCHEDULER, "kube-scheduler", 10259), (CONTROLLER_MANAGER, "kube-controller-manager", 10257))


def feature_lines(text: str) -> list[str]:
    """The `kubernetes_feature_enabled` sample lines, found in one linear pass over the reply."""
    prefix = METRIC_NAME + "{"
    return [line for line in text.splitlines() if line.startswith(prefix) and len(line) <= MAX_METRIC_LINE]


def parse_feature_metrics(text: str) -> dict[str, tuple[str, bool]]:
    """{gate: (stage, enabled)} from Prometheus text (prometheus-client's parser, line by line:
    one malformed line costs only itself)."""
    from prometheus_client.parser import text_string_to_metric_families

    gates: dict[str, tuple[str, bool]] = {}
    for line in feature_lines(text):
        try:
            samples = [sample for family in text_string_to_metric_families(line + "\n") for sample in family.samples]
        except (ValueError, TypeError, IndexError):
            continue
        for sample in samples:
            name, value = sample.labels.get("name"), sample.value
            if sample.name != METRIC_NAME or not name or not isinstance(value, float | int) or math.isnan(value):
                continue
            gates[name] = (sample.labels.get("stage", ""), value >= 0.5)
    return gates


@dataclass
class ComponentGates:
    component: str
    instance: str  # node name, Pod name, or the API server address
    gates: dict[str, tuple[str, bool]] | None = None  # None: could not be read
    problem: str = ""

    @property
    def known(self) -> bool:
        return self.gates is not None


@dataclass
class GateReading:
    components: list[ComponentGates] = field(default_factory=list)
    kubelets_total: int = 0

    def unknown(self) -> list[ComponentGates]:
        return [component for component in self.components if not component.known]


def _read(connection: Connection, component: str, instance: str, path: str) -> ComponentGates:
    try:
        gates = parse_feature_metrics(connection.get_text(path))
    except RequestFailed as failure:
        reason = "forbidden by RBAC" if failure.status == 403 else f"{failure.status} {failure.reason}"
        return ComponentGates(component, instance, None, reason)
    except ClusterError as error:
        return ComponentGates(component, instance, None, str(error))
    if not gates:  # every component lists all the gates it knows: none means the metric is not there
        return ComponentGates(component, instance, None, "no kubernetes_feature_enabled metric")
    return ComponentGates(component, instance, gates)


def sample(names: list[str], limit: int) -> list[str]:
    """Up to `limit` names spread evenly over the sorted list (node pools tend to be name ranges)."""
    if limit <= 0:
        return []
    if len(names) <= limit:
        return names
    step = len(names) / limit
    return [names[int(index * step)] for index in range(limit)]


def read_gates(
    connection: Connection, node_names: list[str], control_plane_pods: dict[str, list[str]], max_kubelets: int
) -> GateReading:
    reading = GateReading(kubelets_total=len(node_names))
    reading.components.append(_read(connection, APISERVER, connection.server, "/metrics"))
    for node in sample(sorted(node_names), max_kubelets):
        try:
            path = paths.node_proxy(node, "metrics")
        except paths.InvalidName as error:
            reading.components.append(ComponentGates(KUBELET, node, None, f"not read: {error}"))
            continue
        reading.components.append(_read(connection, KUBELET, node, path))
    for component, _, port in CONTROL_PLANE_PODS:
        pods = control_plane_pods.get(component, [])
        if not pods:
            reading.components.append(ComponentGates(component, "-", None, "no static Pod visible in kube-system"))
        for pod in pods:
            try:
                path = paths.pod_proxy("kube-system", pod, "https", port, "metrics")
            except paths.InvalidName as error:
                reading.components.append(ComponentGates(component, pod, None, f"not read: {error}"))
                continue
            reading.components.append(_read(connection, component, pod, path))
    return reading


def _is_default(gate: str, enabled: bool, release: Release) -> bool:
    info = gate_table().get(gate)
    entry = info.at(release) if info is not None else None
    return entry is not None and entry.confirmed and entry.default is enabled


def inventory(reading: GateReading, release: Release) -> dict[str, dict[str, bool]]:
    """`{component: {Gate: bool}}` for the WAS gates set away from `release`'s defaults on the
    components that could be read. Instances of one component that disagree count as off: the
    gate is not usable everywhere (the audit document lists each instance)."""
    table = gate_table()
    values: dict[str, dict[str, list[bool]]] = {}
    for component in reading.components:
        if component.gates is None:
            continue
        per_gate = values.setdefault(component.component, {})
        for gate, (_, enabled) in component.gates.items():
            if gate in table:
                per_gate.setdefault(gate, []).append(enabled)
    found: dict[str, dict[str, bool]] = {}
    for component_name, per_gate in values.items():
        entries = found.setdefault(component_name, {})
        for gate, seen in per_gate.items():
            if not all(_is_default(gate, enabled, release) for enabled in seen):
                entries[gate] = all(seen)
    return found


def inventory_yaml(gates: dict[str, dict[str, bool]], reading: GateReading) -> str:
    """The inventory as the text findings point into (like a --gates file)."""
    lines = ["# Feature gates read from each component's kubernetes_feature_enabled metric,"]
    lines.append("# only those set away from the release's default. Unknown components:")
    for unknown in reading.unknown():
        lines.append(f"#   {unknown.component} {unknown.instance}: {unknown.problem}")
    for component, entries in gates.items():
        if not entries:
            lines.append(f"{component}: {{}}")
            continue
        lines.append(f"{component}:")
        lines.extend(f"  {gate}: {'true' if value else 'false'}" for gate, value in sorted(entries.items()))
    return "\n".join(lines) + "\n"
