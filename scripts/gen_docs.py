#!/usr/bin/env python3
"""Regenerate the rule documentation from the registry.

Writes docs/rules.md (the rule table, then every rule's documentation), the rule table between
the `<!-- rules:start -->` and `<!-- rules:end -->` markers of any other page of README.md and
docs/ that has them, and the list of rule modules (from the codes table, `lint/codes.py`) between
the `<!-- rule-modules:start -->` and `<!-- rule-modules:end -->` markers. `--check` changes
nothing and exits 1 when one is stale.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from waslint.lint.codes import RULES  # noqa: E402
from waslint.lint.docs import rules_markdown, rules_reference_markdown  # noqa: E402

START, END = "<!-- rules:start -->", "<!-- rules:end -->"
MODULES_START, MODULES_END = "<!-- rule-modules:start -->", "<!-- rule-modules:end -->"
RULES_PACKAGE = ROOT / "src" / "waslint" / "lint" / "rules"


def with_table(page: str) -> str:
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{rules_markdown()}{END}{tail}"


def rule_modules_markdown() -> str:
    """One line per family package: its codes (the start of its docstring, `WAS2xx:`), its rules'
    modules in catalog order (from the codes table), then the modules they share."""
    families: dict[str, list[str]] = {}
    for code, (_, module) in RULES.items():
        family, name = module.split(".")
        families.setdefault(family, []).append(f"`lint/rules/{family}/{name}.py` {code}")
    lines = []
    for family, modules in families.items():
        package = RULES_PACKAGE / family
        title = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or family
        listed = {entry.split("`")[1].rsplit("/", 1)[1] for entry in modules}
        shared = sorted(path.name for path in package.glob("*.py") if path.name not in listed | {"__init__.py"})
        line = f"- `lint/rules/{family}/` ({title.split(':', 1)[0]}): {', '.join(modules)}"
        if shared:
            line += "; shared: " + ", ".join(f"`lint/rules/{family}/{name}`" for name in shared)
        lines.append(line)
    return "\n".join(lines) + "\n"


def with_modules(page: str) -> str:
    head, rest = page.split(MODULES_START, 1)
    _, tail = rest.split(MODULES_END, 1)
    return f"{head}{MODULES_START}\n{rule_modules_markdown()}{MODULES_END}{tail}"


def rules_page() -> str:
    """docs/rules.md: the intro, the table, then each rule."""
    reference = rules_reference_markdown()
    intro, rules = reference.split("\n## ", 1)
    return f"{intro}\n{START}\n{rules_markdown()}{END}\n\n## {rules}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the generated docs are stale")
    args = parser.parse_args()
    rules = ROOT / "docs" / "rules.md"
    targets = {rules: rules_page()}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        if page != rules and START in text:
            text = with_table(text)
        if MODULES_START in text:
            text = with_modules(text)
        if page == rules or text != page.read_text(encoding="utf-8"):
            targets.setdefault(page, text)
    stale = [path for path, text in targets.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)} (run python scripts/gen_docs.py)", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(targets[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
