"""Lint a folder of Helm charts' sources and count WAS001 on the templates that render.

    python scripts/chart_check.py CHARTS [--helm BIN | --helm-lib LIB] [--verbose]

Every chart under CHARTS (a folder with `Chart.yaml` that no other chart holds; its subcharts in
`charts/` are part of it) is linted as waslint lints a repository (`waslint lint CHART`). A
template is a `.yaml`/`.yml` file under a `templates/` folder of the chart or of a subchart.
Whether a template renders is Helm's to say:

- `--helm BIN`: `BIN template CHART --kube-version 1.37.0` on a copy of the chart whose
  `dependencies` missing from `charts/` are dropped (Helm refuses to render a chart whose
  dependencies were not fetched; without them the chart's own templates render as with those
  dependencies disabled). Exit 0: every template renders; else none does.
- `--helm-lib LIB`: the Helm library of the PyPI package `helm-sdkpy` (`libhelm_sdkpy.so`, Helm
  v4), loaded with ctypes: its `lint` renders the chart with its values; a template with an
  error at its path (or at `templates/`, the whole render) does not render.
- neither: every template is counted as rendering.

Prints one line per chart and a total: "N template files of M charts, K WAS001 on templates
that render". Exit status 1 when K > 0.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from waslint.lint.engine import lint_paths
from waslint.lint.options import LintOptions

TEMPLATE_SUFFIXES = (".yaml", ".yml")
Renders = Callable[[Path, list[Path]], "tuple[set[Path], str]"]


def charts_under(folder: Path) -> list[Path]:
    """The outermost folders holding a Chart.yaml (a subchart belongs to its parent)."""
    found = sorted(path.parent for path in folder.rglob("Chart.yaml"))
    return [chart for chart in found if not any(other in chart.parents for other in found)]


def templates_of(chart: Path) -> list[Path]:
    return sorted(
        path
        for path in chart.rglob("*")
        if path.suffix in TEMPLATE_SUFFIXES and "templates" in path.relative_to(chart).parts[:-1] and path.is_file()
    )


def _without_missing_dependencies(chart: Path, work: Path) -> Path:
    copy = work / chart.name
    shutil.copytree(chart, copy, symlinks=True)
    meta_path = copy / "Chart.yaml"
    meta = yaml.safe_load(meta_path.read_text()) or {}
    present = {path.name for path in (copy / "charts").iterdir()} if (copy / "charts").is_dir() else set()
    dependencies = meta.get("dependencies") or []
    kept = [dep for dep in dependencies if any(name.startswith(str(dep.get("name"))) for name in present)]
    if len(kept) != len(dependencies):
        meta["dependencies"] = kept
        meta_path.write_text(yaml.safe_dump(meta, sort_keys=False))
        (copy / "Chart.lock").unlink(missing_ok=True)
    return copy


def helm_binary(binary: str) -> Renders:
    def renders(chart: Path, templates: list[Path]) -> tuple[set[Path], str]:
        with tempfile.TemporaryDirectory() as work:
            copy = _without_missing_dependencies(chart, Path(work))
            done = subprocess.run(
                [binary, "template", "waslint-check", str(copy), "--kube-version", "1.37.0"],
                capture_output=True,
                text=True,
                timeout=120,
            )
        if done.returncode == 0:
            return set(templates), ""
        return set(), done.stderr.strip().splitlines()[0] if done.stderr.strip() else f"exit {done.returncode}"

    return renders


def helm_library(path: str) -> Renders:
    lib = ctypes.CDLL(path)
    lib.helm_sdkpy_config_create.argtypes = [ctypes.c_char_p] * 4 + [ctypes.POINTER(ctypes.c_ulonglong)]
    lib.helm_sdkpy_lint.argtypes = [ctypes.c_ulonglong, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    handle = ctypes.c_ulonglong()
    if lib.helm_sdkpy_config_create(b"default", b"", b"", b"{}", ctypes.byref(handle)) != 0:
        raise SystemExit(f"{path}: cannot create a Helm configuration")

    def renders(chart: Path, templates: list[Path]) -> tuple[set[Path], str]:
        out = ctypes.c_char_p()
        lib.helm_sdkpy_lint(handle, str(chart).encode(), ctypes.byref(out))
        report = json.loads(out.value or b"{}")
        failed = {message["Path"] for message in report.get("Messages") or [] if message.get("Severity", 0) >= 3}
        if "templates/" in failed or "templates" in failed:
            return set(), "helm lint: the chart does not render"
        rendering = {t for t in templates if str(t.relative_to(chart)) not in failed}
        return rendering, ", ".join(sorted(failed))

    return renders


def every_template(chart: Path, templates: list[Path]) -> tuple[set[Path], str]:
    return set(templates), ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("charts", type=Path)
    judge = parser.add_mutually_exclusive_group()
    judge.add_argument("--helm", help="a helm binary: `helm template` decides which charts render")
    judge.add_argument("--helm-lib", help="libhelm_sdkpy.so (PyPI helm-sdkpy): Helm's lint decides")
    parser.add_argument("--verbose", action="store_true", help="print every WAS001 finding")
    args = parser.parse_args()
    renders: Renders = every_template
    how = "every template counted as rendering (no helm given)"
    if args.helm:
        renders, how = helm_binary(args.helm), f"renders: `{args.helm} template` exit 0"
    elif args.helm_lib:
        renders, how = helm_library(args.helm_lib), "renders: no error of Helm's lint (helm-sdkpy) at the template"
    charts = charts_under(args.charts)
    total_templates = total_rendering = total_was001 = 0
    for chart in charts:
        templates = templates_of(chart)
        rendering, note = renders(chart, templates)
        result, errors = lint_paths([str(chart)], LintOptions(select=["WAS001"], jobs=1))
        if errors:
            raise SystemExit("; ".join(errors))
        bad = [f for f in result.findings if Path(f.path).resolve() in {t.resolve() for t in rendering}]
        total_templates += len(templates)
        total_rendering += len(rendering)
        total_was001 += len(bad)
        name = chart.relative_to(args.charts) if chart != args.charts else chart.name
        line = f"{name}: {len(templates)} templates, {len(rendering)} render, {len(bad)} WAS001"
        print(line + (f" ({note})" if note else ""))
        if args.verbose or bad:
            for finding in bad:
                print(
                    f"  {finding.path}:{finding.span.line}:{finding.span.column}: {' '.join(finding.message.split())}"
                )
    print(
        f"{total_templates} template files of {len(charts)} charts ({total_rendering} render), "
        f"{total_was001} WAS001 on templates that render; {how}"
    )
    return 1 if total_was001 else 0


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    sys.exit(main())
