"""What every rule can see during one run: the set index, the target release, and the typed inputs
a run reads beside manifests (a cluster snapshot, a --gates file, a --base revision)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any, TypeVar

from waslint.core.records import dataclass
from waslint.io.loader import SourceFile
from waslint.knowledge.releases import Release, default_target, milestone
from waslint.objects.index import ObjectIndex

if TYPE_CHECKING:  # loaded only by the runs that read them (lint.engine.prepare_context)
    import datetime

    from waslint.sources.gates import GatesFile
    from waslint.sources.gitbase import BaseSet
    from waslint.sources.snapshot import Snapshot

T = TypeVar("T")


@dataclass(frozen=True)
class RuntimeInputs:
    """What the WAS8xx rules read beside stored objects: thresholds in seconds (config `runtime:`),
    and in a live audit which kinds were read in full, `(group, kind) -> "*" or a set of namespaces`
    (None: the set is all there is)."""

    thresholds: dict[str, float] = field(default_factory=dict)
    listed_kinds: dict[tuple[str, str], Any] | None = None
    # (apiVersion, kind) -> validator from the cluster's own OpenAPI v3, preferred by WAS002
    live_schemas: dict[tuple[str, str], Callable[[object], list[Any]]] = field(default_factory=dict)
    # the moment ages are measured from: one for an audit linted a group of namespaces at a time
    # (None: each run's own start)
    now: datetime.datetime | None = None


@dataclass
class Context:
    """What rules read besides the object: the set's index, target release and cluster inputs."""

    index: ObjectIndex
    files: list[SourceFile]
    target: Release = field(default_factory=default_target)
    namespace: str = "default"
    snapshot: Snapshot | None = None
    gates: GatesFile | None = None
    base: BaseSet | None = None
    runtime: RuntimeInputs = field(default_factory=RuntimeInputs)
    _derived: dict[str, Any] = field(default_factory=dict, repr=False)

    def derive(self, key: str, build: Callable[[Context], T]) -> T:
        """Per-run data that several rules read (priority classes, the gate inventory): built on
        first use, then shared."""
        if key not in self._derived:
            self._derived[key] = build(self)
        value: T = self._derived[key]
        return value

    def target_at_least(self, milestone_name: str) -> bool:
        """Whether the target release has the change named in releases.yaml's milestones."""
        return self.target >= milestone(milestone_name)
