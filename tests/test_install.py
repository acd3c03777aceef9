"""The install: what `pip install waslint` brings (offline: read from the installed distributions'
metadata), and the cluster commands without the `cluster` extra."""

from __future__ import annotations

import re
import sys
from importlib import metadata

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT, run_cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

BASE_INSTALL_LIMIT = 12  # issue 19: a linter's install, not a cluster client's


def _project() -> dict[str, object]:
    project: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project


def _wanted(requirement: str, extras: frozenset[str]) -> Requirement | None:
    parsed = Requirement(requirement)
    if parsed.marker is None:
        return parsed
    environment = {key: str(value) for key, value in default_environment().items()}
    chosen = any(parsed.marker.evaluate({**environment, "extra": extra}) for extra in extras or {""})
    return parsed if chosen else None


def closure(requirements: list[str]) -> set[str]:
    """Every distribution `pip install` brings for these requirements (no extras below the top),
    walked through the installed distributions' own metadata: nothing is fetched."""
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


def test_the_base_install_is_at_most_twelve_distributions() -> None:
    base = closure([str(text) for text in _project()["dependencies"]])  # type: ignore[attr-defined]
    installed = {"waslint", *base}
    assert len(installed) <= BASE_INSTALL_LIMIT, sorted(installed)
    assert "kubernetes" not in installed and "typer" not in installed and "click" not in installed


def test_the_cluster_extra_brings_the_kubernetes_client() -> None:
    extras: dict[str, list[str]] = _project()["optional-dependencies"]  # type: ignore[assignment]
    cluster = closure(extras["cluster"])
    assert "kubernetes" in cluster
    assert "waslint[cluster]" in extras["test"]  # the suite runs the cluster commands


# A child in which the kubernetes client is not importable, as after `pip install waslint`.
WITHOUT_CLIENT = """
import sys
sys.modules["kubernetes"] = None
sys.argv = ["waslint", *sys.argv[1:]]
from waslint.cli import main
main()
"""


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["audit"], "audit"),
        (["snapshot", "capture", "-o", "snap.json"], "snapshot capture"),
        (["lint", "--cluster", "fixtures/demo"], "lint --cluster"),
    ],
)
def test_cluster_commands_without_the_extra_exit_2_with_the_line_to_run(
    args: list[str], command: str, tmp_path: object
) -> None:
    result = run_cli(*args, program=[sys.executable, "-c", WITHOUT_CLIENT], cwd=ROOT)
    assert result.returncode == 2, result.stdout + result.stderr
    line = result.stderr.strip()
    assert "\n" not in line
    assert line.startswith(f"waslint: error: `waslint {command}` needs the kubernetes client")
    assert line.endswith('pip install "waslint[cluster]"')
    assert not (ROOT / "snap.json").exists()


def test_lint_fix_and_feasibility_run_without_the_kubernetes_client() -> None:
    child = [sys.executable, "-c", WITHOUT_CLIENT]
    lint = run_cli("lint", "--format", "json", "fixtures/demo", program=child, cwd=ROOT)
    assert lint.returncode == 1 and '"WAS201"' in lint.stdout, lint.stderr
    fixed = run_cli("fix", "--diff", "fixtures/demo", program=child, cwd=ROOT)
    assert fixed.returncode == 1 and fixed.stdout.startswith("---"), fixed.stderr
    feasible = run_cli(
        "feasibility", "--snapshot", "fixtures/snapshots/cluster.yaml", "fixtures/feasibility/", program=child, cwd=ROOT
    )
    assert feasible.returncode == 1 and "INFEASIBLE" in feasible.stdout, feasible.stderr
    assert re.search(r"WAS103\s+legacy-disruption-mode", run_cli("rules", program=child).stdout)
