"""The data files of `waslint/knowledge/` (YAML tables, JSON schemas and validation data), read once
per process; YAML through libyaml."""

from __future__ import annotations

import functools
import os
from typing import Any

from waslint.core.yamlimport import yaml

# The package's own folder: the data ships inside it (package-data). A plain path, not
# importlib.resources: that import (zipfile, lzma, pathlib) cost 3 ms of every start.
KNOWLEDGE = os.path.dirname(os.path.abspath(__file__))


def read_text(*parts: str) -> str:
    """A data file of this folder (`read_text("schemas", "1.37", "index.json")`); OSError if absent."""
    with open(os.path.join(KNOWLEDGE, *parts), encoding="utf-8") as handle:
        return handle.read()


@functools.cache
def load_table(name: str) -> Any:
    return yaml.load(read_text(name), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
