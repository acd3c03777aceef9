"""Rules: one object per rule, with its code, name, severity, docs and optional fix; a registry.

A rule module (`lint/rules/<family>/<rule>.py`, listed in the codes table `lint/codes.py`) defines
one subclass of `Rule` and decorates it with `@register`. Per-object rules declare the kinds they
look at (`kinds`), so the engine hands each object only to the rules that care; set-level rules
(`check_set`) look across the whole index. Rules yield `Hit`s; the engine turns them into located
findings, applies severity overrides and suppressions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, ClassVar

from waslint.core.codes import matches
from waslint.core.model import FixKind, Path, RuleInfo, Severity, Span
from waslint.core.records import dataclass
from waslint.lint.codes import RULES, module_of

if TYPE_CHECKING:
    from waslint.io.loader import Document
    from waslint.lint.context import Context
    from waslint.objects.kobject import KObject


@dataclass(frozen=True)
class Part:
    """A named part of a rule that checks several related things: each part has its own paragraph
    in the rule's docs and its own function in the rule's module. Parts share the rule's code (a
    shipped code never changes meaning), and the docs say which part fires when."""

    name: str
    what: str


@dataclass(frozen=True)
class Place:
    """Where a hit without an object is: a line of a file that holds no object (--gates FILE)."""

    file_path: str
    span: Span
    document: int | None = None
    doc: Document | None = None


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
    # Narrow the finding's span to this text inside the one-line value (a condition name in a command).
    substring: str | None = None
    # For a hit without an object: where it is.
    place: Place | None = None
    # True whatever its field's value renders to (a request without a limit): in a Helm template
    # it points at the key, and is reported even when the value is an action.
    structural: bool = False


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
    # The named parts of a rule that bundles related checks (`what` introduces them).
    parts: ClassVar[tuple[Part, ...]] = ()

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
        substring: str | None = None,
        structural: bool = False,
    ) -> Hit:
        return Hit(self, obj, path, message, severity, fixable, point_at_key, substring, structural=structural)

    @property
    def fix(self) -> FixKind:
        """Derived from the one registration of fixes (`lint/fixers/registry.py`): a rule is fixable
        exactly when a planner is registered for its code. The planners load on first use."""
        from waslint.lint.fixers.registry import fixer_for

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
    def full_what(self) -> str:
        """`what`, followed by each part's name and paragraph."""
        return " ".join([self.what, *(f"{part.name}: {part.what}" for part in self.parts)])

    @property
    def info(self) -> RuleInfo:
        """What reporters need to know of a rule (SARIF rule descriptors)."""
        return RuleInfo(
            self.code,
            self.name,
            self.severity,
            self.summary,
            self.full_what,
            self.why,
            self.fix,
            self.severities,
            self.fix_title,
        )


_REGISTRY: dict[str, Rule] = {}


def register(cls: type[Rule]) -> type[Rule]:
    """Register a rule object; its code, name and module must be the codes table's row."""
    code = cls.code
    if code in _REGISTRY:
        raise RuntimeError(f"rule code {code} registered twice")
    row = RULES.get(code)
    if row is None:
        raise RuntimeError(f"rule code {code} is not in the codes table (lint/codes.py)")
    if row[0] != cls.name or module_of(code) != cls.__module__:
        raise RuntimeError(f"{code} {cls.name} ({cls.__module__}) is not its row of lint/codes.py: {row}")
    _REGISTRY[code] = cls()
    return cls


def _load(code: str) -> Rule:
    """The rule of a code, its module imported on first use."""
    found = _REGISTRY.get(code)
    if found is None:
        # The C import path, not importlib.import_module: a little faster, and the rule modules
        # show in `python -X importtime` (bench/startup.py --importtime).
        __import__(module_of(code))
        found = _REGISTRY.get(code)
        if found is None:
            raise RuntimeError(f"{module_of(code)} does not register {code}")
    return found


def all_rules() -> list[Rule]:
    return [_load(code) for code in sorted(RULES)]


def get_rule(code: str) -> Rule | None:
    """The rule with this code, or with this name (`api-version-not-served`)."""
    wanted = code.strip()
    if wanted.upper() in RULES:
        return _load(wanted.upper())
    name = wanted.lower()
    found = next((key for key, (rule_name, _) in RULES.items() if rule_name == name), None)
    return _load(found) if found is not None else None


def selected_codes(select: Iterable[str] | None, ignore: Iterable[str]) -> list[str]:
    """The selected codes, in code order; no rule module is imported."""
    chosen = list(select) if select else ["ALL"]
    ignored = list(ignore)
    return [code for code in sorted(RULES) if matches(code, chosen) and not matches(code, ignored)]


def load_rules(codes: Iterable[str]) -> list[Rule]:
    """The rules of these codes, their modules imported on first use."""
    return [_load(code) for code in codes]


def select_rules(select: Iterable[str] | None, ignore: Iterable[str]) -> Iterator[Rule]:
    """The selected rules, in code order; only their modules are imported."""
    for code in selected_codes(select, ignore):
        yield _load(code)
