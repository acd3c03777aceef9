"""`dataclass` for the value classes on the start-up path, at a fraction of the standard one's cost.

The standard decorator writes each generated method (`__init__`, `__repr__`, `__eq__`, `__hash__`,
a frozen class's `__setattr__` and `__delattr__`) as source text and compiles it: about 0.4 ms a
class on Python 3.11, some 20 ms for the classes a `waslint lint` of one file creates. Here the
standard decorator still does all the field bookkeeping (`fields`, `replace`, `__match_args__`,
defaults as class attributes), asked for no methods; `__repr__`, `__eq__`, `__hash__` and the frozen
guards are shared closures over the field names, with the standard ones' behaviour on the running
Python (`order`'s too; equality as tuples before 3.13, field by field from 3.13); only `__init__` is
compiled, the first time the class is instantiated. A class this does not cover
(`kw_only`, `__post_init__`, `unsafe_hash`, a dataclass base, no docstring, ...)
goes to the standard decorator unchanged. To type checkers this is the standard `dataclass`.
"""

from __future__ import annotations

import dataclasses
import sys
from _thread import get_ident
from operator import attrgetter, ge, gt, le, lt
from typing import TYPE_CHECKING, Any

__all__ = ["dataclass"]

if TYPE_CHECKING:
    from dataclasses import dataclass
else:

    def dataclass(cls: type | None = None, /, **options: Any) -> Any:
        if cls is None:
            return lambda cls: _record(cls, options)
        return _record(cls, options)


_COVERED = frozenset({"init", "repr", "eq", "order", "frozen", "slots"})
_DEFAULTS = (("frozen", False), ("eq", True), ("order", False))


def _record(cls: type, options: dict[str, Any]) -> type:
    if not _covered(cls, options):
        return dataclasses.dataclass(cls, **options)
    frozen, eq, order = (bool(options.get(name, default)) for name, default in _DEFAULTS)
    slots = bool(options.get("slots", False))
    # a frozen slotted class gets the standard frozen guards with the standard pickling support
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=frozen and slots, slots=slots)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.init, params.repr, params.eq, params.order, params.frozen = True, True, eq, order, frozen
    fields = dataclasses.fields(cls)
    own = cls.__dict__
    if "__init__" not in own:
        _add(cls, "__init__", _lazy_init(cls, fields, frozen, slots))
    if "__repr__" not in own:
        _add(cls, "__repr__", _repr([f.name for f in fields if f.repr]))
    if eq:
        compared = [f.name for f in fields if f.compare]
        if "__eq__" not in own:
            _add(cls, "__eq__", _eq(compared))
        class_hash = own.get("__hash__", dataclasses.MISSING)
        explicit_hash = not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in own))
        if not explicit_hash:
            if frozen:
                hashed = [f.name for f in fields if (f.hash is None and f.compare) or f.hash]
                _add(cls, "__hash__", _hash(_key(hashed)))
            else:
                cls.__hash__ = None  # type: ignore[assignment]
    if order:
        key = _key([f.name for f in fields if f.compare])
        for name, compare in (("__lt__", lt), ("__le__", le), ("__gt__", gt), ("__ge__", ge)):
            if name in own:
                overwrite = f"Cannot overwrite attribute {name} in class {cls.__name__}"
                raise TypeError(f"{overwrite}. Consider using functools.total_ordering")
            _add(cls, name, _order(key, compare))
    if frozen and not slots:
        names = frozenset(f.name for f in fields)
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        _add(cls, "__setattr__", _frozen_setattr(cls, names))
        _add(cls, "__delattr__", _frozen_delattr(cls, names))
    return cls


def _covered(cls: type, options: dict[str, Any]) -> bool:
    """Only what this module reproduces; the rest goes to the standard decorator."""
    if not set(options) <= _COVERED or options.get("init", True) is not True or options.get("repr", True) is not True:
        return False
    if options.get("order") and not options.get("eq", True):
        return False
    if not cls.__dict__.get("__doc__") or "__post_init__" in cls.__dict__ or "__new__" in cls.__dict__:
        return False
    if any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        return False
    kinds = [str(kind) for kind in cls.__dict__.get("__annotations__", {}).values()]  # noqa: RUF063 - the class's own
    own_fields = [value for value in cls.__dict__.values() if isinstance(value, dataclasses.Field)]
    return not any("InitVar" in kind or "KW_ONLY" in kind for kind in kinds) and not any(
        value.kw_only is True for value in own_fields
    )


