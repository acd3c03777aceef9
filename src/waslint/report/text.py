"""The human report: grouped by file, the first sentence of each message on the head line, the
detail wrapped below it, the offending source line with a caret, a summary. Also `concise`."""

from __future__ import annotations

from collections import defaultdict

from waslint.core.model import Severity
from waslint.escape.terminal import printable
from waslint.escape.workflow import safe_line_start
from waslint.findings import Finding
from waslint.report.base import ReportInput, fix_lines, split_message, summary_line

_COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}
MIN_WIDTH = 40
_FIXABLE = "[fixable]"


class _Painter:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text


def render(report: ReportInput) -> str:
    paint = _Painter(report.color)
    width = max(report.width, MIN_WIDTH)
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_path[finding.path].append(finding)
    out: list[str] = []
    for path, findings in by_path.items():
        scope = findings[0].scope
        shown = safe_line_start(printable(path))
        out.append(paint(shown, "1") + (paint(f"  (scope {printable(scope)})", "2") if scope is not None else ""))
        lines = report.sources.get(path, "").splitlines()
        for finding in findings:
            out.extend(_finding_lines(finding, lines, paint, width))
        out.append("")
    if report.show_fixes:
        out.extend(fix_lines(report))
        out.append("")
    if report.verdict is not None:
        out.extend(_verdict_lines(report, paint))
        out.append("")
    if not report.quiet:
        summary = summary_line(report)
        out.append(paint(summary, "32") if not report.findings else summary)
        if report.skipped:
            count = len(report.skipped)
            out.append(f"Skipped {count} path{'' if count == 1 else 's'}:")
            out.extend(f"  {printable(entry)}" for entry in report.skipped)
    elif out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def _verdict_lines(report: ReportInput, paint: _Painter) -> list[str]:
    """waslint audit: the upgrade verdict, each reason wrapped under its dash."""
    import textwrap

    assert report.verdict is not None
    head, *reasons = report.verdict.lines()
    lines = [paint(head, "1;31" if reasons else "32")]
    width = max(report.width, 40)
    for reason in reasons:
        lines.extend(
            textwrap.wrap(reason[4:], width, initial_indent="  - ", subsequent_indent="    ", break_on_hyphens=False)
        )
    return lines


def render_concise(report: ReportInput) -> str:
    """One line per finding, `path:line:col: CODE message`: for grep, editors and scripts."""
    out = [
        f"{safe_line_start(printable(f.path))}:{f.span.line}:{f.span.column}: {f.code} {_one_line(f.message)}"
        for f in report.findings
    ]
    if report.show_fixes:
        out.extend(fix_lines(report))
    if not report.quiet:
        out.append(summary_line(report))
    return "".join(line + "\n" for line in out)


def _one_line(message: str) -> str:
    """A message on one line, its control characters shown (it may quote a server or a value)."""
    return printable(" ".join(message.split()))


def _finding_lines(finding: Finding, lines: list[str], paint: _Painter, width: int) -> list[str]:
    import textwrap  # a run without findings (most pre-commit runs) never wraps

    span = finding.span
    prefix = f"  {span.line}:{span.column}  {finding.severity.label:<7} {finding.code}  "
    indent = " " * min(len(prefix), width // 3)
    head, detail = split_message(_one_line(finding.message))
    if finding.fixable:
        head += " " + _FIXABLE
    wrapped = textwrap.wrap(
        head, width, initial_indent=prefix, subsequent_indent=indent, break_on_hyphens=False, break_long_words=True
    )
    wrapped = wrapped or [prefix.rstrip()]
    wrapped[0] = _paint_prefix(wrapped[0], finding, paint)
    if finding.fixable and wrapped[-1].endswith(_FIXABLE):
        wrapped[-1] = wrapped[-1][: -len(_FIXABLE)] + paint(_FIXABLE, "32")
    if detail:
        wrapped += textwrap.wrap(
            detail,
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
            break_long_words=True,
        )
    if 0 < span.line <= len(lines):
        wrapped += _source_lines(finding, lines[span.line - 1], paint, width)
    return wrapped


def _paint_prefix(first: str, finding: Finding, paint: _Painter) -> str:
    if not paint.enabled:
        return first
    severity = f"{finding.severity.label:<7}"
    location, rest = first.split(severity, 1)
    code_at = rest.index(finding.code)
    return (
        location
        + paint(severity, _COLORS[finding.severity])
        + rest[:code_at]
        + paint(finding.code, "1")
        + rest[code_at + len(finding.code) :]
    )


def _source_lines(finding: Finding, raw_line: str, paint: _Painter, width: int) -> list[str]:
    """The source line, cut around the column when it is too long, and a caret under the span."""
    span = finding.span
    source = printable(raw_line.rstrip("\r").expandtabs(1))
    gutter = f"{span.line:>6} | "
    start = min(max(span.column - 1, 0), len(source))
    end = span.end_column - 1 if span.end_line == span.line and span.end_column > span.column else start + 1
    end = max(end, start + 1)
    shown, start, end = clip_line(source, start, end, width - len(gutter))
    caret = paint("^" * (end - start), _COLORS[finding.severity])
    return [paint(gutter, "2") + shown, " " * (len(gutter) - 2) + paint("| ", "2") + " " * start + caret]


def clip_line(source: str, start: int, end: int, room: int) -> tuple[str, int, int]:
    """Cut `source` to `room` characters around `start`, marking cuts with `...`; the caret span
    [start, end) is moved with the cut and never reaches past the printed characters."""
    room = max(room, 20)
    if len(source) <= room:
        start = min(start, max(len(source) - 1, 0))
        return source, start, max(min(end, len(source)), start + 1)
    left = 0 if start < room * 2 // 3 else min(start - room // 3, len(source) - room)
    shown = source[left : left + room]
    head = "..." if left else ""
    tail = "..." if left + room < len(source) else ""
    shown = head + shown[len(head) : len(shown) - len(tail)] + tail
    start = min(start - left, len(shown) - len(tail) - 1)
    end = min(end - left, len(shown) - len(tail))
    return shown, start, max(end, start + 1)
