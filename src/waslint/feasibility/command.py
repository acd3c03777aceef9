"""`waslint feasibility --snapshot SNAP [PATH ...]`: read, place, report. Exit 1 when a group
cannot be placed, 2 when the run itself fails (raised as UsageError)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from waslint.core.model import Severity, Span
from waslint.feasibility.admission import QueueBook, build_book
from waslint.feasibility.analysis import (
    Cluster,
    Run,
    WhatIf,
    WhatIfError,
    analyse,
    assign_levels,
    build_cluster,
    co_locate_shared_claims,
    read_upstream,
    topology_levels,
)
from waslint.feasibility.caveats import add_caveats
from waslint.feasibility.dra import DRA_GROUP, ClaimBook, claim_book
from waslint.feasibility.explain import Verdict
from waslint.feasibility.gangs import collect
from waslint.feasibility.model import Gang, never_preempting, priority_table
from waslint.feasibility.render import Located, to_json, to_text
from waslint.findings import Finding
from waslint.io.discover import discover
from waslint.io.loader import SourceFile, load_all
from waslint.objects.index import ObjectIndex
from waslint.objects.keys import PODGROUP
from waslint.objects.kobject import KObject
from waslint.sources.snapshot import Snapshot, SnapshotError, load_snapshot

FORMATS = ("text", "concise", "json", "sarif", "junit", "github")
CODE, NAME = "WAS606", "gang-unplaceable"
TOPOLOGY_KINDS = (("kueue.x-k8s.io", "Topology"), ("kai.scheduler", "Topology"))


class UsageError(Exception):
    """The run cannot go on: exit status 2 with this one-line message."""


@dataclass
class FeasibilityRequest:
    snapshot: str
    paths: list[str]
    fmt: str = "text"
    namespace: str = "default"
    what_if: WhatIf = field(default_factory=WhatIf)
    color: bool = False


@dataclass
class Outcome:
    text: str
    status: int
    warnings: list[str] = field(default_factory=list)  # for stderr: the run went on


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off while snapshots, manifests and the placement state are
    built: they are acyclic, all kept to the end, and re-scanning the growing heap costs more
    than the work itself (x10 on composing positions of a 1 MB manifest, x2 on loading JSON)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run(request: FeasibilityRequest) -> Outcome:
    with paused_gc():
        return _run(request)


def _run(request: FeasibilityRequest) -> Outcome:
    if request.fmt not in FORMATS:
        raise UsageError(f"--format: {request.fmt!r} is not one of {', '.join(FORMATS)}")
    try:
        snapshot = load_snapshot(request.snapshot)
    except SnapshotError as err:
        raise UsageError(str(err)) from err
    files = _manifests(request.paths)
    index = ObjectIndex.build(files, request.namespace)
    result, located = check(snapshot, index, request.what_if)
    summary = {"path": snapshot.path, **result.summary}
    said = request.what_if.describe()
    if request.fmt == "json":
        text = to_json(summary, located, said)
    elif request.fmt == "text":
        text = to_text(summary, located, said, request.color)
    else:
        text = _common_report(request.fmt, located, files)
    status = 1 if any(not item.verdict.feasible for item in located) else 0
    unread = [f"{source.path}:{p.line}:{p.column}: not read: {p.message}" for source in files for p in source.problems]
    return Outcome(text, status, [*snapshot.warnings, *unread, *result.warnings])


@dataclass
class Checked:
    run: Run
    summary: dict[str, int]
    warnings: list[str] = field(default_factory=list)


def check(snapshot: Snapshot, index: ObjectIndex, what_if: WhatIf | None = None) -> tuple[Checked, list[Located]]:
    """Place every group of the set on the snapshot; verdicts with their source locations."""
    with paused_gc():
        return _check(snapshot, index, what_if or WhatIf())


def _check(snapshot: Snapshot, index: ObjectIndex, what_if: WhatIf) -> tuple[Checked, list[Located]]:
    classes = [obj.data for obj in snapshot.priority_classes]
    classes += [obj.data for obj in index.of_kind("scheduling.k8s.io", "PriorityClass")]
    priorities, default = priority_table(classes)
    collected = collect(index, priorities, default, _claims(snapshot, index), never_preempting(classes))
    try:
        cluster = build_cluster(
            [obj.data for obj in snapshot.nodes],
            [obj.data for obj in snapshot.pods],
            classes,
            what_if,
            collected.all_groups,
            [obj.data for obj in snapshot.resource_slices],
        )
    except WhatIfError as err:
        raise UsageError(str(err)) from err
    apply_readings(collected.gangs, snapshot, index)
    queues = queue_book(snapshot, index, cluster)
    result = analyse(cluster, collected.gangs, what_if.preempt, queues)
    located = [_locate(verdict) for verdict in result.verdicts]
    return Checked(result, cluster.summary()), located


QUEUE_KINDS = (
    ("scheduling.run.ai", "Queue"),
    ("kueue.x-k8s.io", "ClusterQueue"),
    ("kueue.x-k8s.io", "LocalQueue"),
    ("kueue.x-k8s.io", "ResourceFlavor"),
    ("scheduling.volcano.sh", "Queue"),
)


def queue_book(snapshot: Snapshot, index: ObjectIndex, cluster: Cluster) -> QueueBook:
    """The queues of the snapshot, those of the set replacing captured ones of the same name."""
    objects = [*snapshot.queue_objects(), *(obj for kind in QUEUE_KINDS for obj in index.of_kind(*kind))]
    total: dict[str, int] = {}
    for node in cluster.state.nodes:
        if node.ready and not node.unschedulable:
            for resource, amount in node.allocatable.items():
                total[resource] = total.get(resource, 0) + amount
    return build_book(objects, list(cluster.state.running), total)


def apply_readings(gangs: list[Gang], snapshot: Snapshot, index: ObjectIndex) -> None:
    """What the schedulers decide about the gangs before placement: Kueue/KAI domains as paths of
    their Topology levels, missing PodGroups and basic groups, shared claims, and the caveats of
    what is not modelled (bound members are read in `analyse`, from the cluster state)."""
    topologies = [obj.data for obj in snapshot.topologies]
    topologies += [obj.data for kind in TOPOLOGY_KINDS for obj in index.of_kind(*kind)]
    assign_levels(gangs, topology_levels(topologies))
    read_upstream(gangs, lambda namespace, name: index.get(*PODGROUP, namespace, name) is not None)
    co_locate_shared_claims(gangs, bool(snapshot.resource_slices))
    add_caveats(gangs)


def _claims(snapshot: Snapshot, index: ObjectIndex) -> ClaimBook:
    """DRA claim templates and device classes of the set; devices are charged only when the
    snapshot has ResourceSlices to hold them against."""
    templates = [(obj.namespace, obj.data) for obj in index.of_kind(DRA_GROUP, "ResourceClaimTemplate")]
    classes = [obj.data for obj in index.of_kind(DRA_GROUP, "DeviceClass")]
    return claim_book(templates, classes, bool(snapshot.resource_slices))


def _locate(verdict: Verdict) -> Located:
    origin = verdict.gang.origin
    if not isinstance(origin, KObject):
        return Located(verdict, None, None)
    span = origin.doc.locate(origin.full_path(verdict.gang.min_path))
    return Located(verdict, origin.file.path, span.line)


def _manifests(paths: list[str]) -> list[SourceFile]:
    found, errors = discover(paths or ["."])
    if errors:
        raise UsageError("; ".join(errors))
    files = load_all(found, sys.stdin.buffer if "-" in found else None)
    return files


def findings_for(located: list[Located]) -> list[Finding]:
    """WAS606 findings for the groups that cannot be placed (for sarif, junit, github)."""
    found = []
    for item in located:
        verdict = item.verdict
        origin = verdict.gang.origin
        if verdict.feasible or not isinstance(origin, KObject):
            continue
        path = origin.full_path(verdict.gang.min_path)
        span = origin.doc.locate(path)
        found.append(
            Finding(
                code=CODE,
                name=NAME,
                severity=Severity.ERROR,
                message=message(verdict),
                path=origin.file.path,
                document=origin.doc.index,
                span=span if span is not None else Span(1, 1, 1, 1),
                object_id=origin.object_id,
                field_path=path,
                doc=origin.doc,
            )
        )
    return sorted(found, key=lambda finding: finding.sort_key())


def message(verdict: Verdict) -> str:
    if verdict.over_quota:
        return f"{verdict.gang} is not admitted by its queue on the snapshot's cluster: {verdict.summary_line()}"
    return f"{verdict.gang} cannot be placed all-or-nothing on the snapshot's cluster: {verdict.summary_line()}"


def _common_report(fmt: str, located: list[Located], files: list[SourceFile]) -> str:
    from waslint.knowledge.releases import default_target
    from waslint.report import ReportInput, render

    report = ReportInput(
        findings=findings_for(located),
        files=len(files),
        documents=sum(len(source.documents) for source in files),
        target_version=str(default_target()),
        sources={source.path: source.text for source in files},
    )
    return render(fmt, report)
