"""The cluster's own schemas: `/openapi/v3` documents of the served `scheduling.k8s.io` versions,
converted to the JSON Schema subset of `knowledge/schema.py`, so WAS002 checks stored objects
against the exact (patch) release the cluster runs instead of the packaged one.

The conversion: `#/components/schemas/X` becomes `#/$defs/X`; a one-element `allOf` (how the API
server wraps a `$ref` that has a default) is its element; every type also admits null (an unset
field); object schemas with `properties` and no `additionalProperties` are closed, like the
packaged strict schemas (an unknown field is what the API server's strict field validation
rejects); `metadata` is left to the other rules, as in the packaged schemas. Keywords outside the
subset are dropped.
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


def _kind_of(schema: Any) -> tuple[str, str, str] | None:
    for gvk in schema.get("x-kubernetes-group-version-kind") or [] if isinstance(schema, dict) else []:
        if isinstance(gvk, dict):
            return str(gvk.get("group", "")), str(gvk.get("version", "")), str(gvk.get("kind", ""))
    return None


def convert(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """`(apiVersion, kind) -> schema document` for the WAS kinds an OpenAPI v3 document describes."""
    schemas = (document.get("components") or {}).get("schemas") or {}
    defs = {name: _clean(schema) for name, schema in schemas.items()}
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for name, schema in schemas.items():
        gvk = _kind_of(schema)
        if gvk is None or gvk[0] != SCHEDULING or gvk[2] not in WAS_KINDS:
            continue
        root = dict(defs[name])
        root["properties"] = {**root.get("properties", {}), "metadata": {"type": "object"}}
        found[(f"{gvk[0]}/{gvk[1]}", gvk[2])] = {**root, "$defs": defs, "title": name}
    return found


def live_schemas(connection: Connection, discovery: Discovery) -> tuple[dict[tuple[str, str], Validator], list[str]]:
    """Validators per (apiVersion, kind) from the cluster's OpenAPI v3, and what could not be read."""
    problems: list[str] = []
    try:
        index, _ = connection.get_json("/openapi/v3")
    except ClusterError as error:
        return {}, [f"/openapi/v3 not read ({error}): the packaged schemas are used"]
    paths = index.get("paths") if isinstance(index, dict) else None
    validators: dict[tuple[str, str], Validator] = {}
    for version in discovery.versions(SCHEDULING):
        entry = (paths or {}).get(f"apis/{SCHEDULING}/{version}")
        url = entry.get("serverRelativeURL") if isinstance(entry, dict) else None
        if not isinstance(url, str):
            continue
        parts = urlsplit(url)
        try:
            document, _ = connection.get_json(parts.path, dict(parse_qsl(parts.query)))
            for key, schema in convert(document).items():
                validators[key] = compile_schema(schema, str(schema["title"]))
        except (ClusterError, ValueError, AttributeError) as error:
            problems.append(f"OpenAPI v3 of {SCHEDULING}/{version} not used ({error}): the packaged schema is")
    return validators, problems
