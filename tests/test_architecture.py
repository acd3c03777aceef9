"""The import rules of docs/architecture.md, read from the code: layers only import downwards, no
cycles, and the kubernetes client stays out of the lint, fix and feasibility pipelines."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "waslint"

# Low to high; a module may import its own layer and the layers before it.
LAYERS = (
    "escape",
    "core",
    "knowledge",
    "io",
    "objects",
    "findings",
    "report",
    "sources",
    "feasibility",
    "lint",
    "fix",
    "audit",
    "cli",
)
# Modules of the package's face that belong to no room: the version, `python -m waslint`.
FACE = {"waslint": "core", "waslint.__main__": "cli"}
# Only these rooms may import the kubernetes client (and only inside the commands that need it).
KUBERNETES_CLIENT_ROOMS = {"sources.cluster", "audit", "cli"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    if module in FACE:
        return FACE[module]
    room = module.split(".")[1]
    if room not in LAYERS:
        raise AssertionError(f"{module} is in no room of the layout: add it to LAYERS and docs/architecture.md")
    return room


def imports_of(path: Path) -> list[tuple[str, int]]:
    """Every waslint (and kubernetes) module a file imports, at any depth of the code."""
    found: list[tuple[str, int]] = []
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((base, node.lineno))
            # `from waslint.report import text` imports the module waslint.report.text
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for target, _ in imports_of(path):
            if target in modules and target != name:
                edges[name].add(target)
    return edges


def test_every_import_goes_down_the_layers() -> None:
    order = {layer: position for position, layer in enumerate(LAYERS)}
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = module_name(path)
        for target, line in imports_of(path):
            if not target.startswith("waslint.") or target == "waslint.__version__":
                continue
            if (
                not (PACKAGE.parent / target.replace(".", "/")).with_suffix(".py").exists()
                and not (PACKAGE.parent / target.replace(".", "/") / "__init__.py").exists()
            ):
                continue  # a name imported from a module, not a module
            if order[layer_of(target)] > order[layer_of(source)]:
                wrong.append(
                    f"{path.relative_to(PACKAGE.parent)}:{line}: {source} ({layer_of(source)}) imports "
                    f"{target} ({layer_of(target)})"
                )
    assert not wrong, "imports that run back up the layers:\n" + "\n".join(wrong)


def test_no_import_cycle() -> None:
    edges = graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                cycles.append([*trail[trail.index(target) :], target] if target in trail else [node, target])
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


@pytest.mark.parametrize("room", ["lint", "fix", "feasibility", "knowledge", "objects", "io", "report"])
def test_pipelines_never_import_the_kubernetes_client(room: str) -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted((PACKAGE / room).rglob("*.py"))
        for target, line in imports_of(path)
        if target == "kubernetes" or target.startswith("kubernetes.")
    ]
    assert not offenders, f"{room}/ imports the kubernetes client: {offenders}"


def test_the_layout_is_stated_in_the_architecture_doc() -> None:
    text = (PACKAGE.parent.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer in LAYERS:
        assert f"`{layer}" in text, f"docs/architecture.md does not describe the room {layer}"
