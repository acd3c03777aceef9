"""Feasibility reports: text (rich: a table per gang, per-domain bars of the limiting resource;
plain characters when not a terminal or NO_COLOR is set) and JSON (the contract's shape)."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

from waslint import __version__
from waslint.feasibility.explain import Verdict, nodes_word
from waslint.objects.quantity import show_amount

BAR_WIDTH = 30


@dataclass
class Located:
    verdict: Verdict
    path: str | None
    line: int | None


def to_json(snapshot: dict[str, Any], located: list[Located], what_if: list[str]) -> str:
    groups = [item.verdict.to_json(item.path, item.line) for item in located]
    infeasible = sum(1 for group in groups if not group["feasible"])
    payload = {
        "tool": "waslint",
        "version": __version__,
        "snapshot": snapshot,
        "groups": groups,
        "summary": {
            "groups": len(groups),
            "feasible": len(groups) - infeasible,
            "infeasible": infeasible,
            "over_quota": sum(1 for group in groups if group["blocked_by_quota"]),
            "what_if": what_if,
        },
    }
    return _dump(payload)


def _dump(payload: dict[str, Any]) -> str:
    """Indented at the top level, one line per group: as readable as `indent=2` for the
    envelope, and the C encoder for the groups (the indenting encoder is pure Python: 1.5 s for
    2,000 groups)."""
    lines = []
    for key, value in payload.items():
        if key == "groups" and value:
            inner = ",\n".join(f"    {json.dumps(group)}" for group in value)
            lines.append(f'  "groups": [\n{inner}\n  ]')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def to_text(snapshot: dict[str, Any], located: list[Located], what_if: list[str], color: bool) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(file=buffer, width=120, force_terminal=color, no_color=not color, highlight=False)
    fancy = color
    console.print(
        f"Snapshot {snapshot.get('path')}: {snapshot['nodes']} nodes ({snapshot['ready_nodes']} Ready and"
        f" schedulable), {snapshot['running_pods']} running pods"
    )
    for said in what_if:
        console.print(f"what-if: {said}")
    overview = Table(box=box.SIMPLE_HEAD if fancy else box.ASCII2, show_edge=False, pad_edge=False)
    for title in ("group", "required", "fits", "domain", "verdict"):
        overview.add_column(title, justify="right" if title in ("required", "fits") else "left")
    for item in located:
        verdict = item.verdict
        word = Text("feasible", style="green") if verdict.feasible else Text("INFEASIBLE", style="bold red")
        if verdict.over_quota:
            word = Text("OVER QUOTA", style="bold red")
        if verdict.gang.caveats:
            word.append("*")
        domain = f"{verdict.key}={verdict.domain}" if verdict.key and verdict.domain else "-"
        overview.add_row(str(verdict.gang), str(verdict.required), str(_fits(verdict)), domain, word)
    console.print(overview)
    if any(item.verdict.gang.caveats for item in located):
        console.print("* the verdict rests on something waslint does not model: see its caveats")
    for item in located:
        _gang_block(console, item, fancy)
    infeasible = sum(1 for item in located if not item.verdict.feasible)
    over = sum(1 for item in located if item.verdict.over_quota)
    quota = f" ({over} over quota)" if over else ""
    console.print(
        f"{len(located)} group(s): {len(located) - infeasible} feasible, {infeasible} cannot be placed{quota}",
        style="bold red" if infeasible else "bold green",
    )
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def _fits(verdict: Verdict) -> int:
    return sum(verdict.placement.values()) if verdict.feasible and not verdict.children else verdict.placeable


def _gang_block(console: Any, item: Located, fancy: bool) -> None:
    from rich import box
    from rich.table import Table

    verdict = item.verdict
    where = f" ({item.path}:{item.line})" if item.path else ""
    state = "feasible" if verdict.feasible else "cannot be placed"
    if verdict.over_quota:
        state = "not admitted by its queue"
    if verdict.gang.caveats:
        state += " (not certain: see the caveats)"
    console.print()
    console.print(f"{verdict.gang}{where}: {state}", style="bold green" if verdict.feasible else "bold red")
    table = Table(box=box.SIMPLE if fancy else box.ASCII2, show_header=False, show_edge=False, pad_edge=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for field, value in _rows(verdict):
        table.add_row(field, value)
    console.print(table)
    for reason in verdict.reasons:
        if reason in verdict.tabled:
            continue
        console.print(f"  - {reason}", highlight=False, soft_wrap=True)
    for said in verdict.what_if:
        console.print(f"  - {said}", style="yellow", soft_wrap=True)
    if verdict.rooms and verdict.key and verdict.limiting_resource and not verdict.feasible:
        _bars(console, verdict, fancy)


def _rows(verdict: Verdict) -> list[tuple[str, str]]:
    rows = [("caveat", caveat) for caveat in verdict.gang.caveats]
    rows += [
        ("required", _count(verdict.required, "child group" if verdict.children else "pod")),
        ("placeable", str(verdict.placeable)),
    ]
    if verdict.queue is not None:
        rows.append(("queue", verdict.queue.summary() if verdict.queue.admitted else "over quota (see below)"))
    if verdict.key:
        rows.append(("topology", verdict.key))
    if verdict.domain:
        rows.append(("domain", verdict.domain))
    if verdict.placement:
        rows.append(("placement", ", ".join(f"{node}: {pods}" for node, pods in verdict.placement.items())))
    others = [value for value in verdict.fitting_domains if value != verdict.domain]
    if others:
        rows.append(("also fits in", ", ".join(others[:10]) + (" ..." if len(others) > 10 else "")))
    if verdict.limiting_resource:
        rows.append(("limiting", verdict.limiting_resource))
    if verdict.exclusions:
        rows.append(("excluded", "; ".join(f"{nodes_word(count)}: {why}" for why, count in verdict.exclusions.items())))
    if verdict.blocked_by:
        rows.append(("blocked by", ", ".join(str(gang) for gang in verdict.blocked_by)))
    if verdict.headroom:
        room = verdict.headroom
        more = f"room for {room['more_pods']} more pod(s) of this shape"
        rows.append(("headroom", f"{room['free_after']} {room['resource']} free in the domain after placement, {more}"))
    for child in verdict.children:
        state = "fits" if child.feasible else f"{child.placeable} of {child.required}"
        rows.append((f"child {child.gang.name}", f"{state} ({child.domain or '-'})"))
    return rows


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _bars(console: Any, verdict: Verdict, fancy: bool) -> None:
    resource = verdict.limiting_resource or ""
    shown = [row for row in verdict.rooms if row.free > 0 or row.pods > 0]
    rows = shown
    if not rows:
        return
    top = max((row.free for row in rows), default=0) or 1
    need = verdict.required
    console.print(f"  {resource} free per {verdict.key} (eligible nodes), pods that fit / {need} required:")
    full, empty = ("█", "░") if fancy else ("#", ".")
    width = max(len(row.value) for row in rows)
    for row in rows:
        filled = round(BAR_WIDTH * max(0, row.free) / top)
        bar = full * filled + empty * (BAR_WIDTH - filled)
        pods = f"{row.pods:>4} pod" + ("" if row.pods == 1 else "s")
        console.print(
            f"    {row.value.ljust(width)} {bar} {show_amount(resource, row.free):>6}  {pods}", highlight=False
        )
    rest = verdict.domains_total - len(rows)
    if rest:
        console.print(f"    ... and {rest} more domain{'' if rest == 1 else 's'}")
