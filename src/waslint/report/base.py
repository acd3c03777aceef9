"""What every reporter receives: the findings of a run and the facts its summary needs."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import field
from typing import Any, Protocol

from waslint.core.model import FixKind, RuleInfo, Severity
from waslint.core.patterns import LazyPattern
from waslint.core.records import dataclass
from waslint.findings import Finding

FORMATS = ("text", "concise", "json", "sarif", "junit", "github")


@dataclass
class Verdict:
    """`waslint audit`: what stands between the cluster and --target-version (no reasons: ready)."""

    target: str
    reasons: list[str]

    @property
    def ready(self) -> bool:
        return not self.reasons

    def as_json(self) -> dict[str, Any]:
        return {"target": self.target, "ready": self.ready, "reasons": self.reasons}

    def lines(self) -> list[str]:
        if self.ready:
            return [f"Nothing on this cluster blocks Kubernetes {self.target}."]
        return [f"Before this cluster runs Kubernetes {self.target}:", *(f"  - {reason}" for reason in self.reasons)]


class TextSource(Protocol):
    path: str
    text: str


class SourceTexts(Mapping[str, str]):
    """path -> text of a run's files, each text read when asked for (the last file of a path wins)."""

    def __init__(self, files: Iterable[TextSource]) -> None:
        self._files = {source.path: source for source in files}

    def __getitem__(self, path: str) -> str:
        return self._files[path].text

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


@dataclass
class ReportInput:
    """What a reporter is given: the findings and the run's summary."""

    findings: list[Finding]
    files: int
    documents: int
    target_version: str
    # path -> source text, for the text report's source lines (read lazily: an audit's texts are
    # kept compressed, and only the files with findings are quoted)
    sources: Mapping[str, str] = field(default_factory=dict)
    color: bool = False
    tool_name: str = "waslint"
    # The rules of the run's registry (SARIF lists them as the driver's rules).
    rules: list[RuleInfo] = field(default_factory=list)
    # text and concise: no summary line, nothing at all when nothing is shown
    quiet: bool = False
    # text and concise: list the fixable findings and what `waslint fix` would do
    show_fixes: bool = False
    # findings below --show-level, left out of `findings` (the exit status still counts them)
    hidden: int = 0
    show_level: str | None = None
    # text: wrap at this many columns
    width: int = 100
    # sarif and github: paths are made relative to this folder (%SRCROOT%); None = the current one
    root: str | None = None
    # "path: reason" for what the walk did not read (links out of the tree, FIFOs...)
    skipped: list[str] = field(default_factory=list)
    # --baseline: how many findings the baseline matched and left out
    baselined: int = 0
    # waslint audit: the inputs are objects read from a cluster (counted as objects, not files),
    # the cluster's facts and its upgrade verdict (json, sarif and text carry them)
    objects: bool = False
    cluster: dict[str, Any] | None = None
    verdict: Verdict | None = None
    # what the run says once (a kustomize root not rendered, no renderer on the machine)
    notes: list[str] = field(default_factory=list)

    def rule(self, code: str) -> RuleInfo | None:
        return next((rule for rule in self.rules if rule.code == code), None)


def counts(findings: list[Finding]) -> dict[str, int]:
    by = {severity.label: 0 for severity in sorted(Severity, reverse=True)}
    for finding in findings:
        by[finding.severity.label] += 1
    return by


def source_root(start: str | None = None) -> str:
    """The git top-level folder above `start` (a `.git` folder or file), else `start` itself."""
    here = os.path.abspath(start or os.getcwd())
    folder = here
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return here
        folder = parent


def relative_path(path: str, root: str | None) -> str | None:
    """`path` relative to `root` with `/` separators; None for stdin, a path outside the root, or
    a live object's `cluster://` URI (a URI is no file: `../` in it must never name one)."""
    if path == "-" or path.startswith("cluster://"):
        return None
    base = os.path.abspath(root or os.getcwd())
    try:
        relative = os.path.relpath(os.path.abspath(path), base)
    except ValueError:  # another drive on Windows
        return None
    if relative == ".." or relative.startswith(".." + os.sep):
        return None
    return relative.replace(os.sep, "/")


# a period that ends a sentence: not in "e.g.", "i.e." or an ellipsis, followed by a capital
_SENTENCE_END = LazyPattern(r"(?<!e\.g)(?<!i\.e)(?<!\.)\.\s+(?=[A-Z`\"'(])")


def split_message(message: str) -> tuple[str, str]:
    """The first sentence of a message, and the detail after it ('' when it is one sentence)."""
    found = _SENTENCE_END.search(message)
    if found is None:
        return message.strip(), ""
    return message[: found.start() + 1].strip(), message[found.end() :].strip()


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(report: ReportInput) -> str:
    """`Found 12 findings (10 errors, 1 warning, 1 info) in 5 files, 8 documents, target ...`."""
    by = counts(report.findings)
    if report.objects:
        scanned = plural(report.files, "object")
    else:
        scanned = f"{plural(report.files, 'file')}, {plural(report.documents, 'document')}"
    hidden = ""
    if report.hidden:
        hidden = f" {plural(report.hidden, 'finding')} below --show-level {report.show_level} not shown."
    if report.baselined:
        hidden += f" {plural(report.baselined, 'finding')} in the baseline not shown."
    if not report.findings:
        return f"No findings ({scanned}, target Kubernetes {report.target_version}).{hidden}"
    fixable = sum(1 for finding in report.findings if finding.fixable)
    text = (
        f"Found {plural(len(report.findings), 'finding')} ({plural(by['error'], 'error')},"
        f" {plural(by['warning'], 'warning')}, {by['info']} info) in {scanned},"
        f" target Kubernetes {report.target_version}."
    )
    if fixable:
        text += f" {fixable} fixable with `waslint fix`."
    return text + hidden


def fix_lines(report: ReportInput) -> list[str]:
    """--show-fixes: each fixable finding and what `waslint fix` would do for it."""
    fixable = [finding for finding in report.findings if finding.fixable]
    if not fixable:
        return ["No fixable findings."]
    lines = [f"{plural(len(fixable), 'fixable finding')} (`waslint fix` would):"]
    for finding in fixable:
        rule = report.rule(finding.code)
        title = rule.fix_title if rule and rule.fix_title else f"see `waslint explain {finding.code}`"
        if rule is not None and rule.fix is FixKind.UNSAFE:
            title += " [unsafe: --unsafe-fixes]"
        lines.append(f"  {finding.path}:{finding.span.line}:{finding.span.column}: {finding.code} {title}")
    return lines
