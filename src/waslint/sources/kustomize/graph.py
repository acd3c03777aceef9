"""The kustomize build graph of a run: which kustomizations include which, which files they use
as patches, as resources, as generator/transformer inputs, and which roots include a file.

One reading of every kustomization (`kustomization.yaml`, `.yml`, `Kustomization`), from the
run's files or, for a kustomization a run's kustomization includes, from disk through the same
bounded reader. Nothing is fetched: a resource or component that is a URL, a `git::`/`github.com/`
address, or no local file or folder at all (kustomize would then try it as a remote base) is
recorded as remote, and a root whose build would reach it is never built. The fields read are
kustomize's (kubectl.docs.kubernetes.io/references/kustomize/kustomization/): `resources`,
`bases`, `components`, `patches`, `patchesStrategicMerge`, `patchesJson6902`, `replacements`,
`configMapGenerator`/`secretGenerator` inputs, `generators`, `transformers`, `validators`,
`configurations`, `crds`, `openapi`, `helmCharts`, and the transformers that write values
(`namePrefix`, `nameSuffix`, `namespace`, `images`, `replicas`, labels and annotations).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from waslint.core.model import Path
from waslint.io.loader import SourceFile, parse_text, read_source
from waslint.sources.kustomize import KUSTOMIZATION_FILES, is_kustomization

_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git::|git@|ssh:|github\.com/|gitlab\.com/|bitbucket\.org/)", re.I)
MAX_KUSTOMIZATIONS = 10_000


def kustomization_in(folder: str) -> str | None:
    """The kustomization file of a folder (kustomize's order of names), or None."""
    for name in KUSTOMIZATION_FILES:
        candidate = os.path.join(folder, name)
        if os.path.isfile(candidate):
            return candidate
    return None


@dataclass
class Entry:
    """One reference of a kustomization to a file or folder, and where it is written."""

    field: str
    text: str
    path: Path  # of the entry in the kustomization document
    target: str | None = None  # the real path it resolves to; None when remote
    remote: bool = False


@dataclass(eq=False)
class Patch:
    """A patch of a kustomization: a file, or inline text at `path` of the kustomization. Hashed
    by identity: a run reads each patch once (`origins.applied_patches`)."""

    owner: Kustomization
    path: Path
    file: str | None = None  # real path of the patch file
    inline: str | None = None
    json6902: bool | None = None  # None: told by its content (a list of operations)
    target: dict[str, Any] | None = None


@dataclass
class Kustomization:
    file: str  # real path
    source: SourceFile
    data: dict[str, Any]
    component: bool = False
    resources: list[Entry] = field(default_factory=list)  # resources and bases
    components: list[Entry] = field(default_factory=list)
    plugins: list[Entry] = field(default_factory=list)  # generators, transformers, validators
    patches: list[Patch] = field(default_factory=list)
    configs: list[str] = field(default_factory=list)  # real paths of the other files it reads
    remote: list[Entry] = field(default_factory=list)
    helm: bool = False  # helmCharts: needs `--enable-helm` and helm, charts may be fetched

    @property
    def folder(self) -> str:
        return os.path.dirname(self.file)

    def includes(self) -> Iterator[str]:
        """Real paths of the kustomization files it includes."""
        for entry in [*self.resources, *self.components, *self.plugins]:
            if entry.target is not None and is_kustomization(entry.target):
                yield entry.target


class BuildGraph:
    def __init__(self) -> None:
        self.kustomizations: dict[str, Kustomization] = {}
        self.unreadable: list[str] = []

    @classmethod
    def read(cls, sources: Iterable[SourceFile]) -> BuildGraph:
        """The graph of the run's kustomization files and of every local kustomization they
        include (read from disk when the run does not hold it)."""
        graph = cls()
        known = {os.path.realpath(source.path): source for source in sources if source.path != "-"}
        pending = [real for real in known if is_kustomization(real)]
        while pending and len(graph.kustomizations) < MAX_KUSTOMIZATIONS:
            real = pending.pop()
            if real in graph.kustomizations:
                continue
            source = known.get(real) or read_source(real)
            if not source.parsed:
                parse_text(source)
            if source.read_error is not None:
                graph.unreadable.append(source.read_error)
                continue
            kustomization = _read_kustomization(real, source)
            graph.kustomizations[real] = kustomization
            pending.extend(included for included in kustomization.includes() if included not in graph.kustomizations)
        return graph

    def roots(self, in_run: Iterable[str]) -> list[Kustomization]:
        """The kustomizations of the run that no other kustomization of the run includes (directly
        or through others), components left out: each is what one cluster receives."""
        run = [real for real in in_run if real in self.kustomizations]
        reached: set[str] = set()
        for real in run:
            reached |= self.closure_kustomizations(real) - {real}
        return [
            self.kustomizations[real]
            for real in sorted(run)
            if real not in reached and not self.kustomizations[real].component
        ]

    def closure_kustomizations(self, real: str) -> set[str]:
        seen: set[str] = set()
        pending = [real]
        while pending:
            current = pending.pop()
            if current in seen or current not in self.kustomizations:
                continue
            seen.add(current)
            pending.extend(self.kustomizations[current].includes())
        return seen

    def closure_files(self, root: Kustomization) -> set[str]:
        """Every real file path a build of `root` reads."""
        files: set[str] = set()
        for real in self.closure_kustomizations(root.file):
            kustomization = self.kustomizations[real]
            files.add(real)
            files.update(entry.target for entry in kustomization.resources if entry.target is not None)
            files.update(patch.file for patch in kustomization.patches if patch.file is not None)
            files.update(kustomization.configs)
        return files

    def remote_of(self, root: Kustomization) -> list[tuple[Kustomization, Entry]]:
        """The remote references a build of `root` would fetch."""
        return [
            (self.kustomizations[real], entry)
            for real in sorted(self.closure_kustomizations(root.file))
            for entry in self.kustomizations[real].remote
        ]

    def uses_helm(self, root: Kustomization) -> bool:
        return any(self.kustomizations[real].helm for real in self.closure_kustomizations(root.file))

    def patch_files(self) -> set[str]:
        return {patch.file for k in self.kustomizations.values() for patch in k.patches if patch.file is not None}

    def config_files(self) -> set[str]:
        return {path for k in self.kustomizations.values() for path in k.configs}

    def resource_files(self) -> set[str]:
        return {
            entry.target
            for k in self.kustomizations.values()
            for entry in k.resources
            if entry.target is not None and not is_kustomization(entry.target)
        }

    def chain(self, root: Kustomization, resource: str) -> list[Kustomization]:
        """The kustomizations from the one that lists `resource` up to `root` (innermost first):
        whose patches and transformers act on the resource's objects, in that order."""
        found = self._chain(root, resource, set())
        return list(reversed(found)) if found is not None else [root]

    def _chain(self, current: Kustomization, resource: str, seen: set[str]) -> list[Kustomization] | None:
        if current.file in seen:
            return None
        seen.add(current.file)
        if any(entry.target == resource for entry in current.resources):
            return [current]
        for entry in [*current.resources, *current.components]:
            if entry.target is not None and entry.target in self.kustomizations:
                below = self._chain(self.kustomizations[entry.target], resource, seen)
                if below is not None:
                    return [current, *below]
        return None

    def components_of(self, kustomization: Kustomization) -> list[Kustomization]:
        return [
            self.kustomizations[entry.target]
            for entry in kustomization.components
            if entry.target is not None and entry.target in self.kustomizations
        ]


# --------------------------------------------------------------------------- reading


def _read_kustomization(real: str, source: SourceFile) -> Kustomization:
    data = source.documents[0].data if source.documents and isinstance(source.documents[0].data, dict) else {}
    kustomization = Kustomization(real, source, data, component=data.get("kind") == "Component")
    folder = os.path.dirname(real)
    for name in ("resources", "bases"):
        for position, text in _strings(data.get(name)):
            kustomization.resources.append(_entry(kustomization, name, text, (name, position), folder))
    for position, text in _strings(data.get("components")):
        kustomization.components.append(_entry(kustomization, "components", text, ("components", position), folder))
    for name in ("generators", "transformers", "validators"):
        for position, text in _strings(data.get(name)):
            entry = _entry(kustomization, name, text, (name, position), folder, inline_ok=True)
            if entry.target is not None and is_kustomization(entry.target):
                kustomization.plugins.append(entry)
            elif entry.target is not None:
                kustomization.configs.append(entry.target)
    _read_patches(kustomization, data, folder)
    for path in _config_paths(data):
        resolved = _local(folder, path)
        if resolved is not None:
            kustomization.configs.append(resolved)
    charts = data.get("helmCharts") or data.get("helmChartInflationGenerator")
    if charts:
        kustomization.helm = True
        for position, chart in enumerate(charts if isinstance(charts, list) else []):
            repo = chart.get("repo") if isinstance(chart, dict) else None
            if isinstance(repo, str) and repo:
                entry = Entry("helmCharts", repo, ("helmCharts", position, "repo"), None, True)
                kustomization.remote.append(entry)
    return kustomization


def _strings(value: Any) -> Iterator[tuple[int, str]]:
    if isinstance(value, list):
        for position, item in enumerate(value):
            if isinstance(item, str):
                yield position, item


def _entry(
    kustomization: Kustomization, name: str, text: str, path: Path, folder: str, *, inline_ok: bool = False
) -> Entry:
    if inline_ok and "\n" in text:
        return Entry(name, text, path)
    full = os.path.realpath(os.path.join(folder, text))
    if os.path.isdir(full):
        found = kustomization_in(full)
        if found is not None:
            return Entry(name, text, path, os.path.realpath(found))
        return Entry(name, text, path)  # kustomize refuses a folder without a kustomization
    if os.path.isfile(full):
        return Entry(name, text, path, full)
    if looks_remote(text):  # not local: kustomize would fetch it
        entry = Entry(name, text, path, None, True)
        kustomization.remote.append(entry)
        return entry
    return Entry(name, text, path)  # missing: the build fails with kustomize's own error


def looks_remote(text: str) -> bool:
    """Whether kustomize would read an entry that is no local file or folder as a remote base:
    a URL, a git address, `?ref=`, or a host name as its first segment (`example.com/org/repo`)."""
    text = text.strip()
    first = text.split("/", 1)[0]
    return bool(_REMOTE.match(text)) or "?ref=" in text or ("." in first.strip(".") and "/" in text)


def _local(folder: str, text: str) -> str | None:
    if looks_remote(text) and not os.path.exists(os.path.join(folder, text)):
        return None
    full = os.path.realpath(os.path.join(folder, text))
    return full if os.path.isfile(full) else None


def _read_patches(kustomization: Kustomization, data: dict[str, Any], folder: str) -> None:
    for position, item in enumerate(data.get("patchesStrategicMerge") or []):
        if not isinstance(item, str):
            continue
        path: Path = ("patchesStrategicMerge", position)
        resolved = _local(folder, item) if "\n" not in item else None
        if resolved is not None:
            kustomization.patches.append(Patch(kustomization, path, file=resolved, json6902=False))
        else:
            kustomization.patches.append(Patch(kustomization, path, inline=item, json6902=False))
    for name, json6902 in (("patches", None), ("patchesJson6902", True)):
        for position, item in enumerate(data.get(name) or []):
            if not isinstance(item, dict):
                continue
            target = item.get("target") if isinstance(item.get("target"), dict) else None
            if isinstance(item.get("path"), str):
                resolved = _local(folder, item["path"])
                if resolved is not None:
                    kustomization.patches.append(
                        Patch(kustomization, (name, position, "path"), file=resolved, json6902=json6902, target=target)
                    )
            elif isinstance(item.get("patch"), str):
                kustomization.patches.append(
                    Patch(
                        kustomization, (name, position, "patch"), inline=item["patch"], json6902=json6902, target=target
                    )
                )


def _config_paths(data: dict[str, Any]) -> Iterator[str]:
    """The files a kustomization reads that are not resources nor patches."""
    for item in data.get("replacements") or []:
        if isinstance(item, dict) and isinstance(item.get("path"), str):
            yield item["path"]
    for name in ("configurations", "crds"):
        for _, text in _strings(data.get(name)):
            yield text
    openapi = data.get("openapi")
    if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
        yield openapi["path"]
    for name in ("configMapGenerator", "secretGenerator"):
        for generator in data.get(name) or []:
            if not isinstance(generator, dict):
                continue
            for _, text in _strings(generator.get("files")):
                yield text.partition("=")[2] or text
            for _, text in _strings(generator.get("envs")):
                yield text
            if isinstance(generator.get("env"), str):
                yield generator["env"]
