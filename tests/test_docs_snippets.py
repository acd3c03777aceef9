"""Every `console` snippet of the README and docs/ runs as written and prints what the page shows.

A snippet is a fenced ```console block: `$ COMMAND` lines, each followed by what it prints (stdout
and stderr as a terminal shows them, NO_COLOR, 100 columns). A line `[... cut ...]` (any words
inside the brackets) marks an excerpt: the lines around it must appear in that order, with
anything in between. The commands run with bash in a scratch folder holding a copy of `fixtures/`,
with this checkout's `waslint` first on PATH.

Two HTML comments just above a block prepare it:

- `<!-- setup: STEP; STEP -->`, each STEP one of `mkdir DIR...`, `copy DEST SOURCE` (SOURCE from
  the checkout), `link PATH TARGET` (a symbolic link), `fifo PATH`, `needs CMD|CMD...` (the block
  skips, saying why, unless one of the commands is on PATH: the kustomize renderer);
- `<!-- demo: ARGS -->`: `python scripts/demo_cluster.py ARGS` runs while the block does, its
  kubeconfig at `./demo-kubeconfig`. A block that names `demo-kubeconfig` without this comment gets
  the default demo (a 1.36 cluster), as the README's audit demo does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CUT = re.compile(r"^\[\.\.\..*\]$")
SETUP = re.compile(r"<!--\s*setup:(.*?)-->", re.S)
DEMO = re.compile(r"<!--\s*demo:(.*?)-->", re.S)


@dataclass
class Step:
    command: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Snippet:
    page: Path
    line: int
    steps: list[Step]
    setup: list[str]
    demo: str | None

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def snippets() -> list[Snippet]:
    found = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines):
            if line.strip() != "```console":
                continue
            end = lines.index("```", number + 1)
            before = "\n".join(lines[max(0, number - 3) : number])
            found.append(_snippet(page, number + 1, lines[number + 1 : end], before))
    return found


def _snippet(page: Path, line: int, body: list[str], before: str) -> Snippet:
    steps: list[Step] = []
    for text in body:
        if text.startswith("$ "):
            steps.append(Step(text[2:]))
        else:
            assert steps, f"{page.name}:{line}: a console block starts with `$ COMMAND`"
            steps[-1].shown.append(text)
    setup = SETUP.search(before)
    demo = DEMO.search(before)
    demo_args = demo.group(1).strip() if demo else ("" if "demo-kubeconfig" in "\n".join(body) else None)
    steps_of_setup = [step.strip() for step in setup.group(1).split(";") if step.strip()] if setup else []
    return Snippet(page, line, steps, steps_of_setup, demo_args)


SNIPPETS = snippets()


def test_the_pages_have_snippets_and_the_readme_shows_audit_and_capture() -> None:
    readme = [snippet for snippet in SNIPPETS if snippet.page.name == "README.md"]
    commands = [step.command for snippet in readme for step in snippet.steps]
    assert any(command.startswith("waslint audit --kubeconfig demo-kubeconfig") for command in commands)
    assert any(command.startswith("waslint snapshot capture --kubeconfig demo-kubeconfig") for command in commands)
    assert any(command.startswith("waslint feasibility --snapshot demo-snapshot.json") for command in commands)
    assert len(SNIPPETS) >= 10


def matches(shown: list[str], actual: list[str]) -> bool:
    """`shown` is `actual`, or an excerpt of it cut at `[... cut ...]` lines."""
    shown = [line.rstrip() for line in shown]
    actual = [line.rstrip() for line in actual]
    while shown and not shown[-1]:
        shown.pop()
    while actual and not actual[-1]:
        actual.pop()
    pieces: list[list[str]] = [[]]
    for line in shown:
        if CUT.match(line):
            pieces.append([])
        else:
            pieces[-1].append(line)
    if len(pieces) == 1:
        return shown == actual
    if actual[: len(pieces[0])] != pieces[0] or (pieces[-1] and actual[len(actual) - len(pieces[-1]) :] != pieces[-1]):
        return False
    at = len(pieces[0])
    for piece in pieces[1:-1]:
        at = _find(actual, piece, at)
        if at < 0:
            return False
        at += len(piece)
    return at <= len(actual) - len(pieces[-1])


def _find(lines: list[str], piece: list[str], start: int) -> int:
    for position in range(start, len(lines) - len(piece) + 1):
        if lines[position : position + len(piece)] == piece:
            return position
    return -1


def test_the_excerpt_matcher() -> None:
    assert matches(["a", "b"], ["a", "b", ""])
    assert not matches(["a"], ["a", "b"])
    assert matches(["a", "[... cut ...]", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "[... cut: 2 lines ...]", "c", "[... cut ...]"], ["a", "b", "c", "d"])
    assert not matches(["a", "[... cut ...]", "x"], ["a", "b"])
    assert not matches(["b", "[... cut ...]"], ["a", "b"])


def _prepare(folder: Path, steps: list[str], path: str) -> None:
    for step in steps:
        verb, *words = step.split()
        if verb == "needs":
            wanted = words[0].split("|")
            if not any(shutil.which(command, path=path) for command in wanted):
                pytest.skip(f"none of {', '.join(wanted)} on PATH")
        elif verb == "mkdir":
            for name in words:
                (folder / name).mkdir(parents=True, exist_ok=True)
        elif verb == "copy":
            (folder / words[0]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / words[1], folder / words[0])
        elif verb == "link":
            os.symlink(words[1], folder / words[0])
        elif verb == "fifo":
            os.mkfifo(folder / words[0])
        else:
            raise AssertionError(f"unknown setup step {step!r}")


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    return tmp_path


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "WASLINT_"))}
    env.update({"NO_COLOR": "1", "COLUMNS": "100", "PYTHONUNBUFFERED": "1", "KUBECONFIG": os.devnull})
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


@dataclass
class Demo:
    process: subprocess.Popen[str]


def _start_demo(folder: Path, args: str, env: dict[str, str]) -> Iterator[None]:
    command = [sys.executable, str(ROOT / "scripts" / "demo_cluster.py"), *args.split()]
    process = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        said = [process.stdout.readline(), process.stdout.readline()]
        assert said[1].startswith("kubeconfig: "), "".join(said) + process.stdout.read()
        yield
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash missing")
@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda snippet: snippet.name)
def test_the_snippet_runs_as_written(snippet: Snippet, scratch: Path) -> None:
    env = _environment()
    _prepare(scratch, snippet.setup, env["PATH"])
    demo = _start_demo(scratch, snippet.demo, env) if snippet.demo is not None else iter([None])
    next(demo)
    try:
        for step in snippet.steps:
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-c", step.command],
                cwd=scratch,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=300,
            )
            shown = "\n".join(step.shown)
            assert matches(step.shown, done.stdout.split("\n")), (
                f"{snippet.name}: `$ {step.command}` printed\n{done.stdout}\nthe page shows\n{shown}"
            )
    finally:
        next(demo, None)
