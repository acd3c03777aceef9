"""XML 1.0 text (JUnit reports): the characters the format cannot hold at all (most C0 controls,
lone surrogates, U+FFFE/U+FFFF) are written as visible escapes; ElementTree escapes the rest."""

from __future__ import annotations

import re

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_text(text: str) -> str:
    return _NOT_XML.sub(_visible, text)
