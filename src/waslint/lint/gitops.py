"""A GitOps repository read the way it reaches the cluster.

Each kustomize build root (a kustomization no other kustomization of the run includes) is linted
as what it renders, rendered by the real kustomize (sources/kustomize), as a scope of its own:
one overlay is what one cluster receives. Files a kustomization uses as patches or as generator
and transformer inputs are never linted as whole objects; resource files are linted as what
their roots render; a file no root includes is linted as it is. Findings on rendered objects
point at the source line that wrote the field (sources/kustomize/origins.py) and name the roots
that render it: a base error rendered by three overlays is one finding at the base line.

Nothing here runs unless the run holds a kustomization (or a Helm chart, for scopes): a run of
plain manifests imports none of it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import field

from waslint.core.model import Span
from waslint.core.parallel import fork_map, split_evenly
from waslint.core.records import dataclass
from waslint.findings import Finding
from waslint.io.helmtext import CHART_FILE
from waslint.io.loader import Document, SourceFile, parse_bytes, parse_text, read_source
from waslint.lint.options import LintOptions
from waslint.lint.registry import get_rule
from waslint.sources.kustomize import is_kustomization
from waslint.sources.kustomize.graph import BuildGraph, Kustomization, Patch
from waslint.sources.kustomize.origins import (
    AppliedPatch,
    Placement,
    RenderedDocument,
    applied_patches,
    display_path,
)
from waslint.sources.kustomize.render import Rendered, Renderer, find_renderer, render_roots, strip_origin

BUILD_FAILED = "WAS005"
ROOTS_PER_BATCH = 32  # the fewest roots a --jobs worker renders (`python bench/overlays.py`)


@dataclass
class RenderedRoot:
    root: Kustomization
    label: str  # the root's folder, as the run names it
    files: list[SourceFile]  # the rendered objects, one file per source file; patches' comments


@dataclass
class Layout:
    rendered: list[RenderedRoot] = field(default_factory=list)
    hidden: set[str] = field(default_factory=set)  # real paths never linted as whole objects
    charts: list[str] = field(default_factory=list)  # chart folders, as the run names them
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # builds that failed (WAS005)
    roots_of: dict[str, set[str]] = field(default_factory=dict)  # real file -> labels of roots reading it

    def chart_of(self, path: str) -> str | None:
        """The outermost chart folder holding `path`: a chart and its subcharts are one scope."""
        for chart in self.charts:
            if path == chart or path.startswith(chart.rstrip("/") + "/"):
                return chart
        return None


def read_layout(
    sources: list[SourceFile], options: LintOptions, reported: Callable[[str], bool] | None = None
) -> Layout:
    """The repository's structure: chart folders, build roots and their renders. `reported`:
    with --lookup/--changed-since, whether a file is reported; only the roots that read one are
    rendered."""
    layout = Layout(charts=_charts(sources))
    if not any(is_kustomization(source.path) for source in sources):
        return layout
    run_paths = {os.path.realpath(source.path): source.path for source in sources if source.path != "-"}
    graph = BuildGraph.read(sources)
    layout.notes.extend(f"kustomize: {problem}" for problem in graph.unreadable)
    layout.hidden = graph.patch_files() | graph.config_files() | set(graph.kustomizations)
    roots = graph.roots(run_paths)
    if reported is not None:
        roots = [root for root in roots if any(reported(path) for path in graph.closure_files(root))]
    renderer = find_renderer(options.kustomize_cmd)
    buildable = _buildable(graph, roots, renderer, options, layout)
    if renderer is None:
        if roots:
            layout.notes.append(
                "no kustomize renderer (neither `kustomize` nor `kubectl` is on PATH, no --kustomize-cmd): build roots"
                " are linted as their files, patch files still as patches"
            )
        return layout
    # One kustomize process renders a batch; a worker pays off past a few dozen roots a batch.
    count = min(options.jobs, max(1, len(buildable) // ROOTS_PER_BATCH))
    batches = [buildable[shard.start : shard.stop] for shard in split_evenly([1] * len(buildable), count)]
    outcomes = [
        outcome for part in fork_map(lambda batch: _render(renderer, batch), batches, options.jobs) for outcome in part
    ]
    files = {source_real: source for source_real, source in _parsed(sources).items()}
    for root, outcome in zip(buildable, outcomes, strict=True):
        label = _label(root)
        if outcome.text is None:
            layout.findings.extend(_build_failed(root, outcome.error or "failed", options))
            continue
        rendered = _rendered_root(graph, root, label, outcome, files, run_paths, options)
        layout.rendered.append(rendered)
        for real in graph.closure_files(root):
            layout.roots_of.setdefault(real, set()).add(label)
        layout.hidden |= {real for real in graph.closure_files(root)}
    return layout


def _charts(sources: Iterable[SourceFile]) -> list[str]:
    folders = sorted({os.path.dirname(s.path) or "." for s in sources if os.path.basename(s.path) == CHART_FILE})
    outermost = [
        f for f in folders if not any(f != other and f.startswith(other.rstrip("/") + "/") for other in folders)
    ]
    return sorted(outermost, key=len, reverse=True)


def _label(root: Kustomization) -> str:
    return os.path.dirname(root.source.path) or "."


def _buildable(
    graph: BuildGraph, roots: list[Kustomization], renderer: Renderer | None, options: LintOptions, layout: Layout
) -> list[Kustomization]:
    """The roots that can be built without the network; a note for each one that cannot."""
    chosen = []
    for root in roots:
        remote = graph.remote_of(root)
        if remote:
            where, entry = remote[0]
            layout.notes.append(
                f"{_label(root)}: not rendered: {where.source.path} names the remote {entry.field} entry"
                f" {entry.text!r} (waslint never fetches remote bases); its local files are linted as they are"
            )
        elif graph.uses_helm(root) and not options.kustomize_cmd:
            layout.notes.append(
                f"{_label(root)}: not rendered: it inflates helmCharts (kustomize needs --enable-helm and helm);"
                " pass --kustomize-cmd 'kustomize build --enable-helm' to render it"
            )
        elif renderer is not None:
            chosen.append(root)
    return chosen


def _render(renderer: Renderer, batch: list[Kustomization]) -> list[Rendered]:
    """One batch of roots, built by one kustomize run where they can be (render_roots)."""
    return render_roots(renderer, [(root.folder, root.data.get("sortOptions")) for root in batch])


def _parsed(sources: list[SourceFile]) -> dict[str, SourceFile]:
    return {os.path.realpath(source.path): source for source in sources if source.path != "-"}


def _source(real: str, files: dict[str, SourceFile]) -> SourceFile | None:
    source = files.get(real)
    if source is None:
        source = read_source(real)
        files[real] = source
    if not source.parsed or source.values_released:
        again = SourceFile(source.path, source.text, source.is_json)
        parse_text(again)
        files[real] = source = again
    return source if source.read_error is None else None


def _rendered_root(
    graph: BuildGraph,
    root: Kustomization,
    label: str,
    outcome: Rendered,
    files: dict[str, SourceFile],
    run_paths: dict[str, str],
    options: LintOptions,
) -> RenderedRoot:
    assert outcome.text is not None
    output = parse_bytes(f"{label} (rendered)", outcome.text.encode("utf-8"))
    virtual: dict[str, SourceFile] = {}
    for kustomization in graph.closure_kustomizations(root.file):
        for patch in graph.kustomizations[kustomization].patches:
            if patch.file is not None:
                _source(patch.file, files)
    parsed: dict[Patch, AppliedPatch | None] = {}
    chains: dict[str, list[Kustomization]] = {}
    for doc in output.documents:
        origin = strip_origin(doc.data)
        if not isinstance(doc.data, dict) or origin is None:
            continue
        resource = origin.get("path")
        generated = origin.get("configuredIn")
        if isinstance(resource, str) and not origin.get("repo"):
            real = os.path.realpath(os.path.normpath(os.path.join(outcome.wrapper, resource)))
            if real not in chains:
                chains[real] = graph.chain(root, real)
            placement = _placement(graph, root, chains[real], real, doc.data, files, parsed)
        elif isinstance(generated, str):
            real = os.path.realpath(os.path.normpath(os.path.join(outcome.wrapper, generated)))
            owner = graph.kustomizations.get(real, root)
            placement = Placement(root, [owner], None, generated_in=owner)
        else:
            continue
        holder = virtual.get(real)
        if holder is None:
            text = files[real].text if real in files else ""
            holder = virtual[real] = SourceFile(display_path(real, run_paths), text)
        holder.documents.append(_rendered_document(holder, doc, placement))
    comments = [
        SourceFile(display_path(real, run_paths), files[real].text)
        for real in sorted(graph.closure_files(root))
        if real not in virtual and real in files and (real in graph.kustomizations or real in graph.patch_files())
    ]
    return RenderedRoot(root, label, [*virtual.values(), *comments])


def _placement(
    graph: BuildGraph,
    root: Kustomization,
    chain: list[Kustomization],
    real: str,
    data: dict[str, object],
    files: dict[str, SourceFile],
    parsed: dict[Patch, AppliedPatch | None],
) -> Placement:
    source = _source(real, files)
    source_doc = _source_document(source, data, chain) if source is not None else None
    patches = applied_patches(graph, chain, data, source_doc.data if source_doc is not None else None, files, parsed)
    return Placement(root, chain, source_doc, patches, origin_file=source)


def _source_document(source: SourceFile, data: dict[str, object], chain: list[Kustomization]) -> Document | None:
    """The resource file's document a rendered object came from: same kind, and the name that
    the chain's prefixes and suffixes turn into the rendered one."""
    kind = data.get("kind")
    candidates = [doc for doc in source.documents if isinstance(doc.data, dict) and doc.data.get("kind") == kind]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    metadata = data.get("metadata")
    rendered = metadata.get("name") if isinstance(metadata, dict) else None
    for doc in candidates:
        name = _name(doc.data)
        for kustomization in chain:
            name = f"{kustomization.data.get('namePrefix') or ''}{name}{kustomization.data.get('nameSuffix') or ''}"
        if name == rendered:
            return doc
    return next((doc for doc in candidates if isinstance(rendered, str) and _name(doc.data) in rendered), None)


