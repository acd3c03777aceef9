"""Paged lists: `limit`/`continue`, one page in memory at a time.

A 410 Gone on a continue token (the server compacted past the list's resourceVersion) restarts the
list from the beginning and skips what was already yielded: the API server returns items in key
order (namespace, name), so the last yielded key is all that has to be remembered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from waslint.sources.cluster.connection import ClusterError, Connection, RequestFailed
from waslint.sources.cluster.discovery import APIResource

DEFAULT_PAGE_SIZE = 500
MAX_RESTARTS = 3


def storage_key(item: dict[str, Any]) -> str:
    """The object's place in the server's list order (its etcd key below the resource prefix)."""
    metadata = item.get("metadata") or {}
    namespace, name = str(metadata.get("namespace") or ""), str(metadata.get("name") or "")
    return f"{namespace}/{name}" if namespace else name


def iter_items(
    connection: Connection,
    resource: APIResource,
    namespace: str | None = None,
    selector: str | None = None,
    page_size: int = DEFAULT_PAGE_SIZE,
) -> Iterator[dict[str, Any]]:
    """Every item of one resource, page by page; each item carries apiVersion and kind."""
    path = resource.path(namespace)
    last_key: str | None = None
    restarts = 0
    token = ""
    while True:
        query = {"limit": str(page_size)}
        if selector:
            query["labelSelector"] = selector
        if token:
            query["continue"] = token
        try:
            page, _ = connection.get_json(path, query)
        except RequestFailed as failure:
            if failure.status != 410 or not token:
                raise
            restarts += 1
            if restarts > MAX_RESTARTS:
                raise ClusterError(
                    f"GET {path}: the list expired {MAX_RESTARTS} times; the cluster changes faster "
                    "than it can be read (try a larger --page-size)"
                ) from None
            token = ""
            continue
        if not isinstance(page, dict) or not isinstance(page.get("items", []), list):
            raise ClusterError(f"GET {path}: the answer is not a Kubernetes list")
        for item in page.get("items") or []:
            if not isinstance(item, dict):
                continue
            key = storage_key(item)
            if restarts and last_key is not None and key <= last_key:
                continue  # already yielded before a restart
            item.setdefault("apiVersion", resource.api_version)
            item.setdefault("kind", resource.kind)
            last_key = key
            yield item
        token = str((page.get("metadata") or {}).get("continue") or "")
        if not token:
            return
