"""`waslint audit`: discovery, stored objects, feature gates, lint, and the upgrade verdict.

The objects are linted by the lint engine with the same rules as files (plus the WAS8xx runtime
rules, which need stored objects); the gates read from the components' metrics are the run's gate
inventory for the WAS7xx rules. The verdict is cluster-level: which stored objects and served
versions stand in the way of `--target-version`.
"""

from __future__ import annotations

import datetime
import gc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from waslint.audit.collect import (
    AUDITED_GROUPS,
    NO_NAMESPACE,
    Collection,
    Collector,
    ObjectStore,
    StoredSource,
    StoredTexts,
)
from waslint.audit.gates import DEFAULT_KUBELETS, GateReading, inventory, inventory_yaml, read_gates
from waslint.audit.openapi import Validator, live_schemas
from waslint.findings import Finding
from waslint.io.config import Config
from waslint.io.loader import SourceFile, parse_bytes
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
    def texts(self) -> StoredTexts:
        """path -> text of the audited objects, for the report (every object is listed)."""
        return StoredTexts(self.collection.store, self.lint.files)

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


def verdict(
    discovery: Discovery, was_objects: Counter[tuple[str, str]], release: Release | None, target: Release
) -> list[str]:
    """What must change on the cluster before it runs `target` (or to use WAS on it at all);
    `was_objects`: the stored WAS objects, (kind, apiVersion) -> how many."""
    lines: list[str] = []
    lifecycle = [entry for entry in api_lifecycle() if entry.group == SCHEDULING]
    unserved: dict[str, int] = {}
    for (kind, api_version), count in was_objects.items():
        _, version = split_api_version(api_version)
        entries = [e for e in lifecycle if e.version == version and e.kind == kind]
        if entries and not entries[0].served_in(target):
            unserved[f"{kind} {api_version}"] = unserved.get(f"{kind} {api_version}", 0) + count
    for what, count in sorted(unserved.items()):
        lines.append(
            f"{count} stored {what} object(s): {target} does not serve this version and there is no conversion;"
            " export them, delete them before the upgrade, and re-create them at the new version (`waslint fix`"
            " rewrites the exported manifests)"
        )
    needed = {"Workload", "PodGroup"} | (
        {"CompositePodGroup"} if any(kind == "CompositePodGroup" for kind, _ in was_objects) else set()
    )
    target_versions = sorted({entry.version for kind in needed if (entry := preferred_entry(SCHEDULING, kind, target))})
    served = served_was_versions(discovery)
    upgrading = release is not None and target > release
    for version in target_versions if was_objects else ():
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


# Namespaces are linted together until a group would hold more objects than this; a namespace
# that alone holds more is linted alone, its equal values held once (ObjectStore.sources share).
SHARD_OBJECTS = 5_000


def shards(store: ObjectStore, size: int = SHARD_OBJECTS, default_namespace: str = "default") -> list[list[str]]:
    """The namespaces in groups of about `size` objects. A namespace is never split, and the
    objects a server sent without their namespace go with `default_namespace`, where the lint
    puts them (objects/kobject.py make_object)."""
    units = [[namespace] for namespace in store.namespaces() if namespace != NO_NAMESPACE]
    if NO_NAMESPACE in store.namespaces():
        unit = next((unit for unit in units if unit[0] == default_namespace), None)
        if unit is None:
            units.append(unit := [default_namespace])
        unit.append(NO_NAMESPACE)
    groups: list[list[str]] = [[]]
    held = 0
    for unit in units:
        objects = sum(store.size(namespace) for namespace in unit)
        if groups[-1] and held + objects > size:
            groups.append([])
            held = 0
        groups[-1].extend(unit)
        held += objects
    return [group for group in groups if group]


