"""Configuration: `.waslint.yaml` or `[tool.waslint]` in pyproject.toml, validated key by key."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Collection
from dataclasses import field
from fnmatch import fnmatch
from typing import Any

from waslint.core.codes import matches
from waslint.core.model import Severity
from waslint.core.patterns import LazyPattern
from waslint.core.records import dataclass
from waslint.io.loader import CONFIG_NAMES, MAX_FILE_BYTES, parse_bytes
from waslint.io.reading import InputError, read_bounded
from waslint.knowledge.releases import Release, is_supported, parse_release, supported_text

KNOWN_KEYS = (
    "select",
    "ignore",
    "severity",
    "exclude",
    "per-path-ignores",
    "target-version",
    "fail-on",
    "namespace",
    "inline-ignores",
    "runtime",
    "scopes",
    "kustomize-cmd",
)
# WAS8xx thresholds (`runtime:` in the config), in seconds; the rules default to one hour.
RUNTIME_THRESHOLDS = ("orphan-after", "stuck-deletion-after")
DURATION_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
FAIL_ON = ("error", "warning", "info", "never")
FILE_GLOB_SUFFIXES = (".yaml", ".yml", ".json")


class ConfigError(Exception):
    """An invalid config file or option: the run stops with exit status 2."""


@dataclass
class Config:
    """The project's `.waslint.yaml`: selection, severities, excludes, per-path ignores, scopes."""

    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, Severity] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    target_version: Release | None = None
    fail_on: str | None = None
    namespace: str | None = None
    inline_ignores: bool = True
    runtime_thresholds: dict[str, float] = field(default_factory=dict)
    scopes: list[str] = field(default_factory=list)  # folder (or file) globs, each match its own cluster
    kustomize_cmd: str | None = None  # the command that renders a kustomize build root
    source: str | None = None
    root: str = "."

    def excludes(self, path: str) -> bool:
        """Whether `exclude` drops this path, however it was given (relative, absolute, `./x`,
        a file named by pre-commit); patterns are relative to the config's folder."""
        if not self.exclude or path == "-":
            return False
        candidates = {os.path.normpath(path).replace(os.sep, "/").removeprefix("./")}
        relative = _relative_to(path, self.root)
        if relative is not None and not relative.startswith("../") and relative != "..":
            candidates.add(relative)
        candidates = {candidate for candidate in candidates if not candidate.startswith("/")} or candidates
        return any(_excluded_by(candidate, pattern) for candidate in candidates for pattern in self.exclude)

    def ignored_for_path(self, path: str) -> list[str]:
        if not self.per_path_ignores:
            return []
        normal = os.path.normpath(path).replace(os.sep, "/").removeprefix("./")
        relative = _relative_to(path, self.root)
        codes: list[str] = []
        for pattern, pattern_codes in self.per_path_ignores.items():
            if any(fnmatch(candidate, pattern) for candidate in (normal, relative) if candidate):
                codes.extend(pattern_codes)
        return codes

    def is_file_scope(self, scope: str | None) -> bool:
        """A scope that is one file (a file glob matched it): a finding names no scope for it."""
        return scope is not None and scope.endswith(FILE_GLOB_SUFFIXES)

    def scope_of(self, path: str) -> str | None:
        """The scope (relative to the config's folder) holding `path`: the shallowest parent
        folder that matches a `scopes` glob, else the file itself when a file glob (one ending in
        `.yaml`, `.yml`, `.json`) matches it; None outside every scope."""
        if not self.scopes:
            return None
        relative = _relative_to(path, self.root)
        if relative is None or relative.startswith("../"):
            return None
        parts = relative.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if any(fnmatch(folder, glob) for glob in self.scopes):
                return folder
        if any(glob.endswith(FILE_GLOB_SUFFIXES) and fnmatch(relative, glob) for glob in self.scopes):
            return relative  # a file glob (`*/*.yaml`): each matching file is a cluster of its own
        return None


def _excluded_by(candidate: str, pattern: str) -> bool:
    bare = pattern.strip().rstrip("/").removeprefix("./")
    if not bare or candidate == ".":
        return False
    if fnmatch(candidate, bare) or fnmatch(candidate, bare + "/*"):
        return True
    return "/" not in bare and any(fnmatch(part, bare) for part in candidate.split("/"))


