"""PyYAML, imported without compiling the patterns of its pure-Python classes that a run through
libyaml never uses: they are compiled at their first use instead.

`yaml/reader.py` compiles `Reader.NON_PRINTABLE` when imported, a character class over the whole
of Unicode that takes about 5 ms to compile (its bitmap is built code point by code point); only the
pure-Python `Reader` uses it, and waslint reads YAML through libyaml (`CSafeLoader`) when PyYAML
has it. `SafeConstructor.timestamp_regexp` (about 0.5 ms) is used only for an unquoted timestamp.
While `import yaml` runs here, `re.compile` hands back a `LazyPattern` (core/patterns.py) for
exactly these two patterns (the same text and flags; any other pattern, or another PyYAML's, is
compiled as usual), which compiles the pattern, through `re`'s cache, when first used. Nothing
else changes: every other module of PyYAML is imported and set up as `import yaml` does.

The modules that import PyYAML on the lint path (`knowledge/tables.py`, `io/loader.py`) take it
from here; an earlier plain `import yaml` anywhere only means the patterns were compiled as usual.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any

from waslint.core.patterns import LazyPattern

__all__ = ["LazyPattern", "yaml"]

# yaml/reader.py, Reader.NON_PRINTABLE (PyYAML 5.1 to 6.0.x)
_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
# yaml/constructor.py, SafeConstructor.timestamp_regexp
_TIMESTAMP = """^(?P<year>[0-9][0-9][0-9][0-9])
                -(?P<month>[0-9][0-9]?)
                -(?P<day>[0-9][0-9]?)
                (?:(?:[Tt]|[ \\t]+)
                (?P<hour>[0-9][0-9]?)
                :(?P<minute>[0-9][0-9])
                :(?P<second>[0-9][0-9])
                (?:\\.(?P<fraction>[0-9]*))?
                (?:[ \\t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9][0-9]?)
                (?::(?P<tz_minute>[0-9][0-9]))?))?)?$"""
_DEFERRED = frozenset({(_NON_PRINTABLE, 0), (_TIMESTAMP, re.X)})


def _import_yaml() -> Any:
    if "yaml" in sys.modules:
        return sys.modules["yaml"]
    compile_now = re.compile

    def compile_deferring(pattern: Any, flags: Any = 0) -> Any:
        if isinstance(pattern, str) and (pattern, flags) in _DEFERRED:
            return LazyPattern(pattern, flags)
        return compile_now(pattern, flags)

    re.compile = compile_deferring
    try:
        import yaml
    finally:
        re.compile = compile_now
    return yaml


if TYPE_CHECKING:
    import yaml as yaml
else:
    yaml = _import_yaml()
