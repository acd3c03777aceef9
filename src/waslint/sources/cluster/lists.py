"""Paged lists: `limit`/`continue`, one page in memory at a time.

A 410 Gone on a continue token (the server compacted past the list's resourceVersion) restarts the
list from the beginning and skips what was already yielded: the API server returns items in key
order (namespace, name), so the last yielded key is all that has to be remembered.

Every page is checked where it is read: a list document with `items` a list (or null, which Go
reads as empty) and `metadata.continue` a string; a continue token the list already used ends
the run (a server that pages forever), and so does a list past MAX_PAGES pages. An item whose
metadata is not an object with a valid name (and namespace) is skipped and counted in
`ListRead.skipped`: its name could not be put into a URL or a report safely, and no object the
API server stores has it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from waslint.sources.cluster import paths
from waslint.sources.cluster.connection import BadReply, ClusterError, Connection, RequestFailed
from waslint.sources.cluster.discovery import APIResource

DEFAULT_PAGE_SIZE = 500
MAX_RESTARTS = 3
MAX_PAGES = 20_000  # pages of one list (10 million objects at the default page size)


@dataclass
class ListRead:
    """What one list left out, for the caller's warning."""

    skipped: int = 0
    reasons: list[str] = field(default_factory=list)

    def skip(self, reason: str) -> None:
        self.skipped += 1
        if len(self.reasons) < 3:
            self.reasons.append(reason)

    def warning(self, label: str) -> str | None:
        if not self.skipped:
            return None
        return f"{label}: {self.skipped} item(s) skipped, malformed ({'; '.join(self.reasons)})"


def storage_key(item: dict[str, Any]) -> str:
    """The object's place in the server's list order (its etcd key below the resource prefix)."""
    metadata = item.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    namespace, name = metadata.get("namespace"), metadata.get("name")
    namespace = namespace if isinstance(namespace, str) else ""
    name = name if isinstance(name, str) else ""
    return f"{namespace}/{name}" if namespace else name


def item_problem(item: Any) -> str | None:
    """Why an item cannot be used, or None: its metadata names it validly."""
    if not isinstance(item, dict):
        return f"an item that is a JSON {type(item).__name__}"
    metadata = item.get("metadata")
    if not isinstance(metadata, dict):
        return "metadata is not an object"
    try:
        paths.object_name(metadata.get("name"))
        if metadata.get("namespace") not in (None, ""):
            paths.namespace(metadata.get("namespace"))
    except paths.InvalidName as error:
        return str(error)
    for key in ("labels", "annotations"):
        if metadata.get(key) is not None and not isinstance(metadata.get(key), dict):
            return f"metadata.{key} is not an object"
    return None


def _page_items(page: Any, path: str) -> tuple[list[Any], str]:
    """The items and the continue token of one page, or BadReply."""
    if not isinstance(page, dict):
        raise BadReply(path, f"a JSON {type(page).__name__}, not a Kubernetes list")
    items = page.get("items")
    if items is None:
        items = []  # `"items": null` is how Go writes an empty list it never made
    if not isinstance(items, list):
        raise BadReply(path, f"items is a JSON {type(items).__name__}, not a list")
    metadata = page.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise BadReply(path, f"metadata is a JSON {type(metadata).__name__}, not an object")
    token = metadata.get("continue")
    if token is None:
        token = ""
    if not isinstance(token, str):
        raise BadReply(path, f"metadata.continue is a JSON {type(token).__name__}, not a string")
    return items, token


def iter_items(
    connection: Connection,
    resource: APIResource,
    namespace: str | None = None,
    selector: str | None = None,
    page_size: int = DEFAULT_PAGE_SIZE,
    read: ListRead | None = None,
) -> Iterator[dict[str, Any]]:
    """Every valid item of one resource, page by page; each item carries apiVersion and kind."""
    path = resource.path(namespace)
    read = read if read is not None else ListRead()
    last_key: str | None = None
    restarts = 0
    token = ""
    used: set[str] = set()
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
            used.clear()
            continue
        items, token = _page_items(page, path)
        for item in items:
            problem = item_problem(item)
            if problem is not None:
                read.skip(problem)
                continue
            key = storage_key(item)
            if restarts and last_key is not None and key <= last_key:
                continue  # already yielded before a restart
            item.setdefault("apiVersion", resource.api_version)
            item.setdefault("kind", resource.kind)
            last_key = key
            yield item
        if not token:
            return
        if token in used:
            raise ClusterError(
                f"GET {path}: the server sent the same continue token twice ({len(used)} pages read);"
                " the list would never end"
            )
        if len(used) >= MAX_PAGES:
            raise ClusterError(f"GET {path}: more than {MAX_PAGES} pages; try a larger --page-size")
        used.add(token)