def _relative_to(path: str, root: str) -> str | None:
    if path == "-":
        return None
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
    except ValueError:
        return None


def find_config(start: str | None = None) -> str | None:
    """The nearest .waslint.yaml upward, else the nearest pyproject.toml with [tool.waslint]."""
    folder = os.path.abspath(start or os.getcwd())
    pyproject: str | None = None
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return candidate
        candidate = os.path.join(folder, "pyproject.toml")
        if pyproject is None and os.path.isfile(candidate) and _has_tool_section(candidate):
            pyproject = candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return pyproject
        folder = parent


# Where a pyproject.toml can hold waslint's table: `[tool.waslint]` (or `[tool."waslint".x]`), a
# dotted `tool.waslint.x = ...`, or a `[tool]` table with `waslint...` keys. No match: no table.
_TOOL_WASLINT = LazyPattern(
    rb"""^[ \t]*(?:\[[ \t]*tool[ \t]*\.[ \t]*["']?waslint|tool[ \t]*\.[ \t]*["']?waslint|\[[ \t]*tool[ \t]*\])""",
    re.MULTILINE,
)


def _has_tool_section(path: str) -> bool:
    try:
        content = read_bounded(path, MAX_FILE_BYTES)
    except InputError:
        return False
    if b"waslint" not in content or not _TOOL_WASLINT.search(content):
        return False  # most pyproject.toml files: no TOML parser imported (2 ms of a hook's start)
    try:  # `[tool.waslint]`, `[tool.waslint.severity]`, or `[tool]` with `waslint.ignore = ...`
        return isinstance(_toml_tool_section(path, content), dict)
    except ConfigError:
        return True  # the table may be there: loading it reports the TOML error


def load_config(path: str | None, known_codes: Collection[str]) -> Config:
    """Read and validate a config file; `known_codes` are the rule codes selectors may name."""
    if path is None:
        return Config()
    raw = _read_raw(path)
    config = parse_config(raw, known_codes, source=path)
    config.root = os.path.dirname(os.path.abspath(path))
    return config


def _read_raw(path: str) -> dict[str, Any]:
    try:
        content = read_bounded(path, MAX_FILE_BYTES)
    except InputError as err:
        raise ConfigError(f"config {err}") from None
    if path.endswith(".toml"):
        return _read_toml(path, content)
    # The manifest loader: the same depth and alias-expansion limits, duplicate keys refused.
    source = parse_bytes(path, content)
    if source.problems:
        problem = source.problems[0]
        raise ConfigError(f"{path}:{problem.line}:{problem.column}: invalid config: {problem.message}")
    if len(source.documents) > 1:
        raise ConfigError(f"{path}: the config must be one YAML document")
    data = source.documents[0].data if source.documents else {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys ({', '.join(KNOWN_KEYS)})")
    return data


def _read_toml(path: str, content: bytes) -> dict[str, Any]:
    section = _toml_tool_section(path, content)
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.waslint] must be a table")
    return section


