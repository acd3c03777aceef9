"""`waslint audit`: discovery, stored objects, feature gates, lint, and the upgrade verdict.

The objects are linted by the lint engine with the same rules as files (plus the WAS8xx runtime
rules, which need stored objects); the gates read from the components' metrics are the run's gate
inventory for the WAS7xx rules. The verdict is cluster-level: which stored objects and served
versions stand in the way of `--target-version`.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field

from waslint.audit.collect import AUDITED_GROUPS, Collection, Collector, StoredObject
from waslint.audit.gates import DEFAULT_KUBELETS, GateReading, inventory, inventory_yaml, read_gates
from waslint.audit.openapi import Validator, live_schemas
from waslint.io.config import Config
from waslint.io.loader import parse_bytes
from waslint.knowledge.lifecycle import api_lifecycle, preferred_entry
from waslint.knowledge.releases import Release, is_supported, parse_release, supported_text
from waslint.lint.context import RuntimeInputs
from waslint.lint.engine import LintResult, lint_sources
from waslint.lint.options import LintOptions
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import split_api_version
from waslint.sources.cluster.connection import Connection
from waslint.sources.cluster.discovery import Discovery, discover
from waslint.sources.cluster.lists import DEFAULT_PAGE_SIZE
from waslint.sources.gates import GatesFile


@dataclass
class AuditSettings:
    namespace: str | None = None  # None: every namespace
    page_size: int = DEFAULT_PAGE_SIZE
    max_kubelets: int = DEFAULT_KUBELETS


@dataclass
class AuditResult:
    context: str
    server: str
    server_version: str
    release: Release | None
    target: Release
    discovery: Discovery
    collection: Collection
    gates: GateReading
    gate_inventory: dict[str, dict[str, bool]]
    lint: LintResult
    live_schemas: list[str] = field(default_factory=list)  # "apiVersion kind" validated by the cluster's OpenAPI
    verdict: list[str] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return self.discovery.problems + self.collection.warnings


def release_of(git_version: str) -> Release | None:
    """`v1.36.4` (or `v1.36.4-eks-1a2b`) -> 1.36 when waslint knows that release."""
    release = parse_release(".".join(git_version.split("-")[0].split(".")[:3]))
    return release if release is not None and is_supported(release) else None


def served_was_versions(discovery: Discovery) -> list[str]:
    kinds = {"workloads", "podgroups", "compositepodgroups"}
    return sorted({r.version for r in discovery.resources if r.group == SCHEDULING and r.plural in kinds})


def verdict(discovery: Discovery, stored: list[StoredObject], release: Release | None, target: Release) -> list[str]:
    """What must change on the cluster before it runs `target` (or to use WAS on it at all)."""
    lines: list[str] = []
    lifecycle = [entry for entry in api_lifecycle() if entry.group == SCHEDULING]
    unserved: dict[str, int] = {}
    for obj in stored:
        _, version = split_api_version(obj.api_version)
        entries = [e for e in lifecycle if e.version == version and e.kind == obj.kind]
        if entries and not entries[0].served_in(target):
            unserved[f"{obj.kind} {obj.api_version}"] = unserved.get(f"{obj.kind} {obj.api_version}", 0) + 1
    for what, count in sorted(unserved.items()):
        lines.append(
            f"{count} stored {what} object(s): {target} does not serve this version and there is no conversion;"
            " export them, delete them before the upgrade, and re-create them at the new version (`waslint fix`"
            " rewrites the exported manifests)"
        )
    needed = {"Workload", "PodGroup"} | (
        {"CompositePodGroup"} if any(o.kind == "CompositePodGroup" for o in stored) else set()
    )
    target_versions = sorted({entry.version for kind in needed if (entry := preferred_entry(SCHEDULING, kind, target))})
    served = served_was_versions(discovery)
    upgrading = release is not None and target > release
    for version in target_versions if stored else ():
        if version in served:
            continue
        when = "after the upgrade" if upgrading else "now"
        lines.append(
            f"scheduling.k8s.io/{version} is not served {when}: start kube-apiserver with"
            f" --runtime-config=scheduling.k8s.io/{version}=true (alpha and new beta APIs are off by default)"
        )
    if release is None:
        lines.append(
            f"the server version {discovery.server_version or '?'} is not one waslint knows ({supported_text()})"
        )
    return lines


def run_audit(
    connection: Connection,
    options: LintOptions,
    config: Config,
    settings: AuditSettings,
    progress: Callable[[str], None] = lambda _message: None,
) -> AuditResult:
    progress("discovery")
    discovery = discover(connection, AUDITED_GROUPS)
    release = release_of(discovery.server_version)
    collection = Collector(
        connection, discovery, settings.namespace, settings.page_size, options.target, progress
    ).run()
    progress("feature gates")
    reading = read_gates(connection, collection.node_names, collection.control_plane_pods, settings.max_kubelets)
    gate_inventory = inventory(reading, release or options.target)
    gates_path = f"cluster://{connection.context}/feature-gates"
    gates_source = parse_bytes(gates_path, inventory_yaml(gate_inventory, reading).encode())
    options.gates = GatesFile(gates_path, gate_inventory, gates_source.documents[0], from_metrics=True)
    schemas: dict[tuple[str, str], Validator] = {}
    if release == options.target:  # the cluster's schemas describe its own release only
        progress("schemas")
        schemas, schema_problems = live_schemas(connection, discovery)
        discovery.problems.extend(schema_problems)
    options.runtime = RuntimeInputs(options.runtime.thresholds, collection.listed_kinds, schemas)
    progress("lint")
    gc.freeze()  # the sources live until the run ends: the collector need not rescan them
    try:
        result = lint_sources(collection.sources, options, config)
    finally:
        gc.unfreeze()
    for finding in result.findings:
        finding.fixable = False  # `waslint fix` rewrites manifests, never a live object
    return AuditResult(
        context=connection.context,
        server=connection.server,
        server_version=discovery.server_version,
        release=release,
        target=options.target,
        discovery=discovery,
        collection=collection,
        gates=reading,
        gate_inventory=gate_inventory,
        lint=result,
        live_schemas=sorted(f"{api_version} {kind}" for api_version, kind in schemas),
        verdict=verdict(discovery, collection.stored, release, options.target),
    )
