"""What `pip install waslint` installs, read offline from the installed distributions' metadata, and
a wheelhouse of it made from this environment, so that a hook environment (pre-commit's
`language: python` runs `pip install .` of the repository) installs with no index at all.

The wheels are the installed distributions packed again (their files as RECORD lists them, their
WHEEL tags, a fresh RECORD): no download, no build. The build backend (setuptools) comes from the
wheels virtualenv bundles for seeding (virtualenv is pre-commit's own dependency).
"""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
# Written by an installer, not part of a wheel.
_INSTALLER_FILES = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def project() -> dict[str, object]:
    table: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return table


def _wanted(requirement: str, extras: frozenset[str]) -> Requirement | None:
    parsed = Requirement(requirement)
    if parsed.marker is None:
        return parsed
    environment = {key: str(value) for key, value in default_environment().items()}
    chosen = any(parsed.marker.evaluate({**environment, "extra": extra}) for extra in extras or {""})
    return parsed if chosen else None


def closure(requirements: list[str]) -> set[str]:
    """Every distribution `pip install` brings for these requirements, walked through the installed
    distributions' own metadata (each with the extras asked of it): nothing is fetched."""
    found: set[str] = set()
    queue = [r for r in (_wanted(text, frozenset()) for text in requirements) if r is not None]
    while queue:
        requirement = queue.pop()
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        found.add(name)
        try:
            below = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            raise AssertionError(f"{requirement.name} is required but not installed here") from None
        for text in below:
            wanted = _wanted(text, frozenset(requirement.extras))
            if wanted is not None:
                queue.append(wanted)
    return found


def base_requirements() -> list[str]:
    return [str(text) for text in project()["dependencies"]]  # type: ignore[attr-defined]


def repack(name: str, folder: Path) -> Path:
    """The installed distribution `name` as a wheel in `folder`."""
    dist = metadata.distribution(name)
    tags = [
        line.split(":", 1)[1].strip()
        for line in (dist.read_text("WHEEL") or "").splitlines()
        if line.startswith("Tag:")
    ]
    assert tags, f"{name}: no WHEEL tags (not installed from a wheel)"
    stem = f"{canonicalize_name(dist.metadata['Name']).replace('-', '_')}-{dist.version}"
    wheel = folder / f"{stem}-{tags[0]}.whl"
    records: list[str] = []
    info_dir = ""
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in dist.files or []:
            parts = entry.parts
            if parts[0] == ".." or "__pycache__" in parts or entry.suffix == ".pyc":
                continue  # scripts (made again from entry_points.txt) and bytecode
            if parts[0].endswith(".dist-info"):
                info_dir = parts[0]
                if entry.name in _INSTALLER_FILES:
                    continue
            data = Path(str(entry.locate())).read_bytes()
            archive.writestr(entry.as_posix(), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{entry.as_posix()},sha256={digest},{len(data)}")
        record = f"{info_dir}/RECORD"
        archive.writestr(record, "\n".join([*records, f"{record},,"]) + "\n")
    return wheel


def seed_wheels() -> Path:
    """virtualenv's bundled pip and setuptools wheels (setuptools is waslint's build backend)."""
    from virtualenv.seed.wheels.embed import BUNDLE_FOLDER

    return Path(BUNDLE_FOLDER)


def build_wheelhouse(folder: Path) -> Path:
    """Wheels of everything the base install needs, made offline from this environment."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in sorted(closure(base_requirements())):
        repack(name, folder)
    return folder
