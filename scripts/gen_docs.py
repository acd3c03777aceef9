#!/usr/bin/env python3
"""Regenerate the rule documentation from the registry.

Writes docs/rules.md and the rule table between the `<!-- rules:start -->` and
`<!-- rules:end -->` markers of README.md. `--check` changes nothing and exits 1 when either is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from waslint.lint.docs import rules_markdown, rules_reference_markdown  # noqa: E402

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def readme_with_table(readme: str) -> str:
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{rules_markdown()}{END}{tail}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the generated docs are stale")
    args = parser.parse_args()
    targets = {
        ROOT / "README.md": readme_with_table((ROOT / "README.md").read_text(encoding="utf-8")),
        ROOT / "docs" / "rules.md": rules_reference_markdown(),
    }
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
