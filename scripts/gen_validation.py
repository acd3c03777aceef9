#!/usr/bin/env python3
"""Generate upstream's declarative validation data shipped in ``src/waslint/knowledge/validation-data/``.

The data is *derived*, never hand-typed: this script reads the verbatim upstream Go API types
(kubernetes/api ``scheduling/<version>/types.go``, ``batch/v1/types.go``, ``core/v1/types.go`` of
each release, laid out as ``SOURCE/<release>/<group>/<version>/types.go`` with a PROVENANCE.tsv
naming the repository, path and commit of each file) and turns the ``+k8s:`` comment markers on
each field into JSON, one file per release:

* ``kinds``: ``group/version/Kind`` -> the Go type of the object root (scheduling.k8s.io
  Workload / PodGroup / CompositePodGroup, batch/v1 Job, core/v1 Pod where the release has their
  types);
* ``types``: every struct reachable from a root that carries (or leads to) a marker, as
  ``{"fields": {json name: field}, "unions": [...], "dependents": [...]}``; a field holds its
  shape (``kind``: scalar/struct/list/map, ``pointer``, the element ``type``) and its ``rules``
  in upstream's evaluation order. A rule is ``{"rule": name, ...arguments}`` and may carry
  ``"gate": [Gate, enabled]`` (``+k8s:ifEnabled``/``ifDisabled``) and ``"level"``
  (``alpha``/``beta``: the ``+k8s:alpha(since)``/``beta(since)`` stability wrappers);
* enum types (``+k8s:enum``) become ``{"enum": [values]}`` from the type's constants.

Recursive types (CompositePodGroupTemplate) stay a type graph, not an unrolled path list.

Usage::

    python scripts/gen_validation.py --source DIR            # (re)write the package data
    python scripts/gen_validation.py --source DIR --check    # exit 1 if the committed files are stale

Output is deterministic (sorted keys, fixed indentation, trailing newline).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = REPO_ROOT / "src" / "waslint" / "knowledge" / "validation-data"

#: Object roots per API group: (group, Go package dir under <release>/, kind).
ROOTS: tuple[tuple[str, str, str], ...] = (
    ("scheduling.k8s.io", "scheduling", "Workload"),
    ("scheduling.k8s.io", "scheduling", "PodGroup"),
    ("scheduling.k8s.io", "scheduling", "CompositePodGroup"),
    ("batch", "batch", "Job"),
    ("", "core", "Pod"),
)

#: Formats the validator implements (waslint.knowledge.validation); anything else fails loudly.
KNOWN_FORMATS = frozenset(
    {"k8s-short-name", "k8s-long-name", "k8s-path-segment-name", "k8s-label-key", "k8s-prefixed-label-key"}
)
#: Markers that carry no check a manifest can fail (documentation, code generation, tags).
IGNORED = frozenset({"customValidation", "supportsSubresource", "deprecated", "openapi-gen", "conversion-gen"})
UPDATE_RULES = frozenset({"NoSet", "NoUnset", "NoModify", "NoAddItem", "NoRemoveItem"})

_TYPE_RE = re.compile(r"^type\s+(\w+)\s+(struct\s*\{|\w+)")
_FIELD_RE = re.compile(r"^\s*(?:(\w+)\s+)?([\w.*\[\]]+(?:\[[\w.*]+\][\w.*]+)?)\s+`([^`]*)`")
_JSON_TAG_RE = re.compile(r'json:"([^"]*)"')
_MARKER_RE = re.compile(r"^\s*//\s?\+k8s:(.*?)\s*(?:#.*)?$")
_IMPORT_RE = re.compile(r'^\s*(\w+)?\s*"([^"]+)"')
_CONST_RE = re.compile(r'^\s*(\w+)\s+(\w+)\s*=\s*"([^"]*)"')


class GenError(Exception):
    pass


@dataclass
class GoField:
    name: str  # json name ("" for an inlined embedding)
    go_type: str
    markers: list[str]
    line: int
    default: str | None = None  # the +default= marker (JSON), applied by the API server before validation


@dataclass
class GoType:
    name: str
    package: str  # e.g. "scheduling/v1beta1"
    underlying: str  # "struct" or a named basic type
    markers: list[str]
    fields: list[GoField] = field(default_factory=list)


@dataclass
class GoPackage:
    path: str  # "scheduling/v1beta1"
    imports: dict[str, str] = field(default_factory=dict)  # alias -> "scheduling/v1alpha3" or external path
    types: dict[str, GoType] = field(default_factory=dict)
    constants: dict[str, list[str]] = field(default_factory=dict)  # type name -> values, in source order


# --------------------------------------------------------------------------- Go parsing


def _markers(comment_lines: list[str]) -> list[str]:
    found = []
    for line in comment_lines:
        match = _MARKER_RE.match(line)
        if match:
            found.append(match.group(1).strip())
    return found


def parse_package(release_dir: Path, package_path: str) -> GoPackage:
    source = release_dir / package_path / "types.go"
    package = GoPackage(package_path)
    lines = source.read_text(encoding="utf-8").splitlines()
    _parse_imports(lines, package, release_dir)
    comments: list[str] = []
    current: GoType | None = None
    const_block = False
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        stripped = line.strip()
        if current is not None:
            if stripped == "}":
                package.types[current.name] = current
                current = None
            elif stripped.startswith("//"):
                comments.append(stripped)
            elif not stripped:
                comments = []
            else:
                _parse_field(line, comments, current, number)
                comments = []
            continue
        if stripped.startswith("//"):
            comments.append(stripped)
            continue
        if not stripped:
            comments = []
            continue
        single = re.match(r'^const\s+(\w+)\s+(\w+)\s*=\s*"([^"]*)"', stripped)
        if single:
            package.constants.setdefault(single.group(2), []).append(single.group(3))
        if stripped == "const (":
            const_block = True
        elif const_block and stripped == ")":
            const_block = False
        elif const_block:
            match = _CONST_RE.match(line)
            if match:
                package.constants.setdefault(match.group(2), []).append(match.group(3))
        type_match = _TYPE_RE.match(stripped)
        if type_match:
            kind = "struct" if type_match.group(2).startswith("struct") else type_match.group(2)
            go_type = GoType(type_match.group(1), package_path, kind, _markers(comments))
            if kind == "struct":
                current = go_type
            else:
                package.types[go_type.name] = go_type
        # a blank line or code ends a doc comment (the type markers used here, +k8s:enum, sit
        # directly above their type)
        comments = []
    return package


def _parse_imports(lines: list[str], package: GoPackage, release_dir: Path) -> None:
    inside = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("import ("):
            inside = True
            continue
        if inside and stripped == ")":
            return
        if not inside:
            continue
        match = _IMPORT_RE.match(stripped)
        if not match:
            continue
        alias, path = match.group(1), match.group(2)
        local = path.removeprefix("k8s.io/api/")
        name = alias or path.rsplit("/", 1)[-1]
        package.imports[name] = local if (release_dir / local / "types.go").is_file() else path


def _parse_field(line: str, comments: list[str], owner: GoType, number: int) -> None:
    match = _FIELD_RE.match(line)
    if not match:
        return
    go_type, tags = match.group(2), match.group(3)
    tag = _JSON_TAG_RE.search(tags)
    if tag is None:
        return
    json_name = tag.group(1).split(",")[0]
    if json_name == "-":
        return
    default = next((c.split("=", 1)[1] for c in comments if c.startswith("// +default=")), None)
    owner.fields.append(GoField(json_name, go_type, _markers(comments), number, default))


# --------------------------------------------------------------------------- markers -> rules


_WRAPPER_RE = re.compile(r'^(alpha|beta)\(since:\s*"[^"]*"\)=\+k8s:(.*)$')
_GATE_RE = re.compile(r'^(ifEnabled|ifDisabled)\("?(\w+)"?\)=\+k8s:(.*)$')
_CALL_RE = re.compile(r'^(\w+)\("?([^")]*)"?\)$')


def marker_rule(marker: str, where: str) -> dict[str, Any] | None:
    """One ``+k8s:`` marker (without the prefix) as a rule dict, None for a marker without a check."""
    level = None
    wrapped = _WRAPPER_RE.match(marker)
    if wrapped:
        level, marker = wrapped.group(1), wrapped.group(2)
    gate = None
    gated = _GATE_RE.match(marker)
    if gated:
        gate = [gated.group(2), gated.group(1) == "ifEnabled"]
        marker = gated.group(3)
    rule = _plain_rule(marker, where)
    if rule is None:
        return None
    if gate is not None:
        rule["gate"] = gate
    if level is not None:
        rule["level"] = level
    return rule


def _plain_rule(marker: str, where: str) -> dict[str, Any] | None:
    name, _, value = marker.partition("=")
    name = name.strip()
    value = value.strip()
    if name in IGNORED or name.startswith(("prerelease-lifecycle-gen", "deepcopy-gen")):
        return None
    if name in ("required", "optional", "forbidden", "immutable", "unionMember", "unionDiscriminator"):
        return {"rule": name}
    if name in ("opaqueType",):
        return {"rule": "opaque"}
    if name == "format":
        if value not in KNOWN_FORMATS:
            raise GenError(f"{where}: format {value!r} is not implemented by the validator")
        return {"rule": "format", "format": value}
    if name in ("minimum", "maximum", "maxItems", "maxLength", "maxBytes"):
        return {"rule": name, "value": int(value)}
    if name == "listType":
        return {"rule": "listType", "value": value}
    if name == "listMapKey":
        return {"rule": "listMapKey", "value": value}
    if name == "update":
        if value not in UPDATE_RULES:
            raise GenError(f"{where}: unknown update rule {value!r}")
        return {"rule": "update", "value": value}
    if name == "enum":
        return {"rule": "enum"}
    if name == "eachVal":
        inner = marker_rule(value.removeprefix("+k8s:"), where)
        return None if inner is None else {"rule": "eachVal", "inner": inner}
    if name.startswith("subfield("):
        sub = _CALL_RE.match(name)
        inner = marker_rule(value.removeprefix("+k8s:"), where)
        if sub is None or inner is None:
            return None
        return {"rule": "subfield", "field": sub.group(2), "inner": inner}
    call = _CALL_RE.match(name)
    if call and call.group(1) in ("dependentRequired", "dependentForbidden"):
        return {"rule": call.group(1), "field": call.group(2)}
    raise GenError(f"{where}: marker +k8s:{marker} is not understood; extend scripts/gen_validation.py")


# --------------------------------------------------------------------------- type graph


@dataclass
class Universe:
    release_dir: Path
    packages: dict[str, GoPackage] = field(default_factory=dict)

    def package(self, path: str) -> GoPackage | None:
        if path not in self.packages:
            if not (self.release_dir / path / "types.go").is_file():
                return None
            self.packages[path] = parse_package(self.release_dir, path)
        return self.packages[path]

    def resolve(self, go_type: str, context: GoPackage) -> tuple[GoPackage, GoType] | None:
        if "." in go_type:
            alias, name = go_type.split(".", 1)
            target = context.imports.get(alias)
            package = self.package(target) if target else None
        else:
            package, name = context, go_type
        if package is None or name not in package.types:
            return None
        return package, package.types[name]


_BASIC = frozenset(
    {"string", "bool", "int", "int32", "int64", "uint", "uint32", "uint64", "float32", "float64", "byte"}
)


class Generator:
    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.types: dict[str, dict[str, Any]] = {}
        self._useful: dict[str, bool] = {}

    def type_id(self, package: GoPackage, go_type: GoType) -> str:
        return f"{package.path}.{go_type.name}"

    def shape(self, go_type: str, context: GoPackage) -> dict[str, Any]:
        """The JSON shape of a Go type expression; registers the struct types it reaches."""
        pointer = go_type.startswith("*")
        bare = go_type.lstrip("*")
        if bare.startswith("[]"):
            element = self.shape(bare[2:], context)
            return {"kind": "list", "pointer": pointer, "element": element}
        if bare.startswith("map["):
            return {"kind": "map", "pointer": pointer}
        if bare in _BASIC:
            return {"kind": "scalar", "pointer": pointer, "go": bare}
        resolved = self.universe.resolve(bare, context)
        if resolved is None:
            return {"kind": "opaque", "pointer": pointer, "go": bare}
        package, target = resolved
        if target.underlying != "struct":
            out: dict[str, Any] = {"kind": "scalar", "pointer": pointer, "go": target.underlying}
            if any(m == "enum" for m in target.markers):
                values = package.constants.get(target.name, [])
                if not values:
                    raise GenError(f"{package.path}.{target.name}: +k8s:enum without constants")
                out["enum"] = values
            return out
        type_id = self.type_id(package, target)
        self.visit(package, target)
        return {"kind": "struct", "pointer": pointer, "type": type_id}

    def visit(self, package: GoPackage, go_type: GoType) -> None:
        type_id = self.type_id(package, go_type)
        if type_id in self.types:
            return
        entry: dict[str, Any] = {"fields": {}, "unions": [], "dependents": []}
        self.types[type_id] = entry  # before the fields: recursive types end here
        members: list[str] = []
        for go_field in go_type.fields:
            where = f"{package.path}/types.go:{go_field.line}"
            rules = [r for m in go_field.markers if (r := marker_rule(m, where)) is not None]
            if go_field.name == "":
                continue  # TypeMeta: inlined, no markers
            shape = self.shape(go_field.go_type, package)
            for rule in list(rules):
                if rule["rule"] in ("unionMember", "unionDiscriminator"):
                    if rule["rule"] == "unionMember":
                        members.append(go_field.name)
                    rules.remove(rule)
                elif rule["rule"] in ("dependentRequired", "dependentForbidden"):
                    entry["dependents"].append({**rule, "when": go_field.name})
                    rules.remove(rule)
            if any(r["rule"] == "opaque" for r in rules):
                shape = {"kind": "opaque", "pointer": shape["pointer"]}
                rules = [r for r in rules if r["rule"] != "opaque"]
            entry["fields"][go_field.name] = {**shape, "rules": rules}
            if go_field.default is not None:
                entry["fields"][go_field.name]["default"] = json.loads(go_field.default)
        if members:
            entry["unions"].append({"members": members})

    # A type is kept when it (or anything below it) has a rule; the rest is pruned so the data
    # stays small (core/v1 PodSpec reaches hundreds of types without markers).
    def useful(self, type_id: str) -> bool:
        if type_id in self._useful:
            return self._useful[type_id]
        self._useful[type_id] = False  # cycle guard
        entry = self.types[type_id]
        result = bool(entry["unions"] or entry["dependents"])
        for spec in entry["fields"].values():
            if self._field_useful(spec):
                result = True
        self._useful[type_id] = result
        return result

    def _field_useful(self, spec: dict[str, Any]) -> bool:
        if spec.get("rules") or spec.get("enum"):
            return True
        if spec["kind"] == "struct":
            return self.useful(spec["type"])
        if spec["kind"] == "list":
            return self._field_useful(spec["element"])
        return False

    def pruned(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for type_id, entry in sorted(self.types.items()):
            if not self.useful(type_id):
                continue
            fields = {name: spec for name, spec in entry["fields"].items() if self._field_useful(spec)}
            out[type_id] = {**entry, "fields": fields}
        return out


def generate_release(release_dir: Path) -> dict[str, Any]:
    universe = Universe(release_dir)
    generator = Generator(universe)
    kinds: dict[str, str] = {}
    for group, folder, kind in ROOTS:
        group_dir = release_dir / folder
        if not group_dir.is_dir():
            continue
        for version_dir in sorted(p for p in group_dir.iterdir() if (p / "types.go").is_file()):
            package = universe.package(f"{folder}/{version_dir.name}")
            assert package is not None
            root = package.types.get(kind)
            if root is None or not any(f.name == "" and f.go_type.endswith("TypeMeta") for f in root.fields):
                continue  # absent, or an embedded struct of that name (1.35 PodGroup), not a kind
            generator.visit(package, package.types[kind])
            api_version = f"{group}/{version_dir.name}" if group else version_dir.name
            kinds[f"{api_version}/{kind}"] = generator.type_id(package, package.types[kind])
    types = generator.pruned()
    for type_id in list(kinds.values()):
        if type_id not in types:
            types[type_id] = {"fields": {}, "unions": [], "dependents": []}
    return {"release": release_dir.name, "kinds": dict(sorted(kinds.items())), "types": types}


def render(data: dict[str, Any], provenance: list[str]) -> str:
    document = {
        "generated_by": "scripts/gen_validation.py",
        "source": provenance,
        **data,
    }
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def _provenance(source: Path, release: str) -> list[str]:
    table = source / "PROVENANCE.tsv"
    if not table.is_file():
        return []
    rows = []
    for line in table.read_text(encoding="utf-8").splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) >= 4 and parts[0].startswith(f"{release}/") and parts[0].endswith("types.go"):
            rows.append(f"{parts[1]} {parts[2]} @ {parts[3]}")
    return sorted(rows)


def outputs(source: Path, out_dir: Path) -> dict[Path, str]:
    files: dict[Path, str] = {}
    for release_dir in sorted(p for p in source.iterdir() if p.is_dir() and re.match(r"^\d+\.\d+$", p.name)):
        data = generate_release(release_dir)
        files[out_dir / f"{release_dir.name}.json"] = render(data, _provenance(source, release_dir.name))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--source", type=Path, required=True, help="the upstream types: <release>/<group>/<version>/types.go"
    )
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output folder (default: the package data)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed data is stale")
    args = parser.parse_args(argv)
    if not args.source.is_dir():
        print(f"gen_validation: source folder {args.source} not found", file=sys.stderr)
        return 2
    try:
        files = outputs(args.source, args.out)
    except GenError as error:
        print(f"gen_validation: {error}", file=sys.stderr)
        return 2
    if args.check:
        stale = [path for path, text in files.items() if not path.is_file() or path.read_text("utf-8") != text]
        extra = [p for p in args.out.glob("*.json") if p not in files] if args.out.is_dir() else []
        for path in stale + extra:
            print(f"gen_validation: {path} is stale", file=sys.stderr)
        return 1 if stale or extra else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
