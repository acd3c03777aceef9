"""What `lint` may call fixable: the safe planners run on the findings (data only, no text), and a
finding whose fix they decline (its result would fail the schema, an odd shape, line breaks fix
does not edit) is reported as not fixable, with the reason `fix` gives."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import FixKind
from waslint.findings import Finding
from waslint.lint.fixers.checks import line_break_problem
from waslint.lint.fixers.plan import Plan
from waslint.lint.fixers.registry import FixEnv, Fixer, FixTarget, fixer_for
from waslint.lint.owners import owner_of, owners_of
from waslint.objects.index import ObjectIndex
from waslint.objects.kobject import KObject


def declined_fixes(findings: list[Finding], objects: Iterable[KObject], index: ObjectIndex) -> dict[Finding, str]:
    """Finding -> why `fix` would decline its safe fix, for the findings marked fixable;
    `objects`: the objects the findings may be about, `index`: the set the fixes look up."""
    owners = owners_of(objects)
    targets: dict[Fixer, list[FixTarget]] = {}
    declined: dict[Finding, str] = {}
    line_breaks: dict[str, str | None] = {}
    for finding in findings:
        fixer = fixer_for(finding.code)
        if not finding.fixable or fixer is None or fixer.kind is not FixKind.SAFE:
            continue
        obj = owner_of(finding, owners)
        if obj is None:
            continue
        if obj.file.path not in line_breaks:
            line_breaks[obj.file.path] = line_break_problem(obj.file.text)
        problem = line_breaks[obj.file.path]
        if problem is not None:
            declined[finding] = problem
            continue
        targets.setdefault(fixer, []).append(FixTarget(finding, obj, 0))
    if not targets:
        return declined
    plan = Plan()
    env = FixEnv(index, lambda obj: True, lambda obj: 0)
    for fixer, fixer_targets in targets.items():
        fixer.plan(fixer_targets, env, plan)
    planned = {finding for unit in plan.units for finding, _ in unit.parts}
    for fixer_targets in targets.values():
        for target in fixer_targets:
            finding = target.finding
            if finding not in planned and finding in plan.reasons:
                declined[finding] = plan.reasons[finding]
    return declined
