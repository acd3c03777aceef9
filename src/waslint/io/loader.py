"""Load manifests: files, folders and stdin into documents that keep their source positions.

YAML is composed with libyaml (PyYAML's C loader) into nodes that carry line/column marks; the
nodes are converted to plain Python values by a small converter here (faster than PyYAML's
constructor, and it enforces our limits). The root node is kept so that any field path can be
mapped back to a line and column later, only when a finding needs it. JSON goes through the json
module; its positions are computed lazily the same way on demand.
"""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import TYPE_CHECKING, Any, ClassVar

from waslint.core.model import Path, Span
from waslint.core.patterns import LazyPattern
from waslint.core.records import dataclass
from waslint.core.yamlimport import yaml
from waslint.io.helmtext import PLACEHOLDER
from waslint.io.reading import (
    DEFAULT_LIMIT,
    MAX_DEPTH,
    BadJSON,
    InputError,
    TooLarge,
    json_values,
    read_bounded,
    skip_json_space,
)

if TYPE_CHECKING:  # a template's masking: read only for a file holding `{{`
    from waslint.io.helm import MaskedTemplate

MAX_FILE_BYTES = DEFAULT_LIMIT
MAX_EXPANDED_NODES = 500_000
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
MANIFEST_NAMES = frozenset({"Kustomization"})  # read by folder walks although it has no suffix
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})
CONFIG_NAMES = (".waslint.yaml", ".waslint.yml")  # waslint's own config: never read as a manifest

_BaseLoader: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


class _Loader(_BaseLoader):  # type: ignore[misc]
    """libyaml's composer with a memoised tag resolver.

    The C composer calls the (pure Python) resolver for every scalar; manifests repeat the same
    keys and values endlessly, so caching plain-scalar resolutions removes most of that cost.
    """

    _resolved: ClassVar[dict[str, str]] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode:
            if not implicit[0]:
                return _STR
            tag = self._resolved.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(value) < 128 and len(self._resolved) < 100_000:
                    self._resolved[value] = tag
            return tag
        if kind is yaml.MappingNode:
            return _MAP
        return _SEQ


_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_FLOAT = "tag:yaml.org,2002:float"
_MERGE = "tag:yaml.org,2002:merge"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_ALIAS = LazyPattern(r"(?:^|[\s\[{,])\*[^\s*\]},'\"]", re.MULTILINE)
_TRUE_WORDS = frozenset({"true", "yes", "on", "y"})
_DOC_START = LazyPattern(r"^---(?=\s|$)", re.MULTILINE)
_TEMPLATE = LazyPattern(r"\{\{.*?\}\}")
_intern = sys.intern
Alternatives = Callable[[int, int], bool]


@dataclass(frozen=True)
class Problem:
    """Something that stopped a file or document from being read: becomes a WAS001 finding."""

    message: str
    line: int
    column: int
    document: int | None


class _DocumentError(Exception):
    def __init__(self, message: str, mark: Any | None) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark


