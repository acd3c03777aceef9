#!/usr/bin/env python3
"""Regenerate the rule documentation from the registry.

Writes docs/rules.md (the rule table, then every rule's documentation) and the rule table between
the `<!-- rules:start -->` and `<!-- rules:end -->` markers of any other page of README.md and
docs/ that has them. `--check` changes nothing and exits 1 when one is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from waslint.lint.docs import rules_markdown, rules_reference_markdown  # noqa: E402

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def with_table(page: str) -> str:
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{rules_markdown()}{END}{tail}"


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
            targets[page] = with_table(text)
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
