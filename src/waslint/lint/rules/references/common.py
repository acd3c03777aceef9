"""What the WAS4xx rules share: names still holding a template placeholder, close-name hints, where an object is."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.objects.kobject import KObject, as_str


def templated(name: str) -> bool:
    """A name still holding a template placeholder (Helm/Go `{{ }}`, envsubst `${}`): unresolvable."""
    return "{{" in name or "${" in name


def close_name(name: str, candidates: Iterable[str]) -> str:
    """', did you mean "x"?' when a candidate is close to name, else ''."""
    import difflib  # only when a name is missing: not on every start

    found = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.75)
    return f' (did you mean "{found[0]}"?)' if found else ""


def names_of(objects: Iterable[KObject], limit: int = 5) -> str:
    names = sorted({name for obj in objects if (name := as_str(obj.metadata.get("name")))})
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
