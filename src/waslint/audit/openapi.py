"""The cluster's own schemas: `/openapi/v3` documents of the served `scheduling.k8s.io` versions,
converted to the JSON Schema subset of `knowledge/schema.py`, so WAS002 checks stored objects
against the exact (patch) release the cluster runs instead of the packaged one.

The conversion: `#/components/schemas/X` becomes `#/$defs/X`; a one-element `allOf` (how the API
server wraps a `$ref` that has a default) is its element; every type also admits null (an unset
field); object schemas with `properties` and no `additionalProperties` are closed, like the
packaged strict schemas (an unknown field is what the API server's strict field validation
rejects); `metadata` is left to the other rules, as in the packaged schemas. Keywords outside the
subset are dropped.

The index and each document are checked for their JSON types where they are read; a document
that does not convert is a warning and the packaged schema is used for its version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from waslint.knowledge.schema import SchemaIssue, compile_schema
from waslint.objects.keys import SCHEDULING
from waslint.objects.kobject import WAS_KINDS
from waslint.sources.cluster.connection import ClusterError, Connection
from waslint.sources.cluster.discovery import Discovery

Validator = Callable[[object], list[SchemaIssue]]
COMPONENTS = "#/components/schemas/"
KEPT = ("type", "enum", "required")


def _clean(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        node = {**{k: v for k, v in node.items() if k != "allOf"}, **all_of[0]}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str):
            out[key] = "#/$defs/" + value.removeprefix(COMPONENTS)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(schema) for name, schema in value.items()}
        elif key == "items":
            out[key] = _clean(value)
        elif key == "additionalProperties":
            out[key] = value if isinstance(value, bool) else _clean(value)
        elif key in KEPT:
            out[key] = value
    if isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    open_ended = node.get("x-kubernetes-preserve-unknown-fields") is True
    if "properties" in out and "additionalProperties" not in out and not open_ended:
        out["additionalProperties"] = False
    return out


class NotAnOpenAPIDocument(ValueError):
    """A document (or index) whose JSON types are not OpenAPI v3's."""


def _kind_of(schema: Any) -> tuple[str, str, str] | None:
    gvks = schema.get("x-kubernetes-group-version-kind") if isinstance(schema, dict) else None
    for gvk in gvks if isinstance(gvks, list) else []:
        if isinstance(gvk, dict):
            return str(gvk.get("group", "")), str(gvk.get("version", "")), str(gvk.get("kind", ""))
    return None


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise NotAnOpenAPIDocument(f"{what} is a JSON {type(value).__name__}, not an object")
    return value


def convert(document: Any) -> dict[tuple[str, str], dict[str, Any]]:
    """`(apiVersion, kind) -> schema document` for the WAS kinds an OpenAPI v3 document describes."""
    schemas = _mapping(
        _mapping(_mapping(document, "the document").get("components"), "components").get("schemas"),
        "components.schemas",
    )
    defs = {name: _clean(schema) for name, schema in schemas.items() if isinstance(schema, dict)}
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for name, schema in schemas.items():
        gvk = _kind_of(schema)
        if gvk is None or gvk[0] != SCHEDULING or gvk[2] not in WAS_KINDS or name not in defs:
            continue
        root = dict(defs[name])
        properties = _mapping(root.get("properties"), f"{name}.properties")
        root["properties"] = {**properties, "metadata": {"type": "object"}}
        found[(f"{gvk[0]}/{gvk[1]}", gvk[2])] = {**root, "$defs": defs, "title": name}
    return found


def _document_url(entry: Any) -> tuple[str, dict[str, str]] | None:
    """The document's path and query from an index entry: only a path under /openapi/v3/."""
    url = entry.get("serverRelativeURL") if isinstance(entry, dict) else None
    if not isinstance(url, str):
        return None
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path.startswith("/openapi/v3/") or ".." in parts.path.split("/"):
        return None
    return parts.path, dict(parse_qsl(parts.query))


def live_schemas(connection: Connection, discovery: Discovery) -> tuple[dict[tuple[str, str], Validator], list[str]]:
    """Validators per (apiVersion, kind) from the cluster's OpenAPI v3, and what could not be read."""
    problems: list[str] = []
    try:
        index, _ = connection.get_json("/openapi/v3")
    except ClusterError as error:
        return {}, [f"/openapi/v3 not read ({error}): the packaged schemas are used"]
    paths = index.get("paths") if isinstance(index, dict) else None
    if not isinstance(paths, dict):
        return {}, ["/openapi/v3 is not an OpenAPI v3 index (no paths object): the packaged schemas are used"]
    validators: dict[tuple[str, str], Validator] = {}
    for version in discovery.versions(SCHEDULING):
        entry = paths.get(f"apis/{SCHEDULING}/{version}")
        where = _document_url(entry)
        if where is None:
            if entry is not None:
                problems.append(f"OpenAPI v3 index entry of {SCHEDULING}/{version} has no usable serverRelativeURL")
            continue
        try:
            document, _ = connection.get_json(*where)
            for key, schema in convert(document).items():
                validators[key] = compile_schema(schema, str(schema["title"]))
        except (ClusterError, ValueError, TypeError, AttributeError, KeyError) as error:
            problems.append(f"OpenAPI v3 of {SCHEDULING}/{version} not used ({error}): the packaged schema is")
    return validators, problems