def lint_store(
    store: ObjectStore,
    options: LintOptions,
    config: Config,
    progress: Callable[[str], None] = lambda _message: None,
    size: int = SHARD_OBJECTS,
    shared_limit: int = SHARD_OBJECTS,
) -> LintResult:
    """Lint the stored objects as one cluster, a group of namespaces at a time: each group with
    every cluster-scoped and cluster-wide object (the queues, priority classes and flavors every
    namespace's objects may name; the gate sources), so the findings are the whole cluster's
    (ObjectStore) while memory holds one group's objects, not the cluster's. A first run over the
    shared objects alone gives the findings on cluster-scoped objects and on no object (the gates
    read from the cluster); each group keeps the findings on its own namespaces' objects. The
    summary counts every object; the result holds the sources that findings point at (a report
    quotes them)."""
    run = _GroupRun(store, store.shared(), options, config, size)
    groups = shards(store, size, options.namespace)
    notes = []
    if len(run.shared) > shared_limit and len(groups) > 1:
        # every group reads the shared objects again: so many (not a real cluster's queues and
        # priority classes) are read once, with the cluster as one group
        notes.append(
            f"{len(run.shared)} cluster-scoped objects, more than {shared_limit}: the cluster is linted as"
            " one group of namespaces, so its memory follows the whole cluster"
        )
        groups = [[namespace for group in groups for namespace in group]]
    gc.freeze()  # what lives through every group: the collector need not rescan it after each
    try:
        for number, group in enumerate([[], *groups]):
            run.lint(group)
            progress(f"lint: {number + 1} of {len(groups) + 1} groups of namespaces")
    finally:
        gc.unfreeze()
    run.findings.sort(key=Finding.sort_key)
    return LintResult(run.findings, list(run.quoted.values()), run.internal, notes=notes, objects=store.count)


class _GroupRun:
    """The lint of one group of namespaces after another, and what they found."""

    def __init__(
        self,
        store: ObjectStore,
        shared: list[tuple[SourceFile, str | None]],
        options: LintOptions,
        config: Config,
        size: int,
    ) -> None:
        self.store = store
        self.size = size
        self.shared = [source for source, _ in shared]
        # the shared objects whose findings a group keeps: namespace -> ids of their sources
        self.wide: dict[str, set[int]] = {}
        for source, namespace in shared:
            if namespace is not None:
                self.wide.setdefault(namespace, set()).add(id(source))
        self.options = options
        self.config = config
        self.findings: list[Finding] = []
        self.internal: list[str] = []
        self.quoted: dict[str, SourceFile] = {}

    def lint(self, group: list[str]) -> None:
        """Lint one group (none: the shared objects alone), keep the findings on its own
        objects, then drop what it held."""
        share = sum(self.store.size(namespace) for namespace in group) > self.size
        own = self.store.group(group, share)
        enabled = gc.isenabled()
        gc.disable()  # what one group holds is freed whole when it is done
        try:
            result = lint_sources(self.shared + own, self.options, self.config)
        finally:
            if enabled:
                gc.enable()
        owned = self._owned(group, own)
        kept = [finding for finding in result.findings if _owned_by(owned, bool(group), finding)]
        self.findings.extend(kept)
        self.internal.extend(message for message in result.internal_errors if message not in self.internal)
        pointed = [source for finding in kept if (source := _source_of(finding)) is not None]
        for source in pointed:
            self.quoted.setdefault(source.path, source)
        self._drop(result, own, {id(source) for source in pointed})

    def _owned(self, group: list[str], own: list[SourceFile]) -> set[int]:
        """The sources whose findings this run keeps (by identity): the group's objects and its
        namespaces' cluster-wide ones; for the first run (no group), the shared objects that are
        no namespace's."""
        if group:
            return {id(source) for source in own} | {i for namespace in group for i in self.wide.get(namespace, ())}
        every_wide = {identity for identities in self.wide.values() for identity in identities}
        return {id(source) for source in self.shared if id(source) not in every_wide}

    def _drop(self, result: LintResult, own: list[SourceFile], pointed: set[int]) -> None:
        """Free what the group held as its last reference goes, instead of by a scan of everything
        it allocated: break the cycles (a source and its document, an object and the readings it
        memoises, which point back at it), and keep of a finding's object its one-line text and
        values only."""
        if result.context is not None:
            for obj in result.context.index.objects:
                obj.forget()
        for source in own:
            if id(source) not in pointed:  # a finding's document keeps its file's
                source.documents = []
        for source in [*own, *self.shared]:
            if isinstance(source, StoredSource):
                source.forget_text()
        gc.collect()


def _owned_by(owned: set[int], group: bool, finding: Finding) -> bool:
    """Whether a run keeps a finding: on a source it owns; the first run also keeps the findings
    on no object and on a file of no namespace (the gates read from the cluster)."""
    source = _source_of(finding)
    if source is not None and id(source) in owned:
        return True
    return not group and (source is None or not isinstance(source, StoredSource))


def _source_of(finding: Finding) -> SourceFile | None:
    return finding.doc.file if finding.doc is not None else None


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
    started = datetime.datetime.now(datetime.timezone.utc)  # one moment for every group's ages
    options.runtime = RuntimeInputs(options.runtime.thresholds, collection.listed_kinds, schemas, started)
    result = lint_store(collection.store, options, config, progress)
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
        verdict=verdict(discovery, collection.was_objects, release, options.target),
    )
