"""Render a kustomize build root with the real kustomize, and read where each object came from.

The renderer is `kustomize build` when `kustomize` is on PATH, else `kubectl kustomize` (kubectl
bundles kustomize), or the command `--kustomize-cmd` names (the root's folder is appended).

To learn each object's source file without touching the user's files, the root is built through a
wrapper kustomization in a temporary folder outside the tree, whose only resource is the root
(by a relative path: kustomize refuses absolute ones) and which asks for kustomize's build metadata
`buildMetadata: [originAnnotations]` (kubernetes-sigs/kustomize
site/content/en/docs/Reference/API/Kustomization File/buildMetadata.md; api/krusty/
originannotation_test.go): every object then carries `config.kubernetes.io/origin` with the
`path` of its resource file (rooted at the folder the build was invoked on, here the wrapper's),
or `configuredIn`/`configuredBy` for generated objects. A folder resource is allowed outside a
kustomization's root under kustomize's default load restrictor, so the root's own files are read
with exactly the restrictions its own build has; the root's `sortOptions` (read only at the top
of a build) is copied to the wrapper. The output is what the root renders, plus that annotation
(`tests/test_kustomize.py` checks it byte for byte with the real kubectl), which `strip_origin`
removes before linting.

Never the network: the caller does not build a root that names a remote base (see graph.py), and
the child runs with git limited to local protocols, proxies pointing at a closed local port and a
timeout; its output goes through the bounded reader.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

import yaml

from waslint.io.reading import DEFAULT_LIMIT, InputError, TooLarge, read_bounded

ORIGIN = "config.kubernetes.io/origin"
ROOT_LABEL = "waslint.io/render-root"  # which root of a batch an object belongs to
_ROOT_MARK = re.compile(r'^\s+waslint\.io/render-root: "?(\d+)"?\s*$', re.MULTILINE)
_DOCUMENT_BREAK = re.compile(r"^---\s*$\n?", re.MULTILINE)
RENDER_TIMEOUT = 120.0  # seconds for one build
_STDERR_LIMIT = 16 * 1024
_OFFLINE = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ALLOW_PROTOCOL": "file",
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "all_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
}


@dataclass(frozen=True)
class Renderer:
    command: tuple[str, ...]

    @property
    def label(self) -> str:
        return " ".join(self.command)


class RendererError(Exception):
    """--kustomize-cmd names no program that can be run."""


def find_renderer(command: str | None = None) -> Renderer | None:
    """The renderer of this run: `command` (split as a shell would), else `kustomize build`, else
    `kubectl kustomize`; None when none is installed."""
    if command:
        words = tuple(shlex.split(command))
        if not words or shutil.which(words[0]) is None:
            raise RendererError(f"--kustomize-cmd {command!r}: {words[0] if words else command!r} is not on PATH")
        return Renderer(words)
    if shutil.which("kustomize"):
        return Renderer(("kustomize", "build"))
    if shutil.which("kubectl"):
        return Renderer(("kubectl", "kustomize"))
    return None


@dataclass
class Rendered:
    text: str | None  # the rendered YAML, with origin annotations
    wrapper: str  # the wrapper's folder (origin paths are relative to it)
    error: str | None = None


def render_root(renderer: Renderer, root_folder: str, sort_options: Any = None) -> Rendered:
    """Build `root_folder` through a wrapper kustomization; never raises for a failed build."""
    wrapper = tempfile.mkdtemp(prefix="waslint-kustomize-")
    try:
        relative = os.path.relpath(os.path.realpath(root_folder), os.path.realpath(wrapper))
        body: dict[str, Any] = {"resources": [relative], "buildMetadata": ["originAnnotations"]}
        if sort_options is not None:
            body["sortOptions"] = sort_options
        with open(os.path.join(wrapper, "kustomization.yaml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump(body, handle)
        text, error = _run(renderer, wrapper, root_folder)
        return Rendered(text, os.path.realpath(wrapper), error)
    finally:
        shutil.rmtree(wrapper, ignore_errors=True)


def render_roots(renderer: Renderer, roots: list[tuple[str, Any]]) -> list[Rendered]:
    """Build several roots (folder, sortOptions) in one kustomize run when they can be: a wrapper
    whose resources are one intermediate kustomization per root, each adding only the label
    `waslint.io/render-root` to its root's objects (`labels` without selectors or templates: the
    objects' own metadata.labels), so the output splits back by root. One process instead of one
    per root: kubectl's start is most of a small build. When the batch fails (two roots render an
    object of the same identity, or one root does not build) it is split in halves, down to
    single roots, each built alone: a failure is then that root's own. A root with sortOptions is
    always built alone (sortOptions is read only at the top of a build)."""
    if len(roots) == 1 or any(sort is not None for _, sort in roots):
        return [render_root(renderer, folder, sort) for folder, sort in roots]
    wrapper = tempfile.mkdtemp(prefix="waslint-kustomize-")
    try:
        top: dict[str, Any] = {"resources": [], "buildMetadata": ["originAnnotations"]}
        for number, (folder, _) in enumerate(roots):
            middle = os.path.join(wrapper, f"root-{number}")
            os.mkdir(middle)
            body = {
                "resources": [os.path.relpath(os.path.realpath(folder), os.path.realpath(middle))],
                "labels": [{"pairs": {ROOT_LABEL: str(number)}}],
            }
            with open(os.path.join(middle, "kustomization.yaml"), "w", encoding="utf-8") as handle:
                yaml.safe_dump(body, handle)
            top["resources"].append(f"root-{number}")
        with open(os.path.join(wrapper, "kustomization.yaml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump(top, handle)
        text, _ = _run(renderer, wrapper, "")  # a failure is each root's own to report
        real = os.path.realpath(wrapper)
    finally:
        shutil.rmtree(wrapper, ignore_errors=True)
    if text is None:
        half = len(roots) // 2
        return render_roots(renderer, roots[:half]) + render_roots(renderer, roots[half:])
    pieces: list[list[str]] = [[] for _ in roots]
    for piece in _DOCUMENT_BREAK.split(text):
        found = _ROOT_MARK.search(piece)
        if found is not None and int(found.group(1)) < len(roots):
            pieces[int(found.group(1))].append(piece)
    return [Rendered("---\n".join(own), real) for own in pieces]


def _run(renderer: Renderer, wrapper: str, root_folder: str) -> tuple[str | None, str | None]:
    out_path = os.path.join(wrapper, "out.yaml")
    err_path = os.path.join(wrapper, "err.txt")
    environment = {**os.environ, **_OFFLINE}
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            done = subprocess.run(
                [*renderer.command, wrapper],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=environment,
                timeout=RENDER_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None, f"{renderer.label} did not finish within {RENDER_TIMEOUT:.0f} s"
        except OSError as problem:
            return None, f"{renderer.label} could not be run: {problem.strerror or problem}"
    if done.returncode != 0:
        with open(err_path, "rb") as err:
            said = err.read(_STDERR_LIMIT).decode("utf-8", "replace")
        return None, clean_error(said, wrapper, root_folder) or f"{renderer.label} exited with status {done.returncode}"
    try:
        return read_bounded(out_path, DEFAULT_LIMIT).decode("utf-8", "replace"), None
    except TooLarge:
        return None, f"{renderer.label} rendered more than {DEFAULT_LIMIT // (1024 * 1024)} MiB"
    except InputError as problem:
        return None, str(problem)


def clean_error(said: str, wrapper: str, root_folder: str = "") -> str:
    """kustomize's error in one line: without kubectl's log prefix (`E1203 ... "command failed"
    err="..."`) or `Error: `, without the wrapper's own layer (`accumulating resources from
    '<root>' ... recursed accumulation of path '<root>': `), paths relative to the current folder."""
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    text = " ".join(lines)
    marker = 'err="'
    if marker in text:
        text = text[text.index(marker) + len(marker) :].rstrip('"').replace('\\"', '"').replace("\\'", "'")
    text = text.removeprefix("Error: ").removeprefix("error: ")
    if root_folder:
        layer = f"recursed accumulation of path '{os.path.realpath(root_folder)}': "
        if layer in text:
            text = text[text.index(layer) + len(layer) :]
    here = os.path.realpath(os.getcwd())
    for folder in (os.path.realpath(wrapper), wrapper):
        text = text.replace(folder + os.sep, "").replace(folder, ".")
    return text.replace(here + os.sep, "").strip()


def strip_origin(data: Any) -> dict[str, Any] | None:
    """Remove the origin annotation (and a batch's root label) the wrapper asked for; returns the
    origin parsed (`path`, `repo`, `configuredIn`, `configuredBy`), or None. An `annotations` or
    `labels` map left empty is removed."""
    if not isinstance(data, dict):
        return None
    metadata = data.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    if isinstance(labels, dict) and ROOT_LABEL in labels:
        del labels[ROOT_LABEL]
        if not labels and isinstance(metadata, dict):
            del metadata["labels"]
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if not isinstance(annotations, dict) or ORIGIN not in annotations:
        return None
    text = annotations.pop(ORIGIN)
    if not annotations and isinstance(metadata, dict):
        del metadata["annotations"]
    try:
        origin = yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError:
        return None
    return origin if isinstance(origin, dict) else None
