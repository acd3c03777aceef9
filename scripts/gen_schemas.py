#!/usr/bin/env python3
"""Generate the trimmed JSON schemas shipped in ``src/waslint/knowledge/schemas/``.

The schemas are *derived*, never hand-typed: this script reads the strict
JSON schemas bundled with the PyPI package ``kubernetes-validate`` (which are
generated from the upstream Kubernetes OpenAPI) and writes, per Kubernetes
release, one small self-contained schema per Workload-Aware-Scheduling kind
or fragment:

* every ``scheduling.k8s.io`` ``Workload``/``PodGroup``/``CompositePodGroup``
  kind in every version the release serves.  Kinds are detected through the
  ``x-kubernetes-group-version-kind`` annotation of the definitions, *not* via
  file names (1.35 ships ``podgroup-scheduling-v1alpha1.json``, which is an
  embedded struct, not a kind);
* the fragments embedded in core/batch types: ``JobSchedulingConfiguration``
  (batch/v1 ``Job.spec.scheduling``), ``PodSchedulingGroup`` (core/v1
  ``Pod.spec.schedulingGroup``) and ``WorkloadReference`` (core/v1
  ``Pod.spec.workloadRef``, 1.35 only), found by definition name, and ``ObjectMeta`` (what
  ``waslint fix`` checks a rewritten object's metadata against).

Each output file inlines only the definitions it (transitively) references,
under ``$defs``, with ``$ref``s rewritten to ``#/$defs/<name>``.
``description`` keywords and the patch-strategy annotations are dropped; the
other ``x-kubernetes-*`` annotations are kept (validators ignore them, the
rules engine may use e.g. ``x-kubernetes-list-map-keys``).  For the kind
schemas ``metadata`` is replaced by a loose ``{"type": "object"}`` and the root
is required to be an object.  An ``index.json`` per release maps
``group/version/Kind`` and fragment names to file names.

Usage::

    python scripts/gen_schemas.py          # (re)write src/waslint/knowledge/schemas/
    python scripts/gen_schemas.py --check  # exit 1 if the committed files are stale

Output is deterministic (sorted keys, fixed indentation, trailing newline).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = REPO_ROOT / "src" / "waslint" / "knowledge" / "schemas"

#: waslint release name -> kubernetes-validate schema directory
RELEASES: dict[str, str] = {
    "1.35": "v1.35.0-local-strict",
    "1.36": "v1.36.0-local-strict",
    "1.37": "v1.37.0-local-strict",
}

WAS_GROUP = "scheduling.k8s.io"
WAS_KINDS = ("Workload", "PodGroup", "CompositePodGroup")

#: fragment name -> definition name in _definitions.json (included where present)
FRAGMENTS: dict[str, str] = {
    "JobSchedulingConfiguration": "io.k8s.api.batch.v1.JobSchedulingConfiguration",
    "PodSchedulingGroup": "io.k8s.api.core.v1.PodSchedulingGroup",
    "WorkloadReference": "io.k8s.api.core.v1.WorkloadReference",
    # what fix checks the metadata of a rewritten object against (kind schemas keep it loose)
    "ObjectMeta": "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
}

#: Sanity check against the WAS fact sheet; the script fails loudly if
#: kubernetes-validate disagrees (e.g. after a package upgrade).
EXPECTED_KINDS: dict[str, set[str]] = {
    "1.35": {"scheduling.k8s.io/v1alpha1/Workload"},
    "1.36": {"scheduling.k8s.io/v1alpha2/Workload", "scheduling.k8s.io/v1alpha2/PodGroup"},
    "1.37": {
        "scheduling.k8s.io/v1beta1/Workload",
        "scheduling.k8s.io/v1beta1/PodGroup",
        "scheduling.k8s.io/v1alpha3/Workload",
        "scheduling.k8s.io/v1alpha3/PodGroup",
        "scheduling.k8s.io/v1alpha3/CompositePodGroup",
    },
}
EXPECTED_FRAGMENTS: dict[str, set[str]] = {
    "1.35": {"WorkloadReference", "ObjectMeta"},
    "1.36": {"PodSchedulingGroup", "ObjectMeta"},
    "1.37": {"JobSchedulingConfiguration", "PodSchedulingGroup", "ObjectMeta"},
}

#: annotation keys that are irrelevant for linting and only add bytes
DROP_KEYS = frozenset({"description", "x-kubernetes-patch-merge-key", "x-kubernetes-patch-strategy"})
#: keywords whose value is a map of name -> subschema
SCHEMA_MAP_KEYWORDS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
#: keywords whose value is a single subschema
SCHEMA_KEYWORDS = frozenset({"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"})
#: keywords whose value is a list of subschemas
SCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})

REF_PREFIX = "#/$defs/"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def schema_root() -> Path:
    """Directory holding kubernetes-validate's ``kubernetes-json-schema`` tree."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("gen_schemas: the 'kubernetes-validate' package is not installed")
    pkg_dir = Path(next(iter(spec.submodule_search_locations)))
    root = pkg_dir / "kubernetes-json-schema"
    if not root.is_dir():
        sys.exit(f"gen_schemas: {root} not found")
    return root


