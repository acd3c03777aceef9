"""Shared test helpers: lint text or paths in-process, run the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from waslint.findings import Finding
from waslint.io.config import Config
from waslint.io.loader import parse_bytes
from waslint.knowledge.releases import parse_release
from waslint.lint.engine import LintResult, lint_paths, lint_sources
from waslint.lint.options import LintOptions

pytest_plugins = ["pytester"]  # tests/test_suite_guarantees.py runs the rule-fixture tests in-process

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


# -- property tests: deterministic by default ---------------------------------------------------------
#
# `ci` (the default, what `.ci/run`'s plain `python -m pytest` runs): every property test draws the
# same examples on every run and machine (derandomize: the seed is derived from the test itself),
# nothing is read from or written to an example database, and no deadline (timing on a shared
# 2-core machine is noise; speed is measured in bench/). A failure prints the example and the
# `@reproduce_failure` blob.
#
# `explore`, for a longer random search on your machine: ten times the examples, a fresh random
# seed each run, failures kept in `.hypothesis/` and replayed first next time, and a 2 s deadline
# per example (a hint of superlinear work):
#     WASLINT_HYPOTHESIS_PROFILE=explore python -m pytest tests/test_fix_property.py
#     python -m pytest --hypothesis-profile explore --hypothesis-seed 1234   # one seed again
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", max_examples=1000, derandomize=False, deadline=2000, print_blob=True)
settings.load_profile(os.environ.get("WASLINT_HYPOTHESIS_PROFILE", "ci"))


def examples(ci: int) -> int:
    """A property test's example count: `ci` under the `ci` profile, scaled by the loaded
    profile's max_examples (against hypothesis's default of 100) under another."""
    return max(ci * settings().max_examples // 100, 1)


def lint_options(**options: Any) -> LintOptions:
    """LintOptions from keyword fields; `target` may be text ("1.36"), `extra` a dict of the
    typed input fields (snapshot_path, gates_path, base_ref)."""
    extra = options.pop("extra", {})
    if isinstance(options.get("target"), str):
        release = parse_release(options["target"])
        assert release is not None, options["target"]
        options["target"] = release
    return LintOptions(**options, **extra)


class RuleCrashed(AssertionError):
    """A run recorded an internal error (a rule or fixer raised): the test fails, whatever else
    it asserts, unless it asked for the error with `allow_internal_errors=True`."""


def checked(result: LintResult, allow_internal_errors: bool = False) -> LintResult:
    """The result, after failing the test when the run recorded an internal error. The engine
    catches a rule's exception so the other findings are still reported (the CLI then prints the
    error and exits 2); a test that only looked at findings would pass on a rule that raises."""
    if result.internal_errors and not allow_internal_errors:
        raise RuleCrashed("the run recorded internal errors:\n" + "\n".join(result.internal_errors))
    return result


def lint_text(
    text: str, path: str = "test.yaml", *, allow_internal_errors: bool = False, **options: Any
) -> list[Finding]:
    """Lint one in-memory file; options are LintOptions fields (target, select, extra, ...).
    Fails the test on an internal error (see `checked`)."""
    source = parse_bytes(path, text.encode("utf-8"))
    return checked(lint_sources([source], lint_options(**options)), allow_internal_errors).findings


def lint_texts(files: dict[str, str], *, allow_internal_errors: bool = False, **options: Any) -> LintResult:
    sources = [parse_bytes(path, text.encode("utf-8")) for path, text in files.items()]
    return checked(lint_sources(sources, lint_options(**options)), allow_internal_errors)


def lint_path(
    *paths: str | os.PathLike[str],
    config: Config | None = None,
    allow_internal_errors: bool = False,
    **options: Any,
) -> LintResult:
    result, errors = lint_paths([str(p) for p in paths], lint_options(**options), config)
    assert not errors, errors
    return checked(result, allow_internal_errors)


def codes(findings: list[Finding]) -> list[str]:
    return [finding.code for finding in findings]


def run_cli(
    *args: str,
    stdin: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
    program: list[str] | None = None,
    **popen: Any,
) -> subprocess.CompletedProcess[str]:
    """`python -m waslint ARGS` in a child (or `program ARGS`: a script that prepares the process,
    then calls `waslint.cli.main` with its arguments)."""
    full_env = dict(os.environ)
    for name in ("WASLINT_DEBUG", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "COLUMNS"):
        full_env.pop(name, None)  # the reports must not depend on where the tests run
    full_env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run(
        [*(program or [sys.executable, "-m", "waslint"]), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        **popen,
    )


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the checkout")


def rewrite_snapshot(path: Path, content: str | bytes) -> None:
    """Record a snapshot (`--update-expected`, `WASLINT_REGEN=1`). A changed or new one fails the
    test once, naming the file, so an update run is never mistaken for a passing check: review
    `git diff`, then run again."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    pytest.fail(f"rewrote {path.relative_to(ROOT)}: review the change, then run again", pytrace=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-expected",
        action="store_true",
        help="rewrite fixtures/rules/<CODE>/expected.txt and whole-set.txt from today's findings (a changed"
        " file fails once: review it, run again)",
    )


