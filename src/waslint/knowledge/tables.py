"""The YAML tables of `waslint/knowledge/`, read once per process through libyaml."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml


@functools.cache
def load_table(name: str) -> Any:
    text = resources.files("waslint.knowledge").joinpath(name).read_text(encoding="utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
