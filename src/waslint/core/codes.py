"""Rule-code selectors: full codes or prefixes (`WAS1`, `WAS201`, `ALL`)."""

from __future__ import annotations

from collections.abc import Iterable


def matches(code: str, selectors: Iterable[str]) -> bool:
    """True when a code is named by any selector: a full code or a prefix (WAS1, WAS20, ALL)."""
    for selector in selectors:
        selector = selector.strip().upper()
        if selector == "ALL" or (selector and code.startswith(selector)):
            return True
    return False