@dataclass(eq=False, slots=True)
class Document:
    """One YAML document of a file: its value, its node tree while kept, its lines."""

    file: SourceFile = field(repr=False)
    index: int
    data: Any = field(repr=False)
    stored_node: yaml.Node | None = field(repr=False)
    line_offset: int = 0
    # 1-based line range the document covers (comments above it included).
    first_line: int = 1
    last_line: int = 1
    # Where the document's node sits in the file text: characters [span_start, span_end), from
    # the start of its first line; `span_line` is that line, `chunk_start` where the text the
    # marks count from begins (after a broken document the parse resumes in a later chunk).
    chunk_start: int = 0
    span_start: int = 0
    span_end: int | None = None
    span_line: int = 0
    _mentions: dict[str, bool] | None = field(default=None, repr=False)

    @property
    def node(self) -> yaml.Node | None:
        """The libyaml node tree with positions. Not kept after loading (it costs ten times the
        data's memory); composed again, for this document's text only, the first time a finding
        or a fix asks for it. None for JSON files (see SourceFile.json_node)."""
        if self.stored_node is None and (not self.file.is_json or self.span_end is not None):
            self.stored_node = _compose_document(self)
        return self.stored_node

    @property
    def text(self) -> str:
        """The document's own text (its node, from the start of its first line)."""
        text = self.file.parsed_text
        if self.file.is_json and self.span_end is None:
            return text
        start = self.chunk_start + self.span_start
        end = len(text) if self.span_end is None else self.chunk_start + self.span_end
        return text[start:end]

    def mentions(self, word: str) -> bool:
        """Whether `word` occurs in the document's text: a prefilter, once per document and word
        (scanning the whole file per object would make many documents per file quadratic)."""
        if not self.file.mentions(word):
            return False
        if self.file.is_json and self.span_end is None:
            return True  # the document is the whole file (an audited object): no second cache
        if self._mentions is None:
            self._mentions = {}
        found = self._mentions.get(word)
        if found is None:
            found = self._mentions[word] = word in self.text
        return found

    def release_data(self) -> None:
        """Keep only the value's apiVersion and kind (what reports ask of a document after its
        checks) and no node tree: a streamed lint drops a checked file's values this way."""
        data = self.data
        if isinstance(data, dict):
            self.data = {key: data[key] for key in ("apiVersion", "kind") if key in data}
        else:
            self.data = None
        self.stored_node = None

    def locate(self, path: Path, *, key: bool = True) -> Span:
        """Span of the field at `path` (key and scalar value), or of its deepest existing parent."""
        root = self.node if self.node is not None else self.file.json_node()
        if root is None:
            return Span(1, 1, 1, 1)
        return _span_of(root, path, key, self.line_offset)

    def moved(self, path: Path, key: bool) -> tuple[SourceFile, int | None, Span] | None:
        """Another file's place for the field at `path`, when another file wrote it: a rendered
        object's patch or kustomization (sources/kustomize/origins.py); None for a file's own."""
        return None

    def locate_key(self, path: Path) -> Span:
        """Span of the key of the field at `path` alone (its value may be a template action),
        or of its deepest existing parent."""
        root = self.node if self.node is not None else self.file.json_node()
        if root is None:
            return Span(1, 1, 1, 1)
        return _span_of(root, path, True, self.line_offset, key_only=True)


def _compose_document(doc: Document) -> yaml.Node | None:
    """The node tree of one document, its marks as a parse of the whole chunk would give them."""
    text = doc.file.parsed_text
    if doc.file.is_json and doc.span_end is not None:
        return _compose_json_value(text, doc.span_start, doc.span_end)
    if doc.file.mentions("%TAG") or doc.span_end is None:  # a directive may change tags: whole file
        return doc.file.document_node(doc.index)
    piece = text[doc.chunk_start + doc.span_start : doc.chunk_start + doc.span_end]
    try:
        root = yaml.compose(piece, Loader=_Loader)
    except (yaml.YAMLError, RecursionError):
        return doc.file.document_node(doc.index)
    if root is None:
        return None
    _shift_marks(root, doc.span_start, doc.span_line)
    return root


def _compose_json_value(text: str, start: int, end: int) -> yaml.Node | None:
    """The node tree of one value of a JSON stream (text[start:end]), its marks as in the file:
    the value is composed alone (JSON is YAML), after as many spaces as it has characters before
    it on its first line, so its columns are right, and its marks are moved to its line."""
    line_start = text.rfind("\n", 0, start) + 1
    try:
        root = yaml.compose(" " * (start - line_start) + text[start:end], Loader=_Loader)
    except (yaml.YAMLError, RecursionError):
        return None
    if root is not None:
        _shift_marks(root, line_start, text.count("\n", 0, line_start))
    return root


def _shift_marks(root: yaml.Node, index: int, line: int) -> None:
    seen: set[yaml.Node] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if node in seen:  # an alias: the same node twice
            continue
        seen.add(node)
        for name in ("start_mark", "end_mark"):
            old = getattr(node, name)
            new = yaml.Mark(old.name, old.index + index, old.line + line, old.column, old.buffer, old.pointer)
            setattr(node, name, new)
        if node.__class__ is yaml.MappingNode:
            for key_node, value_node in node.value:
                pending.append(key_node)
                pending.append(value_node)
        elif node.__class__ is yaml.SequenceNode:
            pending.extend(node.value)


