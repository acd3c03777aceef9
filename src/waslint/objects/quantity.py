"""Kubernetes resource quantities (`2`, `"2"`, `500m`, `1Gi`, `1e3`), parsed exactly as Decimals,
and as integer milli-units for requests and capacity."""

from __future__ import annotations

import math
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


# --------------------------------------------------------------------------- milli-units
# Pod requests and node capacity as ints in milli-units (`2` GPUs -> 2000, `500m` CPU -> 500,
# `1Gi` -> 1024**3 * 1000), so comparisons and the placement's hot loops do integer arithmetic
# only. Requests round up, capacity rounds down.

MILLI = 1000
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
