"""The fix pipeline: the lint pipeline's loader, index and WAS1xx rules say what to change, the
planner turns findings into operations, the edits go in at node positions, and each fixed file is
verified before anything is written. Passes repeat (at most three) until nothing fixable is left.
"""

from __future__ import annotations

import gc
import os
import re
import traceback
from dataclasses import dataclass, field
from typing import Any

import yaml

from waslint.core.codes import matches
from waslint.core.model import FixKind
from waslint.findings import Finding
from waslint.fix.edits import DocText, Edit, EditConflict, apply_edits, edits_for
from waslint.fix.verify import check_problems, same
from waslint.fix.writer import UTF8, Encoding, sniff
from waslint.fix.yamltext import (
    Unfixable,
    content_end,
    eol_of,
    indent_step,
    next_line_start,
    shared_nodes,
)
from waslint.io.config import Config
from waslint.io.discover import discover_all
from waslint.io.helm import is_template
from waslint.io.helmtext import PLACEHOLDER
from waslint.io.loader import MAX_FILE_BYTES, Document, SourceFile, parse_bytes, too_large
from waslint.io.reading import InputError, TooLarge, read_bounded
from waslint.knowledge.releases import fix_target
from waslint.lint.codes import RULES
from waslint.lint.engine import LintResult, lint_sources
from waslint.lint.fixers.checks import decline_invalid, line_break_problem
from waslint.lint.fixers.ops import Op, apply_to_data
from waslint.lint.fixers.plan import NewDocument, Plan, Unit
from waslint.lint.fixers.registry import FixEnv, Fixer, FixTarget, all_fixers, fixer_for
from waslint.lint.options import LintOptions
from waslint.lint.owners import owner_of, owners_of
from waslint.objects.kobject import KObject

PARSE_ERROR = "WAS001"
MAX_PASSES = 3
OLD_WAS = re.compile(r"scheduling\.k8s\.io/v1alpha[123]|podGroupTemplateRef|workloadRef:")
TEMPLATE_NOTE = (
    "skipped: the file holds Helm/Go template syntax ({{ }}) and is never rewritten; change the"
    " chart source by hand, or fix rendered output (`helm template ... | waslint fix -`)"
)
PARSE_NOTE = "not fixed: the file does not parse (WAS001); it is left untouched"
TEMPLATE_EDIT_NOTE = "not fixed: the edited node holds a Helm template action ({{ }}); change the chart source by hand"


@dataclass
class FixOptions:
    lint: LintOptions = field(default_factory=LintOptions)
    config: Config = field(default_factory=Config)
    unsafe: bool = False


@dataclass
class Applied:
    code: str
    line: int
    column: int
    message: str
    label: str


@dataclass(eq=False)
class FileState:
    path: str
    raw: bytes
    encoding: Encoding
    original: str
    source: SourceFile
    refusal: str | None = None
    applied: list[Applied] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.source.text

    @property
    def changed(self) -> bool:
        return self.source.text != self.original

    def encoded(self) -> bytes:
        return self.raw if not self.changed else self.encoding.encode(self.source.text)


@dataclass
class Remaining:
    finding: Finding
    reason: str


@dataclass
class FixResult:
    files: list[FileState]
    remaining: list[Remaining]
    notes: dict[str, list[str]]
    internal_errors: list[str]
    documents: int = 0

    @property
    def changed(self) -> list[FileState]:
        return [state for state in self.files if state.changed]

    @property
    def fixes(self) -> int:
        return sum(len(state.applied) for state in self.files)


# --------------------------------------------------------------------------- input


def read_file(path: str, stdin: Any = None) -> FileState:
    try:
        raw = read_bounded(path, MAX_FILE_BYTES, stdin)
    except TooLarge:
        return FileState(path, b"", UTF8, "", too_large(path), refusal=PARSE_NOTE)
    except InputError as err:
        source = SourceFile(path=path, text="", read_error=str(err))
        return FileState(path, b"", UTF8, "", source, refusal=PARSE_NOTE)
    return state_of(path, raw)


def state_of(path: str, raw: bytes) -> FileState:
    source = parse_bytes(path, raw)
    state = FileState(path, raw, sniff(raw), source.text, source)
    state.refusal = _refusal(source)
    return state