@dataclass(eq=False)
class SourceFile:
    """One input file: its path, text, parse (documents and problems) and Helm template."""

    path: str
    text: str
    is_json: bool = False
    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Why the file could not be read at all (the run's own failure, exit 2), or None.
    read_error: str | None = None
    _json_root: yaml.Node | None = None
    _json_tried: bool = False
    _nodes: dict[int, yaml.Node] | None = None
    # A Helm template read through its masked text (see io/helm.py); None for plain YAML.
    template: MaskedTemplate | None = None
    _mentions: dict[str, bool] | None = field(default=None, repr=False)
    _lines: list[str] | None = field(default=None, repr=False)
    # False while a file read with parse=False waits for parse_text (a streamed lint parses
    # most files only when their turn comes, then drops their values).
    parsed: bool = True
    values_released: bool = False  # its documents hold only apiVersion and kind (release_values)

    @property
    def parsed_text(self) -> str:
        """The text the documents were parsed from: a Helm template's masked text (the same
        length and positions), else the file's text."""
        return self.template.text if self.template is not None else self.text

    def mentions(self, word: str) -> bool:
        """Whether `word` occurs anywhere in the file: once per file and word."""
        if self._mentions is None:
            self._mentions = {}
        found = self._mentions.get(word)
        if found is None:
            found = self._mentions[word] = word in self.parsed_text
        return found

    def document_node(self, index: int) -> yaml.Node | None:
        """Compose the whole file again keeping the node trees (the fallback of Document.node)."""
        if self._nodes is None:
            again = SourceFile(self.path, self.template.text if self.template is not None else self.text)
            again._nodes = {}
            _parse_yaml(again, keep_nodes=True)
            self._nodes = again._nodes
        return self._nodes.get(index)

    def release_positions(self) -> None:
        """Drop the node trees composed for positions (they cost ten times the data); they are
        composed again if asked for."""
        self._nodes = None
        for doc in self.documents:
            if not self.is_json:
                doc.stored_node = None

    def release_values(self) -> None:
        """Drop the documents' values and node trees once the file is checked (see release_data)."""
        self.release_positions()
        self.values_released = True
        self._json_root = None
        self._json_tried = False
        for doc in self.documents:
            doc.release_data()

    def json_node(self) -> yaml.Node | None:
        """Compose a JSON file with libyaml (JSON is YAML) to learn positions; once, on demand."""
        if not self._json_tried:
            self._json_tried = True
            try:
                self._json_root = yaml.compose(self.text, Loader=_Loader)
            except yaml.YAMLError:
                self._json_root = None
        return self._json_root

    @property
    def lines(self) -> list[str]:
        """The file's lines (computed once)."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines


# --------------------------------------------------------------------------- reading


def read_source(path: str, stdin: Any = None, *, parse: bool = True) -> SourceFile:
    """Read one file (or stdin for '-') and parse it (with `parse=False`, only decode it: see
    parse_text); problems are recorded, never raised."""
    try:
        raw = read_bounded(path, MAX_FILE_BYTES, stdin)
    except TooLarge:
        return too_large(path)
    except InputError as err:
        return SourceFile(path=path, text="", read_error=str(err))
    return parse_bytes(path, raw, parse=parse)


def too_large(path: str) -> SourceFile:
    """A file over the size limit: not read, a WAS001 finding."""
    source = SourceFile(path=path, text="")
    source.problems.append(Problem(f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB", 1, 1, None))
    return source


def parse_bytes(path: str, raw: bytes, *, parse: bool = True, limit: int | None = None) -> SourceFile:
    text, problem = decode(raw, limit)
    source = SourceFile(path=path, text=text, is_json=path.endswith(".json"))
    if problem is not None:
        source.problems.append(problem)
    elif parse:
        parse_text(source)
    else:
        source.parsed = False
    return source


def parse_text(source: SourceFile) -> None:
    """Parse a decoded file's text into its documents (and problems)."""
    source.parsed = True
    path, text = source.path, source.text
    # The cyclic collector is paused while parsing: node trees and data are acyclic, and its
    # passes over a heap that grows with the file would make one big file superlinear.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        if source.is_json or (path == "-" and text.lstrip()[:1] in ("{", "[")):
            source.is_json = True  # stdin is told by content
            _parse_json(source)
        elif _is_template(path, text) and _parse_masked(source):
            pass
        else:
            _parse_yaml(source)
    finally:
        if was_enabled:
            gc.enable()


def _is_template(path: str, text: str) -> bool:
    """io/helm.is_template; its module (the masking) is imported only for a file holding `{{`."""
    if "{{" not in text:
        return False
    from waslint.io.helm import is_template

    return is_template(path, text)


def _parse_masked(source: SourceFile) -> bool:
    """Read a Helm template through its masked text; False (nothing read) when there is no
    action to mask, or when the masked text is not YAML but the raw text is (braces in strings
    of a plain file). A template still broken once masked keeps the documents that parse, and
    its WAS001 is located and worded from the masked view, naming the template construct there."""
    from waslint.io.helm import VIEWS, mask_template

    masked = mask_template(source.text)
    if masked is None:
        return False
    trial = _parse_view(source.path, masked)
    for view in VIEWS[1:]:  # branches that do not fit together: read one of them
        if not trial.problems:
            break
        other = mask_template(source.text, view)
        again = _parse_view(source.path, other) if other is not None else trial
        if not again.problems:
            trial, masked = again, other
    if trial.problems:
        raw = SourceFile(source.path, source.text)
        _parse_yaml(raw)
        if not raw.problems:
            return False  # plain YAML with braces in its strings
    assert masked is not None
    for doc in trial.documents:
        doc.file = source
    source.documents = trial.documents
    source.problems = [_template_problem(problem, masked) for problem in trial.problems]
    source.template = masked
    return True


def _parse_view(path: str, masked: MaskedTemplate) -> SourceFile:
    trial = SourceFile(path, masked.text)
    trial.template = masked
    _parse_yaml(trial)
    return trial


def _template_problem(problem: Problem, masked: MaskedTemplate) -> Problem:
    message = problem.message.replace("YAML syntax error: ", "", 1)
    where = masked.construct_at(masked.offset(problem.line, problem.column))
    return Problem(
        f"Helm template: {message}{', ' + where if where else ''} once its actions ({{{{ }}}}) are masked;"
        " lint the rendered output (Helm/Go template syntax: `helm template CHART | waslint lint -`), or add the"
        " path to `exclude`",
        problem.line,
        problem.column,
        problem.document,
    )


def decode(raw: bytes, limit: int | None = None) -> tuple[str, Problem | None]:
    limit = MAX_FILE_BYTES if limit is None else limit
    if len(raw) > limit:
        return "", Problem(f"file is larger than {limit // (1024 * 1024)} MiB", 1, 1, None)
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), None
        except UnicodeDecodeError:
            return "", Problem("invalid UTF-16 text", 1, 1, None)
    if b"\x00" in raw[:8192]:
        return "", Problem("binary file (NUL bytes), not YAML or JSON", 1, 1, None)
    try:
        # as "utf-8-sig" decodes (one leading BOM dropped), without importing that codec at start-up
        return (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw).decode("utf-8"), None
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        return "", Problem(f"invalid UTF-8 (byte 0x{raw[err.start]:02x})", line, column, None)


