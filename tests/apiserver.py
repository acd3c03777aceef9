"""A test Kubernetes API server: a real threaded HTTP(S) server on 127.0.0.1.

It speaks the part of the API server protocol that waslint and kubectl use for reading: `/version`,
`/api`, `/apis`, group and group-version discovery, aggregated discovery (v2), list and get
endpoints with `limit`/`continue`/`resourceVersion`/`labelSelector`, 410 Gone on an expired continue
token, `/metrics` in Prometheus text format, node proxy metrics, `/openapi/v3`, bearer-token
authentication (401), per-resource RBAC denials (403), 404 and slow responses. Every request is
recorded so tests can assert what a client sent (e.g. nothing but GET).

The cluster contents are plain data (`FakeCluster`); `tests/clusters.py` builds 1.36- and
1.37-shaped clusters from the kubernetes client's models.

Hostile mode: `FakeCluster.hostile` lists `Hostile` scenarios, each answering the paths it
matches the way a broken or malicious server would: a raw body of any shape (wrong JSON types,
100,000-deep JSON, unclosed metrics), an endless chunked body, a body or headers dripped a byte
at a time, a `continue` token that never changes. Every scenario stops by itself (bytes and
seconds are bounded) and serves 127.0.0.1 only.
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

HOSTILE_MAX_SECONDS = 30.0  # an endless or dripping reply gives up after this long
HOSTILE_MAX_BYTES = 1024 * 1024 * 1024


@dataclass
class Hostile:
    """One hostile reply. `path` is matched exactly, or as a prefix when it ends with `*`.

    scenarios: "body" (`body` as it is, status `code`), "endless" (a chunked body that never
    ends), "drip" (`body` one byte every `delay` seconds), "drip-headers" (the status line and
    headers dripped), "repeat-continue" (the real list, always with the same continue token)."""

    path: str
    scenario: str = "body"
    body: bytes = b""
    content_type: str = "application/json"
    code: int = 200
    delay: float = 0.5

    def matches(self, path: str) -> bool:
        return path.startswith(self.path[:-1]) if self.path.endswith("*") else path == self.path


AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


@dataclass(frozen=True)
class ResourceType:
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool = True
    short_names: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular(self) -> str:
        return self.kind.lower()


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]


@dataclass
class FakeCluster:
    git_version: str
    resources: list[ResourceType]
    objects: dict[tuple[str, str, str], list[dict[str, Any]]] = field(default_factory=dict)
    # component -> {gate: (stage, enabled)}; "apiserver" is served at /metrics
    apiserver_gates: dict[str, tuple[str, bool]] = field(default_factory=dict)
    # node name -> gates; a node absent here answers 503 on its proxy (kubelet unreachable)
    kubelet_gates: dict[str, dict[str, tuple[str, bool]]] = field(default_factory=dict)
    # control-plane Pod name -> gates served on its pod proxy /metrics
    component_gates: dict[str, dict[str, tuple[str, bool]]] = field(default_factory=dict)
    tokens: set[str] = field(default_factory=lambda: {"good-token"})
    forbidden: set[tuple[str, str]] = field(default_factory=set)  # (group, plural) denied by RBAC
    forbidden_paths: set[str] = field(default_factory=set)  # exact paths denied (e.g. node proxy)
    slow: dict[str, float] = field(default_factory=dict)  # path prefix -> delay in seconds
    aggregated_discovery: bool = True
    html_proxy: bool = False  # answer everything like a captive portal / login proxy
    expire_continues: int = 0  # answer this many continue tokens with 410 Gone
    openapi: dict[str, dict[str, Any]] = field(default_factory=dict)  # "apis/g/v" -> document
    resource_version: int = 1000
    hostile: list[Hostile] = field(default_factory=list)

    def add(self, resource: ResourceType, obj: dict[str, Any]) -> None:
        self.resource_version += 1
        metadata = obj.setdefault("metadata", {})
        metadata.setdefault("resourceVersion", str(self.resource_version))
        metadata.setdefault("uid", f"uid-{self.resource_version}")
        obj.setdefault("apiVersion", resource.group_version)
        obj.setdefault("kind", resource.kind)
        self.objects.setdefault((resource.group, resource.version, resource.plural), []).append(obj)

    def resource(self, group: str, version: str, plural: str) -> ResourceType | None:
        for resource in self.resources:
            if (resource.group, resource.version, resource.plural) == (group, version, plural):
                return resource
        return None

    def groups(self) -> dict[str, list[str]]:
        """Served groups (core is "") and their versions, in first-seen order."""
        served: dict[str, list[str]] = {}
        for resource in self.resources:
            versions = served.setdefault(resource.group, [])
            if resource.version not in versions:
                versions.append(resource.version)
        return served


def status(code: int, reason: str, message: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": extra.pop("metadata", {}),
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    body.update(extra)
    return body


def _encode_continue(offset: int, resource_version: int) -> str:
    raw = json.dumps({"offset": offset, "rv": resource_version}).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _decode_continue(token: str) -> int | None:
    try:
        return int(json.loads(base64.urlsafe_b64decode(token.encode()))["offset"])
    except (ValueError, KeyError, TypeError):
        return None


def _selector_matches(selector: str, labels: dict[str, str]) -> bool:
    for term in filter(None, (part.strip() for part in selector.split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.split("==", 1) if "==" in term else term.split("=", 1)
            if labels.get(key) != value:
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def _storage_key(obj: dict[str, Any]) -> str:
    """etcd key order, as a real API server lists: `namespace/name`, or `name` for cluster-scoped objects."""
    namespace = obj["metadata"].get("namespace")
    return f"{namespace}/{obj['metadata']['name']}" if namespace else obj["metadata"]["name"]


def _metrics_text(gates: dict[str, tuple[str, bool]]) -> str:
    lines = [
        "# HELP apiserver_storage_objects [STABLE] Number of stored objects",
        "# TYPE apiserver_storage_objects gauge",
        'apiserver_storage_objects{resource="pods"} 12',
        "# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement "
        "of a k8s feature.",
        "# TYPE kubernetes_feature_enabled gauge",
    ]
    for gate, (stage, enabled) in sorted(gates.items()):
        lines.append(f'kubernetes_feature_enabled{{name="{gate}",stage="{stage}"}} {int(enabled)}')
    return "\n".join(lines) + "\n"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body are two writes: without this, Nagle waits for the client's delayed ACK (40 ms).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # Every method is recorded; only GET is answered with content.
    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        self.server.record(RecordedRequest(method, url.path, query, {k.lower(): v for k, v in self.headers.items()}))
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        cluster = self.server.cluster
        for prefix, delay in cluster.slow.items():
            if url.path.startswith(prefix):
                time.sleep(delay)
        if cluster.html_proxy:
            self._send(
                200, b"<html><head><title>Sign in</title></head><body>Corporate login</body></html>", "text/html"
            )
            return
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        if token not in cluster.tokens:
            self._json(401, status(401, "Unauthorized", "Unauthorized"))
            return
        if method != "GET":
            self._json(405, status(405, "MethodNotAllowed", f"the test server is read only: {method}"))
            return
        with contextlib.suppress(BrokenPipeError, ConnectionError, ssl.SSLError, OSError):
            for scenario in cluster.hostile:
                if scenario.matches(url.path) and scenario.scenario != "repeat-continue":
                    self._hostile(scenario)
                    return
            self._route(url.path.rstrip("/") or "/", query)

    # -- hostile replies ---------------------------------------------------------------------------------
    def _hostile(self, scenario: Hostile) -> None:
        if scenario.scenario == "body":
            self._send(scenario.code, scenario.body, scenario.content_type)
        elif scenario.scenario == "endless":
            self.send_response(200)
            self.send_header("Content-Type", scenario.content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"[" * 65536
            started, sent = time.monotonic(), 0
            while time.monotonic() - started < HOSTILE_MAX_SECONDS and sent < HOSTILE_MAX_BYTES:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
            self.close_connection = True
        elif scenario.scenario == "drip":
            self.send_response(200)
            self.send_header("Content-Type", scenario.content_type)
            self.send_header("Content-Length", str(len(scenario.body)))
            self.end_headers()
            self._drip(scenario.body, scenario.delay)
        elif scenario.scenario == "drip-headers":
            head = b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Slow-%d: x\r\n" % n for n in range(90))
            self._drip(head, scenario.delay)
        else:
            raise ValueError(f"unknown hostile scenario {scenario.scenario!r}")

    def _drip(self, data: bytes, delay: float) -> None:
        started = time.monotonic()
        for position in range(len(data)):
            if time.monotonic() - started > HOSTILE_MAX_SECONDS:
                break
            self.wfile.write(data[position : position + 1])
            self.wfile.flush()
            time.sleep(delay)
        self.close_connection = True

    def _send(self, code: int, body: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, body: Any, content_type: str = "application/json") -> None:
        self._send(code, json.dumps(body, separators=(",", ":")).encode(), content_type)

    def _not_found(self, path: str) -> None:
        self._json(404, status(404, "NotFound", f"the server could not find the requested resource ({path})"))

    def _wants_aggregated(self) -> bool:
        accept = self.headers.get("Accept") or ""
        return self.server.cluster.aggregated_discovery and "as=APIGroupDiscoveryList" in accept and "v=v2" in accept

    def _route(self, path: str, query: dict[str, list[str]]) -> None:
        cluster = self.server.cluster
        parts = [part for part in path.split("/") if part]
        if path in cluster.forbidden_paths:
            self._json(403, status(403, "Forbidden", f'forbidden: User "tester" cannot get path "{path}"'))
        elif path == "/version":
            minor = cluster.git_version.split(".")[1]
            self._json(
                200, {"major": "1", "minor": minor, "gitVersion": cluster.git_version, "platform": "linux/amd64"}
            )
        elif path == "/metrics":
            self._send(200, _metrics_text(cluster.apiserver_gates).encode(), "text/plain; version=0.0.4")
        elif path == "/api":
            self._core_root()
        elif path == "/apis":
            self._apis_root()
        elif parts[:1] == ["openapi"]:
            self._openapi(parts[1:])
        elif parts[:2] == ["api", "v1"]:
            self._resource_path("", "v1", parts[2:], query)
        elif parts[:1] == ["apis"] and len(parts) == 2:
            self._group(parts[1])
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            self._resource_path(parts[1], parts[2], parts[3:], query)
        else:
            self._not_found(path)

    # -- discovery -------------------------------------------------------------------------------------
    def _resource_entries(self, group: str, version: str) -> list[dict[str, Any]]:
        entries = []
        for resource in self.server.cluster.resources:
            if (resource.group, resource.version) != (group, version):
                continue
            entry = {
                "name": resource.plural,
                "singularName": resource.singular,
                "namespaced": resource.namespaced,
                "kind": resource.kind,
                "verbs": ALL_VERBS,
            }
            if resource.short_names:
                entry["shortNames"] = list(resource.short_names)
            entries.append(entry)
            for sub in resource.subresources:
                entries.append(
                    {
                        "name": f"{resource.plural}/{sub}",
                        "singularName": "",
                        "namespaced": resource.namespaced,
                        "kind": resource.kind,
                        "verbs": ["get", "patch", "update"],
                    }
                )
        return entries

    def _aggregated_item(self, group: str, versions: list[str]) -> dict[str, Any]:
        version_entries = []
        for version in versions:
            resources = []
            for resource in self.server.cluster.resources:
                if (resource.group, resource.version) != (group, version):
                    continue
                item: dict[str, Any] = {
                    "resource": resource.plural,
                    "responseKind": {"group": group, "version": version, "kind": resource.kind},
                    "scope": "Namespaced" if resource.namespaced else "Cluster",
                    "singularResource": resource.singular,
                    "verbs": ALL_VERBS,
                }
                if resource.short_names:
                    item["shortNames"] = list(resource.short_names)
                if resource.subresources:
                    item["subresources"] = [
                        {
                            "subresource": sub,
                            "responseKind": {"group": group, "version": version, "kind": resource.kind},
                            "verbs": ["get", "patch", "update"],
                        }
                        for sub in resource.subresources
                    ]
                resources.append(item)
            version_entries.append({"version": version, "resources": resources, "freshness": "Current"})
        metadata: dict[str, Any] = {"creationTimestamp": None}
        if group:
            metadata["name"] = group
        return {"metadata": metadata, "versions": version_entries}

    def _aggregated(self, groups: dict[str, list[str]]) -> None:
        body = {
            "kind": "APIGroupDiscoveryList",
            "apiVersion": "apidiscovery.k8s.io/v2",
            "metadata": {},
            "items": [self._aggregated_item(group, versions) for group, versions in groups.items()],
        }
        self._json(200, body, AGGREGATED_V2)

    def _core_root(self) -> None:
        groups = self.server.cluster.groups()
        if self._wants_aggregated():
            self._aggregated({"": groups.get("", ["v1"])})
            return
        self._json(
            200,
            {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}],
            },
        )

    def _group_body(self, group: str, versions: list[str]) -> dict[str, Any]:
        version_entries = [{"groupVersion": f"{group}/{version}", "version": version} for version in versions]
        return {
            "kind": "APIGroup",
            "apiVersion": "v1",
            "name": group,
            "versions": version_entries,
            "preferredVersion": version_entries[0],
        }

    def _apis_root(self) -> None:
        groups = {group: versions for group, versions in self.server.cluster.groups().items() if group}
        if self._wants_aggregated():
            self._aggregated(groups)
            return
        self._json(
            200,
            {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [self._group_body(group, versions) for group, versions in groups.items()],
            },
        )

    def _group(self, group: str) -> None:
        versions = self.server.cluster.groups().get(group)
        if not versions:
            self._not_found(f"/apis/{group}")
            return
        self._json(200, self._group_body(group, versions))

    # -- resources ---------------------------------------------------------------------------------------
    def _resource_path(self, group: str, version: str, rest: list[str], query: dict[str, list[str]]) -> None:
        cluster = self.server.cluster
        if version not in cluster.groups().get(group, []):
            self._not_found("/" + "/".join(["apis", group, version] if group else ["api", version]))
            return
        if not rest:
            group_version = f"{group}/{version}" if group else version
            self._json(
                200,
                {
                    "kind": "APIResourceList",
                    "apiVersion": "v1",
                    "groupVersion": group_version,
                    "resources": self._resource_entries(group, version),
                },
            )
            return
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        if group == "" and rest[0] == "nodes" and len(rest) >= 3 and rest[2] == "proxy":
            self._node_proxy(rest[1], rest[3:])
            return
        if group == "" and rest[0] == "pods" and len(rest) >= 3 and rest[2] == "proxy":
            self._pod_proxy(f"/api/v1/namespaces/{namespace}/pods/{rest[1]}/proxy", rest[1], rest[3:])
            return
        resource = cluster.resource(group, version, rest[0])
        if resource is None:
            self._not_found("/".join(rest))
            return
        if (group, resource.plural) in cluster.forbidden:
            where = f' in the namespace "{namespace}"' if namespace else " at the cluster scope"
            self._json(
                403,
                status(
                    403,
                    "Forbidden",
                    f'{resource.plural}.{group or "core"} is forbidden: User "tester" cannot list '
                    f'resource "{resource.plural}" in API group "{group}"{where}',
                    details={"group": group, "kind": resource.plural},
                ),
            )
            return
        stored = cluster.objects.get((group, version, resource.plural), [])
        if len(rest) >= 2:
            items = [obj for obj in stored if namespace is None or obj["metadata"].get("namespace") == namespace]
            self._get_one(resource, items, rest[1])
            return
        selector = query.get("labelSelector", [""])[0]
        key = (group, version, resource.plural, namespace, selector, len(stored), cluster.resource_version)
        self._list(resource, self.server.selected(key, stored, namespace, selector), query)

    def _get_one(self, resource: ResourceType, items: list[dict[str, Any]], name: str) -> None:
        for obj in items:
            if obj["metadata"].get("name") == name:
                self._json(200, obj)
                return
        self._json(
            404,
            status(
                404,
                "NotFound",
                f'{resource.plural} "{name}" not found',
                details={"name": name, "kind": resource.plural},
            ),
        )

    def _list(self, resource: ResourceType, items: list[dict[str, Any]], query: dict[str, list[str]]) -> None:
        cluster = self.server.cluster
        start = 0
        token = query.get("continue", [""])[0]
        if token:
            decoded = _decode_continue(token)
            if decoded is None or self.server.take_expiry():
                self._json(
                    410,
                    status(
                        410,
                        "Expired",
                        "The provided continue parameter is too old to display a "
                        "consistent list result. You can start a new list without the continue "
                        "parameter.",
                    ),
                )
                return
            start = decoded
        limit = int(query.get("limit", ["0"])[0] or 0)
        end = len(items) if limit <= 0 else min(len(items), start + limit)
        metadata: dict[str, Any] = {"resourceVersion": str(cluster.resource_version)}
        if end < len(items):
            metadata["continue"] = _encode_continue(end, cluster.resource_version)
            metadata["remainingItemCount"] = len(items) - end
        if any(h.scenario == "repeat-continue" and h.matches(self.path.split("?")[0]) for h in cluster.hostile):
            start, end = 0, min(len(items), limit or len(items))
            metadata["continue"] = _encode_continue(0, cluster.resource_version)  # the first page, forever
        body = {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.group_version,
            "metadata": metadata,
            "items": items[start:end],
        }
        self._json(200, body)

    def _node_proxy(self, node: str, rest: list[str]) -> None:
        gates = self.server.cluster.kubelet_gates.get(node)
        if rest != ["metrics"]:
            self._not_found("/".join(rest))
        elif gates is None:
            self._json(503, status(503, "ServiceUnavailable", f"error trying to reach service: dial tcp: {node}:10250"))
        else:
            self._send(200, _metrics_text(gates).encode(), "text/plain; version=0.0.4")

    def _pod_proxy(self, path: str, target: str, rest: list[str]) -> None:
        """`scheme:name:port` of a control-plane Pod (kube-scheduler, kube-controller-manager)."""
        cluster = self.server.cluster
        name = target.split(":")[1] if target.count(":") == 2 else target
        gates = cluster.component_gates.get(name)
        if path in cluster.forbidden_paths or f"{path}/metrics" in cluster.forbidden_paths:
            self._json(403, status(403, "Forbidden", f'pods "{name}" is forbidden: cannot get resource "pods/proxy"'))
        elif rest != ["metrics"] or gates is None:
            self._json(503, status(503, "ServiceUnavailable", f"error trying to reach service: {target}"))
        else:
            self._send(200, _metrics_text(gates).encode(), "text/plain; version=0.0.4")

    def _openapi(self, rest: list[str]) -> None:
        documents = self.server.cluster.openapi
        if rest == ["v3"]:
            paths = {key: {"serverRelativeURL": f"/openapi/v3/{key}?hash=0123456789ABCDEF"} for key in documents}
            self._json(200, {"paths": paths})
            return
        key = "/".join(rest[1:])
        if rest[:1] == ["v3"] and key in documents:
            self._json(200, documents[key])
        else:
            self._not_found("/openapi/" + "/".join(rest))


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, cluster: FakeCluster) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.cluster = cluster
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._selections: dict[tuple[Any, ...], list[dict[str, Any]]] = {}

    def selected(
        self, key: tuple[Any, ...], stored: list[dict[str, Any]], namespace: str | None, selector: str
    ) -> list[dict[str, Any]]:
        """The items of one list in key order, filtered once per (resource, scope, selector) and kept
        for the following pages (the benchmark serves 100,000 Pods in pages)."""
        with self._lock:
            cached = self._selections.get(key)
        if cached is not None:
            return cached
        items = [
            obj
            for obj in stored
            if (namespace is None or obj["metadata"].get("namespace") == namespace)
            and (not selector or _selector_matches(selector, obj["metadata"].get("labels") or {}))
        ]
        items.sort(key=_storage_key)
        with self._lock:
            self._selections[key] = items
        return items

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up (timeout tests) or refused our certificate (TLS tests)

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def take_expiry(self) -> bool:
        with self._lock:
            if self.cluster.expire_continues > 0:
                self.cluster.expire_continues -= 1
                return True
            return False


@dataclass
class TLSFiles:
    ca_cert: Path
    server_cert: Path
    server_key: Path


def make_other_ca(folder: Path) -> Path:
    """A self-signed CA certificate that signed nothing the test server presents."""
    other_ca = folder / "other-ca.crt"
    command = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(folder / "k"), "-out", str(other_ca)]
    subprocess.run(["openssl", *command, "-days", "1", "-subj", "/CN=other"], check=True, capture_output=True)
    return other_ca


def make_tls(folder: Path) -> TLSFiles:
    """A CA and a server certificate for 127.0.0.1 signed by it (openssl, a few hundred ms)."""
    ca_key, ca_cert = folder / "ca.key", folder / "ca.crt"
    key, csr, cert, ext = folder / "server.key", folder / "server.csr", folder / "server.crt", folder / "san.ext"

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        str(ca_key),
        "-out",
        str(ca_cert),
        "-days",
        "2",
        "-subj",
        "/CN=waslint-test-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    )
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", "/CN=127.0.0.1")
    ext.write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
    )
    run(
        "x509",
        "-req",
        "-in",
        str(csr),
        "-CA",
        str(ca_cert),
        "-CAkey",
        str(ca_key),
        "-CAcreateserial",
        "-out",
        str(cert),
        "-days",
        "2",
        "-extfile",
        str(ext),
    )
    return TLSFiles(ca_cert, cert, key)


class APIServer:
    """Serve `cluster` on 127.0.0.1 (HTTPS when `tls` is given) in a background thread."""

    def __init__(self, cluster: FakeCluster, tls: TLSFiles | None = None) -> None:
        self._server = _Server(cluster)
        self.tls = tls
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(tls.server_cert), str(tls.server_key))
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def cluster(self) -> FakeCluster:
        return self._server.cluster

    @property
    def requests(self) -> list[RecordedRequest]:
        return self._server.requests

    @property
    def url(self) -> str:
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> APIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def methods(self) -> set[str]:
        return {request.method for request in self.requests}

    def paths(self) -> Iterator[str]:
        return (request.path for request in self.requests)

    def write_kubeconfig(
        self,
        path: Path,
        context: str = "test",
        token: str = "good-token",
        insecure: bool = False,
        ca: Path | None = None,
    ) -> Path:
        cluster: dict[str, Any] = {"server": self.url}
        if insecure:
            cluster["insecure-skip-tls-verify"] = True
        elif self.tls is not None:
            cluster["certificate-authority-data"] = base64.b64encode((ca or self.tls.ca_cert).read_bytes()).decode()
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": context, "cluster": cluster}],
            "users": [{"name": f"{context}-user", "user": {"token": token}}],
            "contexts": [{"name": context, "context": {"cluster": context, "user": f"{context}-user"}}],
            "current-context": context,
        }
        path.write_text(yaml.safe_dump(config))
        return path