def _refusal(source: SourceFile) -> str | None:
    if (source.template is None or source.problems) and is_template(source.path, source.text):
        return TEMPLATE_NOTE  # a template that cannot be read (whole) at its source positions
    line_breaks = line_break_problem(source.text)
    if line_breaks is not None:
        return line_breaks
    if source.problems:
        return PARSE_NOTE
    if any(doc.line_offset for doc in source.documents):
        return PARSE_NOTE
    return None


def fix_paths(paths: list[str], options: FixOptions, stdin: Any = None) -> tuple[FixResult, list[str]]:
    """Fix PATH arguments in memory; the caller writes (or diffs) the changed files."""
    found = discover_all(paths, options.config.excludes)
    if found.errors:
        return FixResult([], [], {}, []), found.errors
    unique = _without_duplicates(found.files)
    # As in lint: the node trees are acyclic and all kept, so the cyclic collector is paused
    # while loading (re-scanning the growing heap costs more than the parse), then the loaded
    # set is frozen out of its way.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        states = [read_file(path, stdin) for path in unique]
    finally:
        if was_enabled:
            gc.enable()
    for state in states:  # before stdin takes its --stdin-filename: stdin is no link
        if state.path != "-" and os.path.islink(state.path) and state.refusal is None:
            state.refusal = f"not written: {state.path} is a symbolic link (fix never writes through a link)"
    stdin_name = options.lint.stdin_filename
    for state in states:
        if stdin_name and state.path == "-":
            state.path = state.source.path = stdin_name
    gc.freeze()
    errors = [state.source.read_error for state in states if state.source.read_error is not None]
    if errors:
        return FixResult(states, [], {}, []), errors
    result = fix_states(states, options)
    for path, reason in found.skipped:
        result.notes.setdefault(path, []).append(f"skipped: {reason}")
    return result, errors


def _without_duplicates(files: list[str]) -> list[str]:
    """One path per real file, the link-free one when a file is reached both ways."""
    direct = {os.path.realpath(path) for path in files if path != "-" and not os.path.islink(path)}
    unique: list[str] = []
    seen: set[str] = set()
    for path in files:
        key = path if path == "-" else os.path.realpath(path)
        if key in seen or (key in direct and os.path.islink(path)):
            continue
        seen.add(key)
        unique.append(path)
    return unique


def fix_texts(files: dict[str, str], options: FixOptions | None = None) -> FixResult:
    """Fix in-memory files (path -> text); for tests and embedding."""
    states = [state_of(path, text.encode("utf-8")) for path, text in files.items()]
    return fix_states(states, options or FixOptions())


# --------------------------------------------------------------------------- passes


def fix_codes(options: FixOptions) -> list[str]:
    """The rules a fix run uses: WAS001 and WAS1xx, narrowed by --select/--ignore."""
    chosen = options.lint.select or ["ALL"]
    return [
        code
        for code in RULES
        if (code == PARSE_ERROR or code.startswith("WAS1"))
        and matches(code, chosen)
        and not matches(code, options.lint.ignore)
    ]


def fix_states(states: list[FileState], options: FixOptions) -> FixResult:
    lint_options = LintOptions(
        select=fix_codes(options) or ["NONE"],
        ignore=[],
        severity=dict(options.lint.severity),
        target=fix_target(),
        namespace=options.lint.namespace,
        inline_ignores=options.lint.inline_ignores,
        snapshot_path=options.lint.snapshot_path,
        gates_path=options.lint.gates_path,
        base_ref=options.lint.base_ref,
    )
    by_path = {state.path: state for state in states}
    internal: list[str] = []
    for number in range(1, MAX_PASSES + 1):
        result = lint_sources([s.source for s in states], lint_options, options.config)
        internal.extend(result.internal_errors)
        plan = make_plan(result, by_path, options)
        work = prepare(plan, by_path)
        if not work.units or number == MAX_PASSES:
            break
        if not apply_work(work, plan, by_path, internal):
            break
    notes = _notes(states, result, plan)
    remaining = [Remaining(f, f.declined or _reason(f, plan, by_path)) for f in result.findings]
    documents = sum(len(s.source.documents) + len(s.source.problems) for s in states)
    return FixResult(states, remaining, notes, list(dict.fromkeys(internal)), documents)