def _parse_json(source: SourceFile) -> None:
    """One JSON value, or a stream of them (objects back to back or one per line, as kubectl
    reads them), through the bounded reader: each value is a document; a value that does not
    parse, nests too deep or holds too long a number ends the stream at its position."""
    text = source.text
    values: list[tuple[int, int, Any]] = []
    try:
        for value in json_values(text, _json_object):
            values.append(value)  # the values before a bad one are documents too
    except BadJSON as err:
        source.problems.append(Problem(err.reason, err.line, err.column, len(values)))
    except _DuplicateJsonKey as err:
        start = skip_json_space(text, values[-1][1] if values else 0)
        line, column = _duplicate_json_position(text, start)
        source.problems.append(Problem(f"duplicate key {err.key!r} in one JSON object", line, column, len(values)))
    if len(values) == 1 and not source.problems:
        source.documents.append(Document(source, 0, values[0][2], None, 0, 1, text.count("\n") + 1))
        return
    for index, (start, end, data) in enumerate(values):
        first = text.count("\n", 0, start) + 1
        doc = Document(source, index, data, None, 0, first, first + text.count("\n", start, end))
        doc.span_start, doc.span_end, doc.span_line = start, end, first - 1
        source.documents.append(doc)


def _duplicate_json_position(text: str, start: int) -> tuple[int, int]:
    """Line and column of the first repeated key of the JSON value at `start` (JSON is YAML:
    libyaml's marks say where)."""
    end = _value_end(text, start)
    root = _compose_json_value(text, start, end)
    if root is None:
        return text.count("\n", 0, start) + 1, 1
    pending = [root]
    while pending:
        node = pending.pop()
        if node.__class__ is yaml.MappingNode:
            seen: set[str] = set()
            for key_node, value_node in node.value:
                if key_node.value in seen:
                    return key_node.start_mark.line + 1, key_node.start_mark.column + 1
                seen.add(key_node.value)
                pending.append(value_node)
        elif node.__class__ is yaml.SequenceNode:
            pending.extend(reversed(node.value))
    return text.count("\n", 0, start) + 1, 1


