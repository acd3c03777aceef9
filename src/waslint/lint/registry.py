"""Rules: one object per rule, with its code, name, severity, docs and optional fix; a registry.

A rule module defines subclasses of `Rule` and decorates them with `@register`. Per-object rules
declare the kinds they look at (`kinds`), so the engine hands each object only to the rules that
care; set-level rules (`check_set`) look across the whole index. Rules yield `Hit`s; the engine
turns them into located findings, applies severity overrides and suppressions.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from waslint.core.codes import matches
from waslint.core.model import FixKind, Path, RuleInfo, Severity
from waslint.lint.fixers.registry import fixer_for

if TYPE_CHECKING:
    from waslint.lint.context import Context
    from waslint.objects.kobject import KObject

# Rule families, in catalog order. Each module registers its rules on import.
RULE_MODULES = (
    "waslint.lint.rules.input",
    "waslint.lint.rules.quantity_range",
    "waslint.lint.rules.upstream",
    "waslint.lint.rules.migration",
    "waslint.lint.rules.claims",
    "waslint.lint.rules.sizing",
    "waslint.lint.rules.references",
    "waslint.lint.rules.quotas",
    "waslint.lint.rules.structure",
    "waslint.lint.rules.placement",
    "waslint.lint.rules.gates",
    "waslint.lint.rules.runtime",
)


@dataclass
class Hit:
    """A rule's raw report: the object, the field path inside it, and the message."""

    rule: Rule
    obj: KObject | None
    path: Path
    message: str
    severity: Severity | None = None
    fixable: bool | None = None
    point_at_key: bool = True
    # For hits without an object (file-level): where they are.
    extra: dict[str, Any] = field(default_factory=dict)


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    what: ClassVar[str]
    why: ClassVar[str]
    example: ClassVar[str] = ""
    use_instead: ClassVar[str] = ""
    # Rules that compare with a git revision (--base): what the example's file held there.
    example_base: ClassVar[str] = ""
    # What `waslint fix` does for this rule's findings, in a few words (shown by --show-fixes).
    fix_title: ClassVar[str] = ""
    # Every severity the rule's findings carry, when some hits differ from `severity`.
    other_severities: ClassVar[tuple[Severity, ...]] = ()
    # (group, kind) pairs this rule inspects per object; None = every object; empty = none.
    kinds: ClassVar[frozenset[tuple[str, str]] | None] = frozenset()
    # Only objects whose document text contains this string are inspected (a cheap prefilter).
    text_trigger: ClassVar[str | None] = None
    # With --snapshot the rule reads every object of the set (not only what lint/lookups.py
    # declares), so such a run parses and keeps every file instead of streaming them.
    whole_set_with_snapshot: ClassVar[bool] = False

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        return ()

    def check_set(self, ctx: Context) -> Iterable[Hit]:
        return ()

    @property
    def is_set_rule(self) -> bool:
        return type(self).check_set is not Rule.check_set

    def hit(
        self,
        obj: KObject,
        path: Path,
        message: str,
        *,
        severity: Severity | None = None,
        fixable: bool | None = None,
        point_at_key: bool = True,
    ) -> Hit:
        return Hit(self, obj, path, message, severity, fixable, point_at_key)

    @property
    def fix(self) -> FixKind:
        """Derived from the one registration of fixes (`lint/fixers/registry.py`): a rule is fixable
        exactly when a planner is registered for its code."""
        fixer = fixer_for(self.code)
        return fixer.kind if fixer is not None else FixKind.NONE

    @property
    def fixable(self) -> bool:
        return self.fix is not FixKind.NONE

    @property
    def severities(self) -> tuple[Severity, ...]:
        """The severities findings of this rule carry (before config overrides), highest first."""
        return tuple(sorted({self.severity, *self.other_severities}, reverse=True))

    @property
    def severity_label(self) -> str:
        """`error`, or `error/warning` for a rule whose findings carry either."""
        return "/".join(severity.label for severity in self.severities)

    @property
    def info(self) -> RuleInfo:
        """What reporters need to know of a rule (SARIF rule descriptors)."""
        return RuleInfo(
            self.code,
            self.name,
            self.severity,
            self.summary,
            self.what,
            self.why,
            self.fix,
            self.severities,
            self.fix_title,
        )


_REGISTRY: dict[str, Rule] = {}
_loaded = False


def register(cls: type[Rule]) -> type[Rule]:
    code = cls.code
    if code in _REGISTRY:
        raise RuntimeError(f"rule code {code} registered twice")
    if any(rule.name == cls.name for rule in _REGISTRY.values()):
        raise RuntimeError(f"rule name {cls.name} registered twice")
    _REGISTRY[code] = cls()
    return cls


def _load_rules() -> None:
    global _loaded
    if not _loaded:
        for module in RULE_MODULES:
            importlib.import_module(module)
        _loaded = True


def all_rules() -> list[Rule]:
    _load_rules()
    return sorted(_REGISTRY.values(), key=lambda rule: rule.code)


def get_rule(code: str) -> Rule | None:
    """The rule with this code, or with this name (`api-version-not-served`)."""
    _load_rules()
    found = _REGISTRY.get(code.strip().upper())
    if found is None:
        name = code.strip().lower()
        found = next((rule for rule in _REGISTRY.values() if rule.name == name), None)
    return found


def select_rules(select: Iterable[str] | None, ignore: Iterable[str]) -> Iterator[Rule]:
    chosen = list(select) if select else ["ALL"]
    ignored = list(ignore)
    for rule in all_rules():
        if matches(rule.code, chosen) and not matches(rule.code, ignored):
            yield rule
