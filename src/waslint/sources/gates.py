"""`--gates FILE`: a gate inventory `{component: {Gate: bool}}` given on the command line."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from waslint.io.loader import MAX_FILE_BYTES, Document, parse_bytes
from waslint.io.reading import InputError, read_bounded
from waslint.knowledge.gates import COMPONENTS, gate_table


class GatesFileError(Exception):
    """--gates FILE cannot be used: exit status 2."""


@dataclass(frozen=True)
class GatesFile:
    """The gate settings of a --gates file: `gates[component][gate]`, and the document they sit in
    (for positions of findings that point into the file)."""

    path: str
    gates: dict[str, dict[str, bool]]
    document: Document
    from_metrics: bool = False  # waslint audit: read from each component's /metrics, not a file


def load_gates_file(path: str) -> GatesFile:
    """Read `{component: {Gate: bool}}`; raise GatesFileError with the reason otherwise."""
    try:
        raw = read_bounded(path, MAX_FILE_BYTES)
    except InputError as err:
        raise GatesFileError(f"--gates {err}") from None
    source = parse_bytes(path, raw)
    if source.problems:
        problem = source.problems[0]
        raise GatesFileError(f"--gates {path}:{problem.line}:{problem.column}: {problem.message}")
    if len(source.documents) != 1 or not isinstance(source.documents[0].data, dict):
        raise GatesFileError(
            f"--gates {path}: expected one YAML mapping {{component: {{Gate: true|false}}}}"
            f" with components {', '.join(COMPONENTS)}"
        )
    doc = source.documents[0]
    gates: dict[str, dict[str, bool]] = {}
    for component, entries in doc.data.items():
        if component not in COMPONENTS:
            raise GatesFileError(f"--gates {path}: unknown component {component!r}; use {', '.join(COMPONENTS)}")
        if entries is None:
            entries = {}
        if not isinstance(entries, dict):
            raise GatesFileError(f"--gates {path}: {component}: expected a mapping of gate names to true/false")
        parsed: dict[str, bool] = {}
        for gate, value in entries.items():
            if not isinstance(gate, str) or not isinstance(value, bool):
                raise GatesFileError(f"--gates {path}: {component}.{gate}: expected true or false, got {value!r}")
            _check_spelling(path, component, gate)
            parsed[gate] = value
        gates[component] = parsed
    return GatesFile(path, gates, doc)


def _check_spelling(path: str, component: str, gate: str) -> None:
    """A gate waslint does not know but one letter or two from one it knows is a typo: stop.
    Gates far from every known one are other Kubernetes gates and are kept as they are."""
    known = gate_table()
    if gate in known:
        return
    by_lower = {name.lower(): name for name in known}
    close = difflib.get_close_matches(gate.lower(), list(by_lower), n=1, cutoff=0.8)
    if close:
        suggestion = by_lower[close[0]]
        raise GatesFileError(f"--gates {path}: {component}.{gate}: unknown feature gate; did you mean {suggestion}?")