def _reason(finding: Finding, plan: Plan, by_path: dict[str, FileState]) -> str:
    if finding in plan.reasons:
        return plan.reasons[finding]
    if finding.code == PARSE_ERROR:
        state = by_path.get(finding.path)
        if state is not None and state.refusal == TEMPLATE_NOTE:
            return "a template, not YAML: the file is left untouched"
        return "the file is left untouched: fix the YAML by hand"
    state = by_path.get(finding.path)
    if state is not None and state.refusal is not None and finding.fixable:
        return state.refusal
    if not finding.fixable:
        return "no automatic fix"
    return "not fixed"


def _notes(states: list[FileState], result: LintResult, plan: Plan) -> dict[str, list[str]]:
    notes = {path: list(items) for path, items in plan.notes.items()}
    fixable = {f.path for f in result.findings if f.fixable}
    for state in states:
        if state.refusal == TEMPLATE_NOTE and (state.path in fixable or OLD_WAS.search(state.source.text)):
            notes.setdefault(state.path, []).append(TEMPLATE_NOTE)
    return notes


# --------------------------------------------------------------------------- planning


def make_plan(result: LintResult, by_path: dict[str, FileState], options: FixOptions) -> Plan:
    plan = Plan()
    assert result.context is not None
    index = result.context.index
    owners = owners_of(index.objects)
    positions: dict[Document, int] = {}
    for state in by_path.values():
        for position, doc in enumerate(state.source.documents):
            positions[doc] = position
    targets: dict[Fixer, list[FixTarget]] = {}
    for finding in result.findings:
        fixer = fixer_for(finding.code)
        if not finding.fixable or fixer is None:
            continue
        found = by_path.get(finding.path)
        if found is None or found.refusal is not None:
            if found is not None:
                plan.skip(finding, found.refusal or "")
            continue
        if fixer.kind is FixKind.UNSAFE and not options.unsafe:
            plan.skip(
                finding,
                "unsafe fix (it adds PodGroup objects): rerun with --unsafe-fixes to apply it",
            )
            continue
        obj = owner_of(finding, owners)
        if obj is None or obj.doc not in positions:
            plan.skip(finding, "the object could not be found again")
            continue
        targets.setdefault(fixer, []).append(FixTarget(finding, obj, positions[obj.doc]))

    def writable(obj: KObject) -> bool:
        state = by_path.get(obj.file.path)
        return state is not None and state.refusal is None and obj.doc.node is not None

    env = FixEnv(index, writable, lambda obj: positions[obj.doc])
    for fixer in all_fixers():  # registration order: WAS101-104 rewrites before WAS105 PodGroups
        if fixer in targets:
            fixer.plan(targets[fixer], env, plan)
    return plan


# --------------------------------------------------------------------------- applying


@dataclass(eq=False)
class _Work:
    """Edits of the units and new documents of one pass, before verification."""

    units: dict[Unit, tuple[Unit, list[Edit]]] = field(default_factory=dict)
    documents: dict[str, tuple[NewDocument, Edit]] = field(default_factory=dict)


def prepare(plan: Plan, by_path: dict[str, FileState]) -> _Work:
    """The text edits of every unit and new document; units that cannot be edited are skipped."""
    work = _Work()
    doc_texts: dict[tuple[str, int], DocText] = {}
    for unit in plan.units:
        state = by_path[unit.file]
        op_edits: dict[tuple[str, Any], list[Edit] | str] = {}
        ops: dict[tuple[str, Any], Op] = {}
        kept: list[tuple[Finding, list[Op]]] = []
        for finding, part_ops in unit.parts:
            problem = None
            for op in part_ops:
                key = (type(op).__name__, op.path)
                if key not in op_edits:
                    try:
                        doc_text = _doc_text(state, unit.doc, doc_texts)
                        op_edits[key] = _template_safe(edits_for(op, doc_text), state.source)
                    except Unfixable as err:
                        op_edits[key] = str(err)
                outcome = op_edits[key]
                if isinstance(outcome, str):
                    problem = outcome
                    break
            if problem is not None:
                plan.skip(finding, problem)
                continue
            kept.append((finding, part_ops))
        if len(kept) != len(unit.parts):  # what can be written must pass the schema on its own
            unit.parts = kept
            decline_invalid(unit, state.source.documents[unit.doc].data, plan)
        unit.findings = [finding for finding, _ in unit.parts]
        for _, part_ops in unit.parts:
            for op in part_ops:
                ops.setdefault((type(op).__name__, op.path), op)
        unit.ops = list(ops.values())
        if not unit.findings:
            continue
        edits: list[Edit] = []
        for key in ops:
            outcome = op_edits[key]
            assert not isinstance(outcome, str)
            edits.extend(outcome)
        work.units[unit] = (unit, edits)
    for number, new_doc in enumerate(plan.documents):
        state = by_path[new_doc.file]
        try:
            edit = _insertion(state, new_doc, number, doc_texts)
        except Unfixable:
            continue
        work.documents[new_doc.key] = (new_doc, edit)
    _drop_orphans(work, plan)
    return work


