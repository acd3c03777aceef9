"""core/records.py's `dataclass` makes the same classes as the standard one: the same `__init__`
(parameters, defaults, factories, errors), `repr`, equality, hashing, ordering, frozen guards,
`fields`, `replace`, `__match_args__`, pickling; what it does not cover goes to the standard one."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
import pickle
import subprocess
import sys
from dataclasses import field
from typing import Any

import pytest

from conftest import FIXTURES, ROOT
from waslint.core.records import dataclass

OPTIONS: list[dict[str, bool]] = [
    {},
    {"frozen": True},
    {"eq": False},
    {"frozen": True, "eq": False},
    {"order": True},
    {"frozen": True, "order": True},
    {"slots": True},
    {"eq": False, "slots": True},
    {"frozen": True, "slots": True},
]


def _make(decorate: Any, options: dict[str, bool]) -> Any:
    class Sample:
        """A class with every kind of field the package uses."""

        a: int
        b: str = "x"
        c: list[int] = field(default_factory=list)
        d: int | None = field(default=None, repr=False)
        e: str = field(default="", compare=False)
        f: int = field(default=3, init=False)
        g: list[int] = field(default_factory=list, init=False, repr=False, compare=False)
        h: int = field(default=0, hash=False)

    return decorate(**options)(Sample)


def _outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return ("value", call(*args, **kwargs))
    except Exception as error:
        return (type(error), str(error))


@pytest.mark.parametrize("options", OPTIONS, ids=[",".join(o) or "plain" for o in OPTIONS])
def test_behaves_as_the_standard_dataclass(options: dict[str, bool]) -> None:
    standard, ours = _make(dataclasses.dataclass, options), _make(dataclass, options)
    assert sorted(vars(ours)) == sorted(vars(standard))  # e.g. 3.13's __replace__
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((1,), {}),
        ((1, "y", (2,), 5, "z"), {"h": 4}),
        ((2,), {"e": "q"}),
        ((), {}),
        ((1,), {"f": 2}),
        ((1, 2, 3, 4, 5, 6, 7), {}),
        ((1,), {"zz": 1}),
    ]
    for args, kwargs in calls:
        expected = _outcome(standard, *args, **kwargs)
        made = _outcome(ours, *args, **kwargs)
        assert (made[0], repr(made[1])) == (expected[0], repr(expected[1]))
    s, *s_others = (standard(1, "y", (2,)), standard(1, "y", (2,)), standard(1, "z"), standard(1, "y", (2,), e="o"))
    o, *o_others = (ours(1, "y", (2,)), ours(1, "y", (2,)), ours(1, "z"), ours(1, "y", (2,), e="o"))
    for s_other, o_other in zip(s_others, o_others, strict=True):
        for compare in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            assert _outcome(getattr(o, compare), o_other) == _outcome(getattr(s, compare), s_other), compare
    assert (standard.__hash__ is None) == (ours.__hash__ is None)
    if standard.__hash__ is not None:
        assert hash(s) == hash(o) or standard.__hash__ is object.__hash__
    assert repr(dataclasses.replace(s, a=9)) == repr(dataclasses.replace(o, a=9))
    assert dataclasses.asdict(s) == dataclasses.asdict(o)
    assert repr(copy.copy(o)) == repr(o) and repr(copy.deepcopy(o)) == repr(o)
    assert _outcome(setattr, s, "a", 5) == _outcome(setattr, o, "a", 5)
    assert _outcome(setattr, s, "new", 5) == _outcome(setattr, o, "new", 5)
    assert _outcome(delattr, s, "b") == _outcome(delattr, o, "b")
    assert ours.__match_args__ == standard.__match_args__
    assert repr(ours.__dataclass_params__) == repr(standard.__dataclass_params__)
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(standard)]
    assert str(inspect.signature(ours(1).__init__)) == str(inspect.signature(standard(1).__init__))
    assert ours.__init__.__annotations__ == standard.__init__.__annotations__
    assert ours.__init__.__qualname__ == standard.__init__.__qualname__
    assert ("__slots__" in vars(ours)) == ("__slots__" in vars(standard))
    if hasattr(copy, "replace"):  # 3.13
        assert repr(copy.replace(o, b="r")) == repr(copy.replace(s, b="r"))


class _Loose:
    """A value whose equality answers neither True nor False (as an array's does)."""

    def __eq__(self, other: object) -> Any:
        return "maybe" if isinstance(other, _Loose) else NotImplemented

    __hash__ = object.__hash__


@pytest.mark.parametrize("options", OPTIONS, ids=[",".join(o) or "plain" for o in OPTIONS])
def test_equality_as_the_standard_on_this_python(options: dict[str, bool]) -> None:
    """Before 3.13 the tuples of the fields are compared (each item by identity first); from 3.13
    the same object is equal, else field by field, the first false comparison's result."""
    standard, ours = _make(dataclasses.dataclass, options), _make(dataclass, options)
    nan, loose = float("nan"), _Loose()
    for first, second in [((nan,), (nan,)), ((float("nan"),), (float("nan"),)), ((loose,), (_Loose(),))]:
        for same in (False, True):
            s, o = standard(*first), ours(*first)
            s2, o2 = (s, o) if same else (standard(*second), ours(*second))
            assert _outcome(o.__eq__, o2) == _outcome(s.__eq__, s2)
            assert _outcome(o.__ne__, o2) == _outcome(s.__ne__, s2)


@dataclass(frozen=True)
class Pickled:
    """A module-level class, so that pickle finds it."""

    name: str
    sizes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class PickledSlots:
    """The same, slotted."""

    name: str
    sizes: tuple[int, ...] = ()


@pytest.mark.parametrize("cls", [Pickled, PickledSlots])
def test_pickles_and_hashes_as_a_value(cls: Any) -> None:
    value = cls("a", (1, 2))
    again = pickle.loads(pickle.dumps(value))
    assert again == value and hash(again) == hash(value) and {value: 1}[again] == 1
    assert pickle.loads(pickle.dumps(cls)) is cls


def test_a_recursive_repr_stops() -> None:
    @dataclass
    class Node:
        """A node that may hold itself."""

        children: list[Any]

    node = Node([])
    node.children.append(node)
    assert repr(node).endswith("Node(children=[...])")


def test_what_it_does_not_cover_goes_to_the_standard_decorator() -> None:
    @dataclass(kw_only=True)
    class KeywordOnly:
        """Keyword-only fields."""

        a: int

    @dataclass
    class Undocumented:
        a: int

    @dataclass
    class Base:
        """A dataclass base."""

        a: int

    @dataclass
    class Derived(Base):
        """A dataclass on a dataclass."""

        b: int = 0

    assert KeywordOnly(a=1).a == 1
    assert Undocumented.__doc__ == "Undocumented(a: 'int')"
    assert (
        repr(Derived(1, 2)) == "test_what_it_does_not_cover_goes_to_the_standard_decorator.<locals>.Derived(a=1, b=2)"
    )


def test_a_plain_lint_makes_every_dataclass_through_records() -> None:
    """The modules `waslint lint FILE` imports take `dataclass` from core/records.py, not the
    standard library's (each standard class costs start-up some 0.4 ms: bench/startup.py)."""
    code = (
        "import dataclasses, sys, runpy\n"
        f"sys.argv = ['waslint', 'lint', {str(FIXTURES / 'rules' / 'WAS105' / 'bad.yaml')!r}]\n"
        "try:\n    runpy.run_module('waslint', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(' '.join(sorted(name for name, module in list(sys.modules.items())\n"
        "    if name.startswith('waslint') and getattr(module, 'dataclass', None) is dataclasses.dataclass)),"
        " file=sys.stderr)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.stderr.split() == []