def _value_end(text: str, start: int) -> int:
    """Where the JSON value at `start` ends (read again without the duplicate-key check)."""
    try:
        return start + next(json_values(text[start:]))[1]
    except (BadJSON, StopIteration):
        return len(text)


class _DuplicateJsonKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateJsonKey(key)
            seen.add(key)
    return result


def _parse_yaml(source: SourceFile, keep_nodes: bool = False) -> None:
    text = source.text
    track_aliases = "&" in text and _ALIAS.search(text) is not None
    line_offset = 0
    index = 0
    previous_end = 0
    while True:
        chunk_start = len(source.text) - len(text)  # each chunk is the rest of the file
        resume_at, index, previous_end = _parse_yaml_chunk(
            source, text, line_offset, index, previous_end, track_aliases, keep_nodes, chunk_start
        )
        if resume_at is None:
            return
        line_offset, text = resume_at


def _parse_yaml_chunk(
    source: SourceFile,
    text: str,
    line_offset: int,
    index: int,
    previous_end: int,
    track_aliases: bool,
    keep_nodes: bool,
    chunk_start: int = 0,
) -> tuple[tuple[int, str] | None, int, int]:
    """Parse documents from `text` (which starts at `line_offset`) until the end or an error.

    On an error the document is reported and parsing resumes at the next `---` line, so the good
    documents after a broken one are still read. Returns ((new offset, rest) or None, next document
    index, last line consumed).
    """
    loader = _Loader(text)
    chunk_end_line = 0  # 0-based line in `text` where the last good document ended
    try:
        while loader.check_node():
            node = loader.get_node()
            chunk_end_line = node.end_mark.line
            first = previous_end + 1
            end_line = line_offset + node.end_mark.line + (0 if node.end_mark.column == 0 else 1)
            last = max(end_line, line_offset + node.start_mark.line + 1)
            if keep_nodes and source._nodes is not None:  # positions only: no conversion
                source._nodes[index] = node
                previous_end = last
                index += 1
                continue
            try:
                data = Converter(track_aliases, _alternatives(source, chunk_start)).convert(node)
            except _DocumentError as err:
                line, column = _mark_position(err.mark, node, line_offset)
                source.problems.append(Problem(err.message, line, column, index))
            else:
                if data is not None:
                    start = node.start_mark
                    doc = Document(source, index, data, None, line_offset, first, last, chunk_start)
                    doc.span_start = start.index - start.column
                    doc.span_end = node.end_mark.index
                    doc.span_line = start.line
                    source.documents.append(doc)
            previous_end = last
            index += 1
        return None, index, previous_end
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = line_offset + (mark.line + 1 if mark else 1)
        column = mark.column + 1 if mark else 1
        source.problems.append(Problem(_yaml_message(err, source.text), line, column, index))
        rest = _resume_point(text, chunk_end_line)
        if rest is None:
            return None, index + 1, previous_end
        skipped_lines, remainder = rest
        return (line_offset + skipped_lines, remainder), index + 1, line_offset + skipped_lines
    except yaml.YAMLError as err:
        source.problems.append(Problem(f"YAML error: {err}", line_offset + 1, 1, index))
        return None, index + 1, previous_end
    except RecursionError:
        source.problems.append(Problem(f"nesting deeper than {MAX_DEPTH} levels", line_offset + 1, 1, index))
        return None, index + 1, previous_end
    finally:
        loader.dispose()


def _alternatives(source: SourceFile, chunk_start: int) -> Alternatives | None:
    """For a masked template: whether two offsets of the chunk are not always rendered together."""
    template = source.template
    if template is None:
        return None

    def exclusive(first: int, second: int) -> bool:
        return template.apart(chunk_start + first, chunk_start + second)

    return exclusive


def _mark_position(mark: Any | None, node: yaml.Node, line_offset: int) -> tuple[int, int]:
    chosen = mark if mark is not None else node.start_mark
    return line_offset + chosen.line + 1, chosen.column + 1