def source_version() -> str:
    return importlib.metadata.version("kubernetes-validate")


def load_definitions(dirname: str) -> dict[str, Any]:
    path = schema_root() / dirname / "_definitions.json"
    with path.open(encoding="utf-8") as fh:
        data = json.load(fh)
    defs = data.get("$defs", data.get("definitions"))
    if not isinstance(defs, dict):
        sys.exit(f"gen_schemas: no $defs in {path}")
    return defs


def ref_target(ref: str) -> str:
    """Definition name of a ``$ref`` (``#/$defs/X`` or ``/api/_definitions.json#/$defs/X``)."""
    _, _, fragment = ref.partition("#")
    for prefix in ("/$defs/", "/definitions/"):
        if fragment.startswith(prefix):
            return fragment[len(prefix) :]
    raise ValueError(f"unsupported $ref {ref!r}")


def trim(schema: Any) -> Any:
    """Copy a schema, dropping descriptions/patch annotations and normalising $refs."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in DROP_KEYS:
            continue
        if key == "$ref":
            out[key] = REF_PREFIX + ref_target(value)
        elif key in SCHEMA_MAP_KEYWORDS:
            out[key] = {name: trim(sub) for name, sub in value.items()}
        elif key in SCHEMA_KEYWORDS:
            out[key] = trim(value)
        elif key in SCHEMA_LIST_KEYWORDS:
            out[key] = [trim(sub) for sub in value]
        else:
            out[key] = value
    return out


def refs_in(schema: Any) -> Iterable[str]:
    """Definition names referenced directly by a (trimmed) schema."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref":
                yield ref_target(value)
            elif key in SCHEMA_MAP_KEYWORDS:
                for sub in value.values():
                    yield from refs_in(sub)
            elif key in SCHEMA_KEYWORDS:
                yield from refs_in(value)
            elif key in SCHEMA_LIST_KEYWORDS:
                for sub in value:
                    yield from refs_in(sub)


def build_schema(defs: dict[str, Any], root_name: str, *, is_kind: bool, title: str) -> Any:
    root = trim(defs[root_name])
    if is_kind:
        # A manifest document is always a map; metadata is validated by the rules
        # engine, not by inlining the whole ObjectMeta tree.
        root["type"] = "object"
        props = root.get("properties", {})
        if "metadata" in props:
            props["metadata"] = {"type": "object"}
    closure: dict[str, Any] = {}
    pending = sorted(set(refs_in(root)))
    while pending:
        name = pending.pop()
        if name in closure:
            continue
        if name not in defs:
            raise KeyError(f"{root_name}: dangling $ref to {name}")
        closure[name] = trim(defs[name])
        pending.extend(sorted(set(refs_in(closure[name])) - closure.keys()))
    schema: dict[str, Any] = {"$schema": DRAFT, "title": title, **root}
    if closure:
        schema["$defs"] = closure
    return schema


def file_stem(def_name: str) -> str:
    """``io.k8s.api.scheduling.v1beta1.Workload`` -> ``workload-scheduling-v1beta1``.

    Mirrors kubernetes-validate's file naming (core/v1 types have no group part).
    """
    parts = def_name.split(".")
    kind, version, group = parts[-1], parts[-2], parts[-3]
    if def_name.startswith("io.k8s.api.core."):
        return f"{kind.lower()}-{version}"
    return f"{kind.lower()}-{group}-{version}"


def fragment_label(def_name: str) -> str:
    """Schema title: ``io.k8s.api.batch.v1.JobSchedulingConfiguration`` ->
    ``batch/v1 JobSchedulingConfiguration`` (quoted in waslint messages).
    """
    parts = def_name.split(".")
    return f"{parts[-3]}/{parts[-2]} {parts[-1]}"


