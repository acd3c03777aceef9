"""Kubernetes resource quantities (`2`, `"2"`, `500m`, `1Gi`, `1e3`), parsed exactly as Decimals."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any


def number(value: Any) -> Decimal | None:
    """A YAML number as a Decimal; None for anything else (bools, strings, maps)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def show(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1)))
    return f"{value.normalize():f}"


_QUANTITY = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$")
_SUFFIX = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def parse_quantity(value: Any) -> Decimal | None:
    """A Kubernetes resource quantity (`2`, `"2"`, `500m`, `1Gi`, `1e3`) as a Decimal, or None."""
    found = number(value)
    if found is not None or not isinstance(value, str):
        return found
    match = _QUANTITY.match(value.strip())
    if match is None:
        return None
    digits, exponent, suffix = match.groups()
    try:
        amount = Decimal(digits)
        if exponent:
            amount *= Decimal(10) ** int(exponent[1:])
    except (InvalidOperation, ValueError):
        return None
    return amount * _SUFFIX[suffix] if suffix else amount