def _resume_point(text: str, from_line: int) -> tuple[int, str] | None:
    """Where to go on after a broken document: the first `---` line below the broken document's
    first content line (searching from `from_line`, where the last good document ended)."""
    offset = 0
    for _ in range(from_line):
        newline = text.find("\n", offset)
        if newline < 0:
            return None
        offset = newline + 1
    while offset < len(text):  # skip blank lines, comments, directives and the opening marker
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end
        line = text[offset:end].strip()
        offset = end + 1
        if line and not line.startswith(("#", "%")) and not _DOC_START.match(line):
            break
    match = _DOC_START.search(text, offset)
    if match is None:
        return None
    start = match.start()
    return text.count("\n", 0, start), text[start:]


def _yaml_message(err: yaml.MarkedYAMLError, full_text: str) -> str:
    parts = [p for p in (err.context, err.problem) if p]
    message = "YAML syntax error: " + ", ".join(parts)
    if "exceeded maximum nesting depth" in message:
        message = "YAML nesting too deep for the parser"
    if _TEMPLATE.search(full_text):
        message += (
            " (the file holds Helm/Go template syntax '{{ }}': lint the rendered output, e.g."
            " `helm template CHART | waslint lint -`, or add the path to `exclude`)"
        )
    return message


# --------------------------------------------------------------------------- conversion


class Converter:
    """Node tree -> plain Python values, with the depth and alias-expansion limits."""

    __slots__ = ("alternatives", "expanded", "memo", "track")

    def __init__(self, track_aliases: bool, alternatives: Alternatives | None = None) -> None:
        self.track = track_aliases
        self.memo: dict[yaml.Node, tuple[Any, int]] = {}
        self.expanded = 0
        # In a masked Helm template: whether two offsets are alternatives (if/else branches)
        self.alternatives = alternatives

    def convert(self, node: yaml.Node) -> Any:
        if self.track:
            return self._tracked(node, 0)[0]
        return self._plain(node, 0)

    def _plain(self, node: yaml.Node, depth: int) -> Any:
        """The fast path (no aliases in the file): plain loops, string keys inline."""
        cls = node.__class__
        if cls is yaml.ScalarNode:
            if node.tag == _STR:
                value = node.value
                return _intern(value) if len(value) < 48 else value
            return scalar_value(node)
        if depth > MAX_DEPTH:
            raise _DocumentError(f"nesting deeper than {MAX_DEPTH} levels", node.start_mark)
        if cls is yaml.SequenceNode:
            return [self._plain(item, depth + 1) for item in node.value]
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.__class__ is not yaml.ScalarNode or key_node.tag != _STR:
                return self._mapping(node, depth, self._plain)  # merge keys, odd keys
            key = _intern(key_node.value)  # manifests repeat their keys: one string object each
            if key in result:
                if self._alternative(node, key_node):
                    continue
                raise _DocumentError(f"duplicate key {key!r} in one mapping", key_node.start_mark)
            if value_node.__class__ is yaml.ScalarNode and value_node.tag == _STR:
                value = value_node.value
                result[key] = _intern(value) if len(value) < 48 else value
            else:
                result[key] = self._plain(value_node, depth + 1)
        return result

    def _tracked(self, node: yaml.Node, depth: int) -> tuple[Any, int]:
        if depth > MAX_DEPTH:
            raise _DocumentError(f"nesting deeper than {MAX_DEPTH} levels", node.start_mark)
        known = self.memo.get(node)
        if known is not None:
            self._count(known[1], node)
            return known
        cls = node.__class__
        size = 1
        if cls is yaml.MappingNode:
            sizes: list[int] = []

            def child(sub: yaml.Node, sub_depth: int) -> Any:
                value, sub_size = self._tracked(sub, sub_depth)
                sizes.append(sub_size)
                return value

            value: Any = self._mapping(node, depth, child)
            size += sum(sizes)
        elif cls is yaml.SequenceNode:
            items = [self._tracked(item, depth + 1) for item in node.value]
            value = [item for item, _ in items]
            size += sum(s for _, s in items)
        else:
            value = scalar_value(node)
        self._count(1, node)
        self.memo[node] = (value, size)
        return value, size

    def _alternative(self, mapping: yaml.Node, repeated: yaml.Node) -> bool:
        """In a template, a key written again is no certain duplicate when its name comes from an
        action (known once rendered), or when the two are not always rendered together (the
        branches of one if/else, or one inside an `if` the other is not in): the first is kept
        (its node is the one positions find)."""
        if self.alternatives is None:
            return False
        if PLACEHOLDER in repeated.value:
            return True
        first = next(key for key, _ in mapping.value if key.value == repeated.value)
        return self.alternatives(first.start_mark.index, repeated.start_mark.index)

    def _count(self, size: int, node: yaml.Node) -> None:
        self.expanded += size
        if self.expanded > MAX_EXPANDED_NODES:
            raise _DocumentError(
                f"alias expansion exceeds {MAX_EXPANDED_NODES} nodes (possible alias bomb)",
                node.start_mark,
            )

    def _mapping(self, node: yaml.Node, depth: int, convert: Any) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        merges: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merges.append(value_node)
                continue
            key = convert(key_node, depth + 1) if key_node.__class__ is not yaml.ScalarNode else scalar_value(key_node)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                key = repr(key)
            if key in result:
                if self._alternative(node, key_node):
                    continue
                raise _DocumentError(f"duplicate key {key!r} in one mapping", key_node.start_mark)
            result[key] = convert(value_node, depth + 1)
        for merge in merges:
            self._merge(result, merge, depth, convert)
        return result

    def _merge(self, result: dict[Any, Any], merge: yaml.Node, depth: int, convert: Any) -> None:
        sources = merge.value if merge.__class__ is yaml.SequenceNode else [merge]
        for source in sources:
            value = convert(source, depth + 1)
            if not isinstance(value, dict):
                raise _DocumentError("merge key '<<' needs a mapping", source.start_mark)
            for key, item in value.items():
                result.setdefault(key, item)