def fragment_parents(defs: dict[str, Any], def_name: str) -> list[str]:
    """Fields (``<definition>.<property>``) whose schema refers to ``def_name``."""
    found = []
    for owner in sorted(defs):
        for prop, sub in sorted((defs[owner].get("properties") or {}).items()):
            if def_name in set(refs_in(trim(sub))):
                found.append(f"{owner}.{prop}")
    return found


def was_kinds(defs: dict[str, Any]) -> dict[str, str]:
    """``group/version/Kind`` -> definition name for the WAS kinds in ``defs``."""
    kinds: dict[str, str] = {}
    for name in sorted(defs):
        gvks = defs[name].get("x-kubernetes-group-version-kind") or []
        # DeleteOptions/WatchEvent carry one GVK per group; real kinds carry one.
        if len(gvks) != 1:
            continue
        gvk = gvks[0]
        if gvk.get("group") == WAS_GROUP and gvk.get("kind") in WAS_KINDS:
            key = f"{gvk['group']}/{gvk['version']}/{gvk['kind']}"
            if key in kinds:
                raise ValueError(f"duplicate kind {key}: {kinds[key]} and {name}")
            kinds[key] = name
    return kinds


def dump(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def generate() -> dict[Path, str]:
    """Relative output path -> file content, for every generated file."""
    files: dict[Path, str] = {}
    version = source_version()
    for release, dirname in RELEASES.items():
        defs = load_definitions(dirname)
        index: dict[str, Any] = {
            "source": f"kubernetes-validate {version} {dirname}",
            "kinds": {},
            "fragments": {},
            "definitions": {},
            "fragment_parents": {},
        }
        kinds = was_kinds(defs)
        if set(kinds) != EXPECTED_KINDS[release]:
            sys.exit(f"gen_schemas: {release}: found kinds {sorted(kinds)}, expected {sorted(EXPECTED_KINDS[release])}")
        for key, def_name in kinds.items():
            group, ver, kind = key.split("/")
            fname = file_stem(def_name) + ".json"
            schema = build_schema(defs, def_name, is_kind=True, title=f"{group}/{ver} {kind}")
            files[Path(release) / fname] = dump(schema)
            index["kinds"][key] = fname
            index["definitions"][fname] = def_name
        for frag, def_name in FRAGMENTS.items():
            if def_name not in defs:
                continue
            fname = file_stem(def_name) + ".json"
            schema = build_schema(defs, def_name, is_kind=False, title=fragment_label(def_name))
            files[Path(release) / fname] = dump(schema)
            index["fragments"][frag] = fname
            index["definitions"][fname] = def_name
            index["fragment_parents"][frag] = fragment_parents(defs, def_name)
        if set(index["fragments"]) != EXPECTED_FRAGMENTS[release]:
            sys.exit(
                f"gen_schemas: {release}: found fragments {sorted(index['fragments'])}, "
                f"expected {sorted(EXPECTED_FRAGMENTS[release])}"
            )
        files[Path(release) / "index.json"] = dump(index)
    return files


def existing_files(out_dir: Path) -> set[Path]:
    if not out_dir.is_dir():
        return set()
    return {p.relative_to(out_dir) for p in out_dir.rglob("*.json") if p.is_file()}


def check(out_dir: Path, files: dict[Path, str]) -> int:
    problems = []
    for rel, content in sorted(files.items()):
        path = out_dir / rel
        if not path.is_file():
            problems.append(f"missing: {rel}")
        elif path.read_text(encoding="utf-8") != content:
            problems.append(f"differs: {rel}")
    for rel in sorted(existing_files(out_dir) - files.keys()):
        problems.append(f"stale:   {rel}")
    if problems:
        print("gen_schemas --check: committed schemas are out of date:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        print("run: python scripts/gen_schemas.py", file=sys.stderr)
        return 1
    print(f"gen_schemas --check: {len(files)} files up to date")
    return 0


def write(out_dir: Path, files: dict[Path, str]) -> None:
    for rel in sorted(existing_files(out_dir) - files.keys()):
        (out_dir / rel).unlink()
    for rel, content in sorted(files.items()):
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
    for rel, content in sorted(files.items()):
        print(f"{len(content.encode()):>7}  {rel}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed files differ")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help=f"output directory (default: {OUT_DIR})")
    args = parser.parse_args(argv)
    files = generate()
    if args.check:
        return check(args.out, files)
    write(args.out, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