def apply_work(work: _Work, plan: Plan, by_path: dict[str, FileState], internal: list[str]) -> bool:
    """Apply the edits to the files in memory, verified; returns whether anything changed."""
    while True:
        _drop_orphans(work, plan)
        files = sorted({u.file for u, _ in work.units.values()} | {d.file for d, _ in work.documents.values()})
        outputs: dict[str, tuple[str, SourceFile]] = {}
        failed = False
        for path in files:
            units = [entry for entry in work.units.values() if entry[0].file == path]
            docs = [entry for entry in work.documents.values() if entry[0].file == path]
            outcome = _verified(by_path[path], units, docs)
            if isinstance(outcome, tuple):
                outputs[path] = outcome
                continue
            failed = True
            culprits = _culprits(by_path[path], units, docs)
            for unit, _ in culprits[0]:
                work.units.pop(unit, None)
                internal.append(_bug(path, unit.label, unit.findings, culprits[2]))
                for finding in unit.findings:
                    plan.skip(finding, "not fixed: the fix failed its safety check (reported)")
            for new_doc, _ in culprits[1]:
                work.documents.pop(new_doc.key, None)
                internal.append(_bug(path, new_doc.label, [], culprits[2]))
        if not failed:
            break
    for path, (_, source) in outputs.items():
        state = by_path[path]
        for unit, _ in work.units.values():
            if unit.file == path:
                for finding in unit.findings:
                    state.applied.append(
                        Applied(finding.code, finding.span.line, finding.span.column, finding.message, unit.label)
                    )
        state.source = source
    return bool(outputs)


def _bug(path: str, label: str, findings: list[Finding], problem: str) -> str:
    codes = ",".join(sorted({f.code for f in findings})) or "WAS105"
    return (
        f"internal error in the {codes} fix of {label} in {path}: {problem}; the fix was not"
        " written (please report this bug)"
    )


def _drop_orphans(work: _Work, plan: Plan) -> None:
    for unit, _ in list(work.units.values()):
        if any(required not in work.documents for required in unit.requires):
            del work.units[unit]
            for finding in unit.findings:
                plan.skip(finding, "not fixed: its new PodGroup could not be added")
    needed = {required for unit, _ in work.units.values() for required in unit.requires}
    for key in list(work.documents):
        if key not in needed:
            del work.documents[key]


def _template_safe(edits: list[Edit], source: SourceFile) -> list[Edit]:
    """In a Helm template, an edit may neither touch a template action nor copy a masked value."""
    template = source.template
    if template is not None:
        for edit in edits:
            if PLACEHOLDER in edit.text or template.touches(edit.start, edit.end):
                raise Unfixable(TEMPLATE_EDIT_NOTE)
    return edits


def _doc_text(state: FileState, position: int, cache: dict[tuple[str, int], DocText]) -> DocText:
    key = (state.path, position)
    if key not in cache:
        source = state.source
        doc = source.documents[position]
        root = doc.node if doc.node is not None else source.json_node()
        if root is None:
            raise Unfixable("no positions for this document")
        # A template is edited through its masked text (same offsets): control lines read blank.
        text = source.template.text if source.template is not None else source.text
        shared = shared_nodes(root) if "&" in text and "*" in text else set()
        cache[key] = DocText(text, root, source.is_json or doc.node is None, eol_of(text), indent_step(root), shared)
    return cache[key]