def _name(data: object) -> str:
    metadata = data.get("metadata") if isinstance(data, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else ""


def _rendered_document(holder: SourceFile, doc: Document, placement: Placement) -> RenderedDocument:
    source = placement.source_doc
    index = source.index if source is not None else 0
    first, last = (source.first_line, source.last_line) if source is not None else (1, 1)
    rendered = RenderedDocument(holder, index, doc.data, None, 0, first, last)
    rendered.placement = placement
    rendered.rendered_text = doc.text
    return rendered


def _build_failed(root: Kustomization, error: str, options: LintOptions) -> list[Finding]:
    rule = get_rule(BUILD_FAILED)
    if rule is None or not _selected(options):
        return []
    span = Span(1, 1, 1, 1)
    doc = root.source.documents[0] if root.source.documents else None
    for entry in [*root.resources, *root.components]:
        if entry.text and entry.text in error and doc is not None:
            span = doc.locate(entry.path, key=False)
            break
    message = f"kustomize build of {_label(root)} failed: {error}"
    severity = options.severity.get(BUILD_FAILED, rule.severity)
    return [
        Finding(
            code=BUILD_FAILED,
            name=rule.name,
            severity=severity,
            message=message,
            path=root.source.path,
            document=0,
            span=span,
        )
    ]


def _selected(options: LintOptions) -> bool:
    from waslint.lint.registry import select_rules

    return any(rule.code == BUILD_FAILED for rule in select_rules(options.select, options.ignore))


# --------------------------------------------------------------------------- findings of renders


def merge_rendered(by_root: list[tuple[RenderedRoot, list[Finding]]], layout: Layout) -> list[Finding]:
    """One finding per source position: a base error rendered by several roots is reported once,
    naming them. An unused suppression counts only when every root that reads its file finds it
    unused."""
    merged: dict[tuple[object, ...], Finding] = {}
    roots_of: dict[tuple[object, ...], list[str]] = {}
    order: list[tuple[object, ...]] = []
    for rendered, findings in by_root:
        seen_here: dict[tuple[object, ...], int] = {}
        key: tuple[object, ...]
        for finding in findings:
            base: tuple[object, ...] = (finding.code, finding.path, finding.span, finding.field_path)
            count = seen_here.get(base, 0)
            seen_here[base] = count + 1
            key = (*base, count)
            if key not in merged:
                merged[key] = finding
                roots_of[key] = []
                order.append(key)
            if rendered.label not in roots_of[key]:
                roots_of[key].append(rendered.label)
    kept = []
    for key in order:
        finding = merged[key]
        roots = roots_of[key]
        if finding.code == "WAS000" and not _unused_everywhere(finding, roots, layout):
            continue
        if isinstance(finding.doc, RenderedDocument) and finding.path != finding.doc.file.path:
            finding.fixable = False  # it points at a patch or a kustomization: no fix writes there
        finding.rendered_by = tuple(roots)
        finding.message = f"{finding.message} (rendered by {', '.join(roots)})"
        kept.append(finding)
    return kept


def _unused_everywhere(finding: Finding, roots: list[str], layout: Layout) -> bool:
    readers = next((labels for real, labels in layout.roots_of.items() if _same_file(real, finding.path)), set())
    return set(readers) <= set(roots)


def _same_file(real: str, path: str) -> bool:
    return path != "-" and os.path.realpath(path) == real