_fallback_constructor: Any = None


def scalar_value(node: yaml.Node) -> Any:
    tag = node.tag
    value = node.value
    if tag == _STR:
        return value
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return value.lower() in _TRUE_WORDS
    if tag == _INT:
        if value[:1] != "0" or value == "0":
            try:
                return int(value)
            except ValueError:
                pass
        return _construct(node)
    if tag == _FLOAT:
        try:
            return float(value)
        except ValueError:
            return _construct(node)
    # Timestamps, binary and custom tags stay strings: Kubernetes reads them as strings.
    return value


def _construct(node: yaml.Node) -> Any:
    global _fallback_constructor
    if _fallback_constructor is None:
        _fallback_constructor = yaml.constructor.SafeConstructor()
    try:
        return _fallback_constructor.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, TypeError):
        return node.value


# --------------------------------------------------------------------------- positions


def _span_of(root: yaml.Node, path: Path, key: bool, line_offset: int, *, key_only: bool = False) -> Span:
    node = root
    key_node: yaml.Node | None = None
    for step in path:
        child = _child(node, step)
        if child is None:
            break
        key_node, node = child
    start_node = key_node if key and key_node is not None else node
    start = start_node.start_mark
    end = start_node.end_mark if key_only else node.end_mark
    if end.line != start.line and node.__class__ is not yaml.ScalarNode:
        end = start_node.end_mark  # a block collection: point at its first line only
    return Span(
        line_offset + start.line + 1,
        start.column + 1,
        line_offset + end.line + 1,
        end.column + 1,
    )


def _child(node: yaml.Node, step: str | int) -> tuple[yaml.Node | None, yaml.Node] | None:
    if node.__class__ is yaml.MappingNode:
        wanted = str(step)
        for key_node, value_node in node.value:
            if key_node.__class__ is yaml.ScalarNode and key_node.value == wanted:
                return key_node, value_node
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                for source in value_node.value if value_node.__class__ is yaml.SequenceNode else [value_node]:
                    found = _child(source, step)
                    if found is not None:
                        return found
        return None
    if node.__class__ is yaml.SequenceNode and isinstance(step, int) and 0 <= step < len(node.value):
        return None, node.value[step]
    return None


def load_all(paths: Iterable[str], stdin: Any = None, *, parse: bool = True) -> list[SourceFile]:
    """Read (and parse) every path. The cyclic garbage collector is paused meanwhile: the node
    trees are acyclic and all kept, and re-scanning the growing heap would cost more than the parse."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return [read_source(path, stdin, parse=parse) for path in paths]
    finally:
        if was_enabled:
            gc.enable()