def _toml_tool_section(path: str, content: bytes) -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    try:
        document = tomllib.loads(content.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: invalid TOML: {err}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nesting too deep") from None
    tool = document.get("tool")
    return tool.get("waslint") if isinstance(tool, dict) else None


def parse_config(raw: dict[str, Any], known_codes: Collection[str], source: str = "<config>") -> Config:
    config = Config(source=source)
    for raw_key, value in raw.items():
        key = str(raw_key).replace("_", "-")
        if key not in KNOWN_KEYS:
            raise ConfigError(f"{source}: unknown key {raw_key!r} (known: {', '.join(KNOWN_KEYS)})")
        _apply(config, key, value, source, known_codes)
    return config


def _apply(config: Config, key: str, value: Any, source: str, known: Collection[str]) -> None:
    where = f"{source}: key {key!r}"
    if key == "select":
        config.select = _codes(value, where, known)
    elif key == "ignore":
        config.ignore = _codes(value, where, known)
    elif key == "severity":
        config.severity = _severities(value, where, known)
    elif key == "exclude":
        config.exclude = _strings(value, where)
    elif key == "per-path-ignores":
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping of glob: codes")
        config.per_path_ignores = {
            str(glob): _codes(codes, f"{where} [{glob}]", known) for glob, codes in value.items()
        }
    elif key == "target-version":
        config.target_version = check_target_version(str(value), where)
    elif key == "fail-on":
        config.fail_on = check_fail_on(str(value), where)
    elif key == "namespace":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: expected a namespace name")
        config.namespace = value
    elif key == "scopes":
        if isinstance(value, str) and not value.strip():
            raise ConfigError(f"{where}: an empty scope matches nothing (give folder or file globs, e.g. clusters/*)")
        config.scopes = [_scope_glob(glob, where) for glob in _strings(value, where)]
    elif key == "kustomize-cmd":
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: expected a command line, e.g. 'kustomize build --enable-helm'")
        config.kustomize_cmd = value
    elif key == "inline-ignores":
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false")
        config.inline_ignores = value
    elif key == "runtime":
        config.runtime_thresholds = _thresholds(value, where)


def _thresholds(value: Any, where: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping ({', '.join(RUNTIME_THRESHOLDS)}: a duration)")
    thresholds: dict[str, float] = {}
    for name, raw in value.items():
        if name not in RUNTIME_THRESHOLDS:
            raise ConfigError(f"{where}: unknown threshold {name!r} (known: {', '.join(RUNTIME_THRESHOLDS)})")
        thresholds[str(name)] = _duration(raw, f"{where} [{name}]")
    return thresholds


def _duration(raw: Any, where: str) -> float:
    """Seconds from `3600`, `90s`, `30m`, `2h` or `1d`."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw >= 0:
        return float(raw)
    text = str(raw).strip()
    unit = DURATION_UNITS.get(text[-1:])
    number = text[:-1] if unit else text
    try:
        seconds = float(number) * (unit or 1.0)
    except ValueError:
        seconds = -1.0
    if seconds < 0 or isinstance(raw, bool):
        raise ConfigError(f"{where}: expected a duration such as 3600, 90s, 30m, 2h or 1d, got {raw!r}")
    return seconds


def _scope_glob(glob: str, where: str) -> str:
    """A scope is a glob below the config's folder that matches folders (`clusters/*`: each
    folder one set) or files (`*/*.yaml`, ending in `.yaml`, `.yml` or `.json`: each file one
    set). `""`, `.`, `/`, an absolute path or a `..` segment would match nothing below the config
    (or the config's own folder), silently; each is a usage error."""
    bare = glob.strip()
    while bare.startswith("./"):
        bare = bare[2:]
    bare = bare.rstrip("/")
    if glob.strip().startswith("/") and bare:
        raise ConfigError(f"{where}: scope {glob!r} is absolute; scopes are globs relative to the config")
    if bare in ("", "."):
        raise ConfigError(f"{where}: scope {glob!r} names no folder or file below the config (e.g. clusters/*)")
    if ".." in bare.split("/"):
        raise ConfigError(f"{where}: scope {glob!r} leaves the config's folder; scopes are folders or files below it")
    return bare


def _strings(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        value = [part for part in value.split(",") if part.strip()]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: expected a list of strings")
    return [item.strip() for item in value]


def _codes(value: Any, where: str, known: Collection[str]) -> list[str]:
    codes = [code.upper() for code in _strings(value, where)]
    check_codes(codes, where, known)
    return codes


def check_codes(codes: list[str], where: str, known: Collection[str]) -> None:
    for code in codes:
        if code != "ALL" and not any(matches(rule_code, [code]) for rule_code in known):
            raise ConfigError(f"{where}: unknown rule code or prefix {code!r}")


def _severities(value: Any, where: str, known: Collection[str]) -> dict[str, Severity]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping of CODE: error|warning|info")
    result: dict[str, Severity] = {}
    for code, level in value.items():
        code_text = str(code).upper()
        check_codes([code_text], where, known)
        try:
            result[code_text] = Severity.parse(str(level))
        except ValueError as err:
            raise ConfigError(f"{where} [{code}]: {err}") from None
    return result


def check_target_version(value: str, where: str = "--target-version") -> Release:
    release = parse_release(value)
    if release is None or not is_supported(release):
        raise ConfigError(f"{where}: {value!r} is not a supported release (use {supported_text()})")
    return release


def check_fail_on(value: str, where: str = "--fail-on") -> str:
    text = value.strip().lower()
    if text not in FAIL_ON:
        raise ConfigError(f"{where}: {value!r} is not one of {', '.join(FAIL_ON)}")
    return text
