"""The import rules of docs/architecture.md, read from the code: layers only import downwards, no
cycles, and the kubernetes client stays out of the lint, fix and feasibility pipelines."""

from __future__ import annotations

import ast
import re
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


# -- docs/architecture.md names every module, and every module it names exists ---------------------------

DOC = PACKAGE.parent.parent / "docs" / "architecture.md"
# Backticked paths outside the package: other folders of the repository.
OUTSIDE_PACKAGE = ("tests/", "scripts/", "bench/", "docs/", "fixtures/", ".ci/")
_TOKEN = re.compile(r"`([^`\s]+)`")


def _contexts(text: str) -> list[tuple[str | None, str]]:
    """(room, text) of each table row of the rooms table and of each paragraph or list item;
    fenced code blocks are left out. A row's room is its first cell (`lint/`, `cli.py`)."""
    contexts: list[tuple[str | None, str]] = []
    block: list[str] = []
    fenced = False

    def close() -> None:
        if block:
            contexts.append((None, " ".join(block)))
            block.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            close()
            fenced = not fenced
        elif fenced:
            continue
        elif stripped.startswith("|"):
            close()
            cells = [cell.strip() for cell in stripped.strip("|").split("|")]
            room = cells[0].strip("`") if cells[0].startswith("`") else None
            contexts.append((room, " ".join(cells[1:])))
        elif not stripped or stripped.startswith(("- ", "#")) or re.match(r"\d+\. ", stripped):
            close()
            if stripped and not stripped.startswith("#"):
                block.append(stripped)
        else:
            block.append(stripped)
    close()
    return contexts


def _is_room(path: str) -> bool:
    return path.split("/")[0] in {layer for layer in LAYERS} and (PACKAGE / path.split("/")[0]).is_dir()


def doc_paths() -> list[str]:
    """Every path under src/waslint the doc names, relative to the package: in a row of the
    rooms table, relative to the row's room (`engine.py`, `rules/claims.py` in the `lint/` row);
    elsewhere, from the package (`lint/engine.py`, `cli.py`). A room named `cli.py` names itself."""
    named: list[str] = []
    for room, text in _contexts(DOC.read_text(encoding="utf-8")):
        base = room if room is not None and room.endswith("/") else ""
        if room is not None and room.endswith(".py"):
            named.append(room)
        for token in _TOKEN.findall(text):
            token = token.removeprefix("src/waslint/")
            if "<" in token or token == "src/" or token.startswith(OUTSIDE_PACKAGE) or not token.endswith(("/", ".py")):
                continue
            named.append(token if _is_room(token) else base + token)
    return named


def _needs_naming(path: Path) -> bool:
    """Every module, but a package `__init__.py` that only documents or re-exports."""
    if path.name != "__init__.py":
        return True
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) for node in tree.body)


def test_every_module_is_named_in_the_architecture_doc() -> None:
    named = set(doc_paths())
    modules = [
        path.relative_to(PACKAGE).as_posix()
        for path in sorted(PACKAGE.rglob("*.py"))
        if _needs_naming(path) and path.relative_to(PACKAGE).as_posix() != "__init__.py"
    ]
    missing = [module for module in modules if module not in named]
    assert not missing, "docs/architecture.md does not name these modules (by their path in their room):\n" + "\n".join(
        missing
    )


def test_every_module_the_architecture_doc_names_exists() -> None:
    gone = [path for path in doc_paths() if not (PACKAGE / path).exists()]
    assert not gone, f"docs/architecture.md names what src/waslint does not hold: {gone}"


def test_the_doc_s_rooms_are_the_layers_low_to_high() -> None:
    rooms = [room for room, _ in _contexts(DOC.read_text(encoding="utf-8")) if room is not None]
    assert [room.removesuffix("/").removesuffix(".py") for room in rooms] == list(LAYERS)
