"""The install: what `pip install waslint` brings (offline: read from the installed distributions'
metadata), and the cluster commands without the `cluster` extra."""

from __future__ import annotations

import re
import sys

import pytest
from wheelhouse import base_requirements, closure, project

from conftest import ROOT, run_cli

BASE_INSTALL_LIMIT = 12  # issue 19: a linter's install, not a cluster client's


def test_the_base_install_is_at_most_twelve_distributions() -> None:
    installed = {"waslint", *closure(base_requirements())}
    assert len(installed) <= BASE_INSTALL_LIMIT, sorted(installed)
    assert "kubernetes" not in installed and "typer" not in installed and "click" not in installed


def test_the_cluster_extra_brings_the_kubernetes_client() -> None:
    extras: dict[str, list[str]] = project()["optional-dependencies"]  # type: ignore[assignment]
    assert "kubernetes" in closure(extras["cluster"])
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
