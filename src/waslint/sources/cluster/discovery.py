"""What a cluster serves: its version and, per group version, the resources (kind, scope, verbs).

Aggregated discovery (one `GET /api` and one `GET /apis` answered as `APIGroupDiscoveryList`) when
the server offers it, else `/apis` and one `APIResourceList` per group version of interest. A group
version whose discovery fails (an aggregated API that is down, a 403) is recorded, not fatal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from waslint.sources.cluster.connection import Connection, RequestFailed

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
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if namespace and self.namespaced:
            return f"{root}/namespaces/{namespace}/{self.plural}"
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


def _from_aggregated(body: dict[str, Any]) -> Iterable[APIResource]:
    for item in body.get("items") or []:
        group = str((item.get("metadata") or {}).get("name") or "")
        for version_entry in item.get("versions") or []:
            version = str(version_entry.get("version", ""))
            for entry in version_entry.get("resources") or []:
                kind = str((entry.get("responseKind") or {}).get("kind", ""))
                yield APIResource(
                    group,
                    version,
                    str(entry.get("resource", "")),
                    kind,
                    entry.get("scope") == "Namespaced",
                    tuple(entry.get("verbs") or ()),
                )


def _from_resource_list(group: str, version: str, body: dict[str, Any]) -> Iterable[APIResource]:
    for entry in body.get("resources") or []:
        name = str(entry.get("name", ""))
        if "/" in name:  # subresources (status, scale, proxy) are not listed
            continue
        yield APIResource(
            group,
            version,
            name,
            str(entry.get("kind", "")),
            bool(entry.get("namespaced")),
            tuple(entry.get("verbs") or ()),
        )


def _server_version(connection: Connection) -> str:
    body, _ = connection.get_json("/version")
    return str(body.get("gitVersion", "")) if isinstance(body, dict) else ""


def discover(connection: Connection, groups: Iterable[str] | None = None) -> Discovery:
    """Discovery of the cluster; `groups` limits the per-group-version requests of the fallback path."""
    wanted = set(groups) if groups is not None else None
    discovery = Discovery(_server_version(connection))
    core, core_type = connection.get_json("/api", accept=AGGREGATED_ACCEPT)
    named, named_type = connection.get_json("/apis", accept=AGGREGATED_ACCEPT)
    if "APIGroupDiscoveryList" in core_type and "APIGroupDiscoveryList" in named_type:
        discovery.aggregated = True
        for body in (core, named):
            discovery.resources.extend(r for r in _from_aggregated(body) if wanted is None or r.group in wanted)
        return discovery
    group_versions = [("", version) for version in core.get("versions") or []]
    for group_entry in named.get("groups") or []:
        name = str(group_entry.get("name", ""))
        group_versions.extend((name, str(v.get("version", ""))) for v in group_entry.get("versions") or [])
    for group, version in group_versions:
        if wanted is not None and group not in wanted:
            continue
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            body, _ = connection.get_json(path)
        except RequestFailed as failure:
            discovery.problems.append(f"{group or 'core'}/{version}: {failure.status} {failure.reason}")
            continue
        discovery.resources.extend(_from_resource_list(group, version, body))
    return discovery