# -- live-cluster tests: the test API server (tests/apiserver.py) behind a kubeconfig ------------------


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from apiserver import make_tls

    return make_tls(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def serve(tls_files: Any, tmp_path: Path) -> Any:
    """serve(cluster) -> (server, kubeconfig path): the cluster on an HTTPS server with a test CA."""
    from apiserver import APIServer

    servers: list[Any] = []

    def start(cluster: Any, **kubeconfig: Any) -> tuple[Any, Path]:
        server = APIServer(cluster, tls_files).__enter__()
        servers.append(server)
        path = server.write_kubeconfig(tmp_path / f"kubeconfig-{len(servers)}", **kubeconfig)
        return server, path

    yield start
    for server in servers:
        server.__exit__(None, None, None)


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str


def in_process(*args: str, cwd: str | os.PathLike[str] | None = None) -> CliRun:
    """The CLI run in this process: the live-cluster tests run many commands, and a subprocess start
    (interpreter, the kubernetes client) costs more than the command. Each test module keeps at
    least one real `python -m waslint` run."""
    import contextlib
    import io

    from waslint.cli import run

    out, err = io.StringIO(), io.StringIO()
    saved = {name: os.environ.get(name) for name in ("NO_COLOR", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY")}
    os.environ["NO_COLOR"] = "1"
    os.environ.pop("GITHUB_ACTIONS", None)
    os.environ.pop("GITHUB_STEP_SUMMARY", None)
    previous = os.getcwd()
    os.chdir(cwd or previous)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run(list(args))
    finally:
        os.chdir(previous)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return CliRun(status, out.getvalue(), err.getvalue())


# A child that drops root before it runs the CLI (CI runs as root, and root reads and writes any
# file). The interpreter lives where an unprivileged user may not read, so every module the run
# needs is imported first, then the user changes.
_AS_NOBODY = """
import os, pkgutil, sys, importlib
import encodings.utf_8_sig, encodings.utf_16, encodings.utf_16_le, encodings.utf_16_be, encodings.latin_1
import difflib, tempfile, traceback, shlex, json, unicodedata
try:
    import tomllib
except ImportError:
    pass
import waslint
for module in pkgutil.walk_packages(waslint.__path__, "waslint."):
    if not module.name.endswith("__main__"):
        importlib.import_module(module.name)
from waslint.cli import main
if os.getuid() == 0:
    os.setgroups([])
    os.setgid(int(sys.argv[1]))
    os.setuid(int(sys.argv[2]))
sys.argv = ["waslint", *sys.argv[3:]]
main()
"""
NOBODY = (65534, 65534)


def run_cli_unprivileged(*args: str, cwd: str | os.PathLike[str] | None = None) -> subprocess.CompletedProcess[str]:
    """The CLI as an ordinary user: as `nobody` (uid/gid 65534) when the tests run as root."""
    full_env = dict(os.environ)
    full_env.pop("WASLINT_DEBUG", None)
    full_env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + full_env.get("PYTHONPATH", "")
    gid, uid = NOBODY
    return subprocess.run(
        [sys.executable, "-c", _AS_NOBODY, str(gid), str(uid), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=120,
    )


@pytest.fixture
def shared_tmp() -> Any:
    """A temporary folder an unprivileged child can enter (pytest's tmp_path is root-only)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="waslint-test-"))
    folder.chmod(0o777)
    yield folder
    for root, dirs, _ in os.walk(folder):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
