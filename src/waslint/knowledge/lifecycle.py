"""The API lifecycle table (`api-lifecycle.yaml`, pluto's model): which apiVersion of each kind a
release serves, at which stage, what replaces it, and how it spells the fields a later release
renamed (`field_names`: the one place that decides `policy` or `schedulingPolicy`)."""

from __future__ import annotations

import functools

from waslint.core.records import dataclass
from waslint.knowledge.releases import Release, parse_release
from waslint.knowledge.tables import load_table


@dataclass(frozen=True)
class FieldNames:
    """The names an apiVersion gives the group fields releases renamed or added: the Workload's
    list of PodGroup templates, its list of composite templates (None before 1.37), and a
    template's scheduling policy."""

    templates: str = "podGroupTemplates"
    policy: str = "schedulingPolicy"
    composite: str | None = "compositePodGroupTemplates"


LATEST_FIELDS = FieldNames()


@dataclass(frozen=True)
class ApiVersionEntry:
    """One apiVersion of a kind: its stage and the releases that serve it."""

    group: str
    version: str
    kind: str
    stage: str
    introduced: Release
    removed: Release | None
    notice: str | None
    fields: FieldNames = LATEST_FIELDS

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"

    def served_in(self, release: Release) -> bool:
        if release < self.introduced:
            return False
        return self.removed is None or release < self.removed


@functools.cache
def api_lifecycle() -> tuple[ApiVersionEntry, ...]:
    rows = load_table("api-lifecycle.yaml")["apis"]
    return tuple(
        ApiVersionEntry(
            group=row["group"],
            version=row["version"],
            kind=row["kind"],
            stage=row["stage"],
            introduced=_release(row["introduced"]),
            removed=_release(row["removed"]) if row.get("removed") is not None else None,
            notice=row.get("notice"),
            fields=FieldNames(**row["fields"]) if row.get("fields") else LATEST_FIELDS,
        )
        for row in rows
    )


def _release(value: object) -> Release:
    release = parse_release(str(value))
    if release is None:
        raise ValueError(f"api-lifecycle.yaml: {value!r} is not a release")
    return release


def lifecycle_entry(group: str, version: str, kind: str) -> ApiVersionEntry | None:
    for entry in api_lifecycle():
        if (entry.group, entry.version, entry.kind) == (group, version, kind):
            return entry
    return None


def field_names(group: str, version: str, kind: str) -> FieldNames:
    """How this apiVersion of a kind spells the group fields releases renamed or added; a version
    the table does not know (or a kind without templates) gets the current names."""
    entry = lifecycle_entry(group, version, kind)
    return entry.fields if entry is not None else LATEST_FIELDS


def current_line(group: str, version: str, kind: str) -> bool:
    """Whether this apiVersion belongs to the line no release has removed yet (v1beta1 and
    v1alpha3 in 1.37): the versions the hand-written checks of today's upstream apply to."""
    entry = lifecycle_entry(group, version, kind)
    return entry is not None and entry.removed is None


def same_schema(group: str, kind: str, version: str, other: str) -> bool:
    """Whether two apiVersions of a kind share one schema: the same version, or versions that
    came and go together (v1alpha3 and v1beta1 of 1.37), so revisions compare field by field."""
    if version == other:
        return True
    one, two = lifecycle_entry(group, version, kind), lifecycle_entry(group, other, kind)
    return one is not None and two is not None and (one.introduced, one.removed) == (two.introduced, two.removed)


_STAGE_RANK = {"alpha": 0, "beta": 1, "ga": 2}


def preferred_entry(group: str, kind: str, release: Release) -> ApiVersionEntry | None:
    """The most mature version of a kind that a release serves."""
    served = [e for e in api_lifecycle() if (e.group, e.kind) == (group, kind) and e.served_in(release)]
    if not served:
        return None
    return max(served, key=lambda e: _STAGE_RANK.get(e.stage, 0))