def _add(cls: type, name: str, function: Any) -> None:
    function.__name__ = name
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, function)


def _key(names: list[str]) -> Any:
    """The tuple of the named fields (as the standard methods compare and hash it)."""
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda self: (one(self),)
    return attrgetter(*names)


def _repr(names: list[str]) -> Any:
    getters = [(f"{name}=", attrgetter(name)) for name in names]
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = (id(self), get_ident())
        if key in running:
            return "..."
        running.add(key)
        try:
            shown = ", ".join(label + repr(get(self)) for label, get in getters)
        finally:
            running.discard(key)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


if sys.version_info >= (3, 13):

    def _eq(names: list[str]) -> Any:
        """3.13's: the same object is equal; else field by field, the first false comparison's result."""
        getters = [attrgetter(name) for name in names]

        def __eq__(self: Any, other: Any) -> Any:
            if self is other:
                return True
            if other.__class__ is self.__class__:
                result: Any = True
                for get in getters:
                    result = get(self) == get(other)
                    if not result:
                        return result
                return result
            return NotImplemented

        return __eq__

else:

    def _eq(names: list[str]) -> Any:
        """Before 3.13: the tuples of the compared fields."""
        key = _key(names)

        def __eq__(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return key(self) == key(other)
            return NotImplemented

        return __eq__


def _order(key: Any, compare: Any) -> Any:
    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(key(self), key(other))
        return NotImplemented

    return method


def _hash(key: Any) -> Any:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


def _frozen_setattr(cls: type[Any], names: frozenset[str]) -> Any:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls: type[Any], names: frozenset[str]) -> Any:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _lazy_init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool, slots: bool) -> Any:
    """An `__init__` that compiles the real one on its first call and puts it in its place."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if cls.__dict__.get("__init__") is __init__:
            _add(cls, "__init__", _init(cls, fields, frozen, slots))
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

    return __init__


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool, slots: bool) -> Any:
    """The standard `__init__`: the same parameters, defaults, factories and assignments."""
    names: dict[str, Any] = {"__dataclass_builtins_object__": object, "__dataclass_HAS_DEFAULT_FACTORY__": _FACTORY}
    parameters: list[str] = []
    body: list[str] = []
    for f in fields:
        default = f"__dataclass_dflt_{f.name}__"
        if f.default_factory is not dataclasses.MISSING:
            names[default] = f.default_factory
            if f.init:
                parameters.append(f"{f.name}=__dataclass_HAS_DEFAULT_FACTORY__")
                value = f"{default}() if {f.name} is __dataclass_HAS_DEFAULT_FACTORY__ else {f.name}"
            else:
                value = f"{default}()"
        elif f.init:
            if f.default is dataclasses.MISSING:
                parameters.append(f.name)
            else:
                names[default] = f.default
                parameters.append(f"{f.name}={default}")
            value = f.name
        elif slots and f.default is not dataclasses.MISSING:
            names[default] = f.default  # a slotted class holds no default as a class attribute
            value = default
        else:
            continue  # read from the class attribute that holds the default, as the standard one does
        if frozen:
            body.append(f"__dataclass_builtins_object__.__setattr__(self, {f.name!r}, {value})")
        else:
            body.append(f"self.{f.name} = {value}")
    source = (
        f"def __create_fn__({', '.join(names)}):\n"
        f" def __init__(self{''.join(', ' + p for p in parameters)}):\n"
        + "".join(f"  {line}\n" for line in body or ["pass"])
        + " return __init__\n"
    )
    scope: dict[str, Any] = {}
    exec(source, sys.modules[cls.__module__].__dict__, scope)  # generated from the field names, as dataclasses does
    init = scope["__create_fn__"](**names)
    init.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    return init


class _HasDefaultFactory:
    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _HasDefaultFactory()
