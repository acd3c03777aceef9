"""API request paths built from names a server (or a kubeconfig) gave: each name is checked
against the Kubernetes name rules first, then quoted as one path segment.

The API server decodes a path before it routes it, so quoting alone would not stop `%2F` from
becoming a separator there: a name the rules reject (`../../api/v1/secrets?x=`, a newline, a
slash) is never put into a URL at all. `InvalidName` says which name and why; the caller skips
that object with a warning.
"""

from __future__ import annotations

from waslint.escape.terminal import printable
from waslint.escape.uri import segment
from waslint.knowledge.names import DNS_LABEL, DNS_SUBDOMAIN

MAX_SUBDOMAIN = 253
MAX_LABEL = 63


class InvalidName(ValueError):
    """A name that no object the API server stores can have."""


def _checked(what: str, value: object, label: bool) -> str:
    limit = MAX_LABEL if label else MAX_SUBDOMAIN
    pattern = DNS_LABEL if label else DNS_SUBDOMAIN
    if not isinstance(value, str) or len(value) > limit or not pattern.match(value):
        shown = printable(value[:80]) if isinstance(value, str) else type(value).__name__
        rule = "DNS label" if label else "DNS subdomain"
        raise InvalidName(f"{what} {shown!r} is not a valid Kubernetes name ({rule})")
    return segment(value)


def object_name(value: object, what: str = "name") -> str:
    """A Node, Pod or other object name (a DNS subdomain), quoted."""
    return _checked(what, value, label=False)


def namespace(value: object) -> str:
    return _checked("namespace", value, label=True)


def group(value: object) -> str:
    return "" if value == "" else _checked("API group", value, label=False)


def version(value: object) -> str:
    return _checked("API version", value, label=True)


def resource(value: object) -> str:
    return _checked("resource", value, label=True)


def node_proxy(node: object, rest: str) -> str:
    return f"/api/v1/nodes/{object_name(node, 'node name')}/proxy/{rest}"


def pod_proxy(namespace_name: object, pod: object, scheme: str, port: int, rest: str) -> str:
    """`/api/v1/namespaces/NS/pods/SCHEME:NAME:PORT/proxy/REST` (the API server's proxy target form)."""
    target = f"{scheme}:{object_name(pod, 'pod name')}:{int(port)}"
    return f"/api/v1/namespaces/{namespace(namespace_name)}/pods/{target}/proxy/{rest}"
