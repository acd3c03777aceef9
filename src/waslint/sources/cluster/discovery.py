"""What a cluster serves: its version and, per group version, the resources (kind, scope, verbs).

Aggregated discovery (one `GET /api` and one `GET /apis` answered as `APIGroupDiscoveryList`) when
the server offers it, else `/apis` and one `APIResourceList` per group version of interest. A group
version whose discovery fails (an aggregated API that is down, a 403) is recorded, not fatal.

Every field is checked for its JSON type where it is read, and every group, version and resource
name against the Kubernetes name rules (they become URL segments, paths.py): an entry that fails
is left out and recorded in `problems`; a root document that is not a discovery document at all
ends the run (`BadReply`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from waslint.sources.cluster import paths
from waslint.sources.cluster.connection import BadReply, Connection, RequestFailed

AGGREGATED_ACCEPT = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)


@dataclass(frozen=True)
class APIResource:
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...]

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def api_version(self) -> str:
        return self.group_version

    def path(self, namespace: str | None = None) -> str:
        """The list path; every part was checked when discovery read it, the namespace is checked here."""
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if namespace and self.namespaced:
            return f"{root}/namespaces/{paths.namespace(namespace)}/{self.plural}"
        return f"{root}/{self.plural}"


@dataclass
class Discovery:
    server_version: str
    resources: list[APIResource] = field(default_factory=list)
    aggregated: bool = False
    problems: list[str] = field(default_factory=list)  # group versions whose discovery failed

    def versions(self, group: str) -> list[str]:
        seen: list[str] = []
        for resource in self.resources:
            if resource.group == group and resource.version not in seen:
                seen.append(resource.version)
        return seen

    def find(self, group: str, plural: str) -> list[APIResource]:
        """Every served version of one resource, in the server's preference order."""
        return [resource for resource in self.resources if resource.group == group and resource.plural == plural]

    def preferred(self, group: str, plural: str) -> APIResource | None:
        found = self.find(group, plural)
        return found[0] if found else None


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _entries(value: Any, what: str, problems: list[str]) -> list[dict[str, Any]]:
    """A list of JSON objects; anything else is recorded and read as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(f"{what}: a {type(value).__name__}, not a list")
        return []
    kept = [entry for entry in value if isinstance(entry, dict)]
    if len(kept) < len(value):
        problems.append(f"{what}: {len(value) - len(kept)} entries that are not objects")
    return kept


def _resource(
    group: Any, version: Any, plural: Any, kind: Any, namespaced: bool, verbs: Any, problems: list[str]
) -> APIResource | None:
    try:
        checked = (paths.group(group), paths.version(version), paths.resource(plural))
    except paths.InvalidName as error:
        problems.append(f"discovery entry left out: {error}")
        return None
    if not isinstance(kind, str) or not kind.isalnum():
        problems.append(f"discovery entry {checked[0] or 'core'}/{checked[1]}/{checked[2]} left out: no valid kind")
        return None
    verb_list = tuple(verb for verb in verbs if isinstance(verb, str)) if isinstance(verbs, list) else ()
    return APIResource(checked[0], checked[1], checked[2], kind, namespaced, verb_list)


def _from_aggregated(body: Any, problems: list[str]) -> Iterable[APIResource]:
    for item in _entries(_map(body).get("items"), "aggregated discovery items", problems):
        group = _map(item.get("metadata")).get("name", "")
        for version_entry in _entries(item.get("versions"), f"versions of group {group!r}", problems):
            version = version_entry.get("version", "")
            for entry in _entries(version_entry.get("resources"), f"resources of {group}/{version}", problems):
                found = _resource(
                    group,
                    version,
                    entry.get("resource"),
                    _map(entry.get("responseKind")).get("kind"),
                    entry.get("scope") == "Namespaced",
                    entry.get("verbs"),
                    problems,
                )
                if found is not None:
                    yield found


def _from_resource_list(group: str, version: str, body: Any, problems: list[str]) -> Iterable[APIResource]:
    for entry in _entries(_map(body).get("resources"), f"resources of {group or 'core'}/{version}", problems):
        name = entry.get("name")
        if isinstance(name, str) and "/" in name:  # subresources (status, scale, proxy) are not listed
            continue
        found = _resource(
            group, version, name, entry.get("kind"), entry.get("namespaced") is True, entry.get("verbs"), problems
        )
        if found is not None:
            yield found


def _server_version(connection: Connection) -> str:
    body, _ = connection.get_json("/version")
    version = body.get("gitVersion", "") if isinstance(body, dict) else ""
    return version if isinstance(version, str) else ""


def _group_versions(core: Any, named: Any, problems: list[str]) -> list[tuple[str, str]]:
    """(group, version) pairs of the legacy discovery documents `/api` and `/apis`."""
    versions = _map(core).get("versions")
    found = [("", version) for version in versions if isinstance(version, str)] if isinstance(versions, list) else []
    for group_entry in _entries(_map(named).get("groups"), "API groups", problems):
        name = group_entry.get("name")
        for entry in _entries(group_entry.get("versions"), f"versions of group {name!r}", problems):
            version = entry.get("version")
            if isinstance(name, str) and isinstance(version, str):
                found.append((name, version))
    return found


def discover(connection: Connection, groups: Iterable[str] | None = None) -> Discovery:
    """Discovery of the cluster; `groups` limits the per-group-version requests of the fallback path."""
    wanted = set(groups) if groups is not None else None
    discovery = Discovery(_server_version(connection))
    core, core_type = connection.get_json("/api", accept=AGGREGATED_ACCEPT)
    named, named_type = connection.get_json("/apis", accept=AGGREGATED_ACCEPT)
    for path, body in (("/api", core), ("/apis", named)):
        if not isinstance(body, dict):
            raise BadReply(path, f"a JSON {type(body).__name__}, not a discovery document")
    problems = discovery.problems
    if "APIGroupDiscoveryList" in core_type and "APIGroupDiscoveryList" in named_type:
        discovery.aggregated = True
        for body in (core, named):
            found = _from_aggregated(body, problems)
            discovery.resources.extend(r for r in found if wanted is None or r.group in wanted)
        return discovery
    for group, version in _group_versions(core, named, problems):
        if wanted is not None and group not in wanted:
            continue
        try:
            path = f"/apis/{paths.group(group)}/{paths.version(version)}" if group else f"/api/{paths.version(version)}"
            body, _ = connection.get_json(path)
        except paths.InvalidName as error:
            problems.append(f"discovery entry left out: {error}")
            continue
        except RequestFailed as failure:
            problems.append(f"{group or 'core'}/{version}: {failure.status} {failure.reason}")
            continue
        discovery.resources.extend(_from_resource_list(group, version, body, problems))
    return discovery