def _insertion(state: FileState, new_doc: NewDocument, number: int, cache: dict[tuple[str, int], DocText]) -> Edit:
    text = state.source.text
    eol = eol_of(text)
    step = 2
    if new_doc.after is not None:
        doc_text = _doc_text(state, new_doc.after, cache)
        step = doc_text.step
        position = next_line_start(text, content_end(doc_text.root, text))
    else:
        position = len(text)
    body = yaml.safe_dump(
        new_doc.data,
        sort_keys=False,
        default_flow_style=False,
        indent=step,
        width=4096,
        allow_unicode=True,
    )
    lines = [*new_doc.comments, *body.splitlines()]
    block = eol.join(lines)
    if state.source.template is not None and PLACEHOLDER in block:
        raise Unfixable(TEMPLATE_EDIT_NOTE)
    if position == len(text) and text and not text.endswith("\n"):
        return Edit(position, position, eol + "---" + eol + block, number)
    if new_doc.after is None and text.rstrip().rsplit("\n", 1)[-1].strip() == "---":
        return Edit(position, position, block + eol, number)
    return Edit(position, position, "---" + eol + block + eol, number)


Outcome = tuple[str, SourceFile] | str


def _verified(
    state: FileState,
    units: list[tuple[Unit, list[Edit]]],
    docs: list[tuple[NewDocument, Edit]],
) -> Outcome:
    """The fixed text and its parse, or what is wrong with it."""
    try:
        return _check(state, units, docs)
    except EditConflict as err:
        return str(err)
    except Exception as err:  # a bug in the fixer must not write a file
        if os.environ.get("WASLINT_DEBUG"):
            traceback.print_exc()
        return f"{type(err).__name__}: {err}"


def _check(
    state: FileState,
    units: list[tuple[Unit, list[Edit]]],
    docs: list[tuple[NewDocument, Edit]],
) -> Outcome:
    source = state.source
    edits = [edit for _, unit_edits in units for edit in unit_edits] + [edit for _, edit in docs]
    text = apply_edits(source.text, edits)
    fixed = parse_bytes(source.path, text.encode("utf-8"))
    if fixed.problems:
        problem = fixed.problems[0]
        return f"the fixed text does not parse (line {problem.line}: {problem.message})"
    ops_by_doc: dict[int, list[Any]] = {}
    for unit, _ in units:
        ops_by_doc.setdefault(unit.doc, []).extend(unit.ops)
    after: dict[int | None, list[dict[str, Any]]] = {}
    for new_doc, _ in sorted(docs, key=lambda entry: entry[1].seq):
        after.setdefault(new_doc.after, []).append(new_doc.data)
    expected: list[Any] = []
    for position, doc in enumerate(source.documents):
        ops = ops_by_doc.get(position)
        expected.append(apply_to_data(doc.data, ops) if ops else doc.data)
        expected.extend(after.get(position, []))
    expected.extend(after.get(None, []))
    if len(expected) != len(fixed.documents):
        return f"the fixed text has {len(fixed.documents)} documents, expected {len(expected)}"
    for number, data in enumerate(expected):
        if not same(data, fixed.documents[number].data):
            return f"document {number + 1} does not read back as intended"
    new_data: dict[int, Any] = {}
    shift = 0
    for position in range(len(source.documents)):
        new_data[position] = fixed.documents[position + shift].data
        shift += len(after.get(position, []))
    for unit, _ in units:
        for check in unit.checks:
            problems = check_problems(check, new_data[unit.doc])
            if problems:
                return f"the fixed {unit.label} fails the 1.37 schema: {problems[0]}"
    return text, fixed


def _culprits(
    state: FileState,
    units: list[tuple[Unit, list[Edit]]],
    docs: list[tuple[NewDocument, Edit]],
) -> tuple[list[tuple[Unit, list[Edit]]], list[tuple[NewDocument, Edit]], str]:
    """Which units or documents make a file fail, trying each alone; all of them when none does."""
    bad_units = []
    bad_docs = []
    message = ""
    for entry in units:
        outcome = _verified(state, [entry], [])
        if isinstance(outcome, str):
            bad_units.append(entry)
            message = message or outcome
    for doc_entry in docs:
        outcome = _verified(state, [], [doc_entry])
        if isinstance(outcome, str):
            bad_docs.append(doc_entry)
            message = message or outcome
    if not bad_units and not bad_docs:
        whole = _verified(state, units, docs)
        return units, docs, whole if isinstance(whole, str) else "the fixes conflict"
    return bad_units, bad_docs, message
