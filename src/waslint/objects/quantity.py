"""Kubernetes resource quantities (`2`, `"2"`, `500m`, `1Gi`, `1e3`), parsed exactly as Decimals,
and as integer milli-units for requests and capacity (`milli`).

Bounded as Kubernetes bounds them (kubernetes/apimachinery pkg/api/resource/quantity.go): the
scheduler and the kubelet read a quantity as a 64-bit integer (`Value`, `MilliValue` for cpu),
and parsing caps a binary-suffixed one at 2^63-1, so a magnitude past MAX_AMOUNT_INT cannot be
scheduled as written; a decimal exponent that is no 64-bit integer is rejected outright
(`ErrSuffix`); a non-zero value finer than a nano-unit is rounded up to 1n. Such a value parses as None here,
without computing it (`1e999999999` would be a billion-digit number); `range_problem` says why.
"""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING, Any

from waslint.core.patterns import LazyPattern

if TYPE_CHECKING:
    import re
    from decimal import Decimal

MAX_AMOUNT_INT = 2**63 - 1  # int64: Quantity.Value


_QUANTITY = LazyPattern(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$")
# A suffix's factor, as Decimal takes it (made a Decimal with decimal itself: _Exact).
_SUFFIX: dict[str, str | int] = {"n": "1e-9", "u": "1e-6", "m": "1e-3"}
_SUFFIX |= {suffix: 10 ** (3 * power) for power, suffix in enumerate("kMGTPE", 1)}
_SUFFIX |= {suffix + "i": 2 ** (10 * power) for power, suffix in enumerate("KMGTPE", 1)}


class _Exact:
    """`decimal` and the Decimal constants, made when a quantity is first read (importing decimal
    and numbers costs start-up some 1.2 ms: a lint of files without quantities never needs them)."""

    def __init__(self) -> None:
        import decimal

        Decimal = decimal.Decimal
        self.Decimal = Decimal
        self.InvalidOperation = decimal.InvalidOperation
        self.suffix = {suffix: Decimal(factor) for suffix, factor in _SUFFIX.items()}
        self.max_amount = Decimal(MAX_AMOUNT_INT)  # int64: Quantity.Value
        self.nano = Decimal("1e-9")
        self.one = Decimal(1)
        self.ten = Decimal(10)
        self.zero = Decimal(0)


@cache
def _exact() -> _Exact:
    return _Exact()


def number(value: Any) -> Decimal | None:
    """A YAML number as a Decimal; None for anything else (bools, strings, maps)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    exact = _exact()
    try:
        return exact.Decimal(str(value))
    except exact.InvalidOperation:
        return None


def show(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(value.quantize(_exact().one))
    return f"{value.normalize():f}"


_MAX_EXPONENT = 2**63 - 1  # strconv.ParseInt(..., 64) of the exponent
_MAX_DIGITS = 40  # integer digits past which a quantity is out of range whatever its suffix


def range_problem(value: Any) -> str | None:
    """Why a quantity-shaped value is out of Kubernetes' range, or None (in range, or not a quantity)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "is not a finite number"
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    match = _QUANTITY.match(text)
    if match is None:
        return None
    _, exponent, _ = match.groups()
    if exponent and abs(int(exponent[1:])) > _MAX_EXPONENT:
        return "has an exponent that is no 64-bit integer (the API server rejects it)"
    if _magnitude(match) is None:
        return f"is larger than Kubernetes counts ({MAX_AMOUNT_INT}, a 64-bit integer)"
    return None


def _magnitude(match: re.Match[str]) -> Decimal | None:
    """The quantity's value, or None past MAX_AMOUNT_INT (estimated from its digits first, so a huge
    exponent is never computed)."""
    exact = _exact()
    decimal = exact.Decimal
    digits, exponent, suffix = match.groups()
    power = int(exponent[1:]) if exponent else 0
    whole = digits.lstrip("+-").split(".")[0].lstrip("0")
    if len(whole) + power > _MAX_DIGITS:
        return None
    if power < -_MAX_DIGITS:  # far below a nano-unit: Kubernetes rounds a non-zero value up to 1n
        return exact.nano.copy_sign(decimal(digits)) if decimal(digits) else exact.zero
    try:
        amount = decimal(digits) * exact.ten**power
    except (exact.InvalidOperation, ValueError):
        return None
    amount = amount * exact.suffix[suffix] if suffix else amount
    return amount if abs(amount) <= exact.max_amount else None


def parse_quantity(value: Any) -> Decimal | None:
    """A Kubernetes resource quantity (`2`, `"2"`, `500m`, `1Gi`, `1e3`) as a Decimal, or None
    (not a quantity, or out of range: see range_problem)."""
    found = number(value)
    if found is not None:
        return found if found.is_finite() and abs(found) <= MAX_AMOUNT_INT else None
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if match is None:
        return None
    return _magnitude(match)


# --------------------------------------------------------------------------- milli-units
# Pod requests and node capacity as ints in milli-units (`2` GPUs -> 2000, `500m` CPU -> 500,
# `1Gi` -> 1024**3 * 1000), so comparisons and the placement's hot loops do integer arithmetic
# only. Requests round up, capacity rounds down.

MILLI = 1000
OUT_OF_RANGE = MAX_AMOUNT_INT * MILLI + 1  # a quantity past 2^63-1, in milli-units
PODS = "pods"
GPU = "nvidia.com/gpu"

Resources = dict[str, int]

_ROUNDED_UP: dict[Any, int | None] = {}
_ROUNDED_DOWN: dict[Any, int | None] = {}


def milli(value: Any, round_up: bool = True) -> int | None:
    """A quantity in milli-units (None when it does not parse). Memoised: snapshots repeat a few
    hundred distinct strings across tens of thousands of pods."""
    cache = _ROUNDED_UP if round_up else _ROUNDED_DOWN
    try:
        return cache[value]
    except KeyError:
        pass
    except TypeError:  # unhashable (a map where a quantity belongs): not a quantity
        return None
    parsed = parse_quantity(value)
    result = None
    if parsed is not None and parsed.is_finite():
        scaled = parsed * MILLI
        result = max(0, math.ceil(scaled) if round_up else math.floor(scaled))
    elif range_problem(value) is not None:
        result = OUT_OF_RANGE  # more than Kubernetes counts (lint: WAS004): no node holds it
    if not isinstance(value, bool):  # True == 1 as a key: keep bools out of the cache
        cache[value] = result
    return result


def resource_map(value: Any, round_up: bool = True) -> Resources:
    """A `resources.requests`-like mapping in milli-units; entries that do not parse are left out."""
    found: Resources = {}
    if not isinstance(value, dict):
        return found
    for name, raw in value.items():
        amount = milli(raw, round_up)
        if isinstance(name, str) and amount is not None:
            found[name] = amount
    return found


def resource_rank(resource: str) -> tuple[int, str]:
    """The order resources are named in when several limit equally: extended resources (GPUs)
    first, then cpu, memory, other native resources, and `pods` last."""
    if resource == PODS:
        return (4, resource)
    if "/" in resource:
        return (0, resource)
    return ({"cpu": 1, "memory": 2}.get(resource, 3), resource)


def show_amount(resource: str, amount: int) -> str:
    """A milli-unit amount for people: `3`, `1.5`, `12Gi`, `500m` (cpu)."""
    if resource == "memory" or resource.endswith("storage"):
        size = amount / MILLI
        for unit, scale in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if size >= scale:
                return f"{size / scale:.4g}{unit}"
        return f"{size:.4g}"
    if resource == "cpu" and amount % MILLI and amount < MILLI:
        return f"{amount}m"
    return f"{amount / MILLI:.4g}" if amount % MILLI else str(amount // MILLI)
