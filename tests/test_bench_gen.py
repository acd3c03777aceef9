"""Fast checks of the benchmark corpus generator (bench/gen_corpus.py). No timing assertions."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
GEN = REPO / "bench" / "gen_corpus.py"
OLD_APIS = ("scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1alpha2")


def _load_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_gen_corpus", GEN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gen = _load_module()


def generate(out: Path, *args: str) -> dict[str, Any]:
    assert gen.main(["--out", str(out), *args]) == 0
    manifest: dict[str, Any] = json.loads((out / "MANIFEST.json").read_text())
    return manifest


def corpus_files(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.suffix in {".yaml", ".yml", ".json"} and p.name != "MANIFEST.json"
    )


def load_file(path: Path, fast: bool = False) -> list[Any]:
    """safe_load_all (or the libyaml safe loader when `fast`), json for .json files."""
    text = path.read_bytes().decode("utf-8")
    if path.suffix == ".json":
        return [json.loads(text)]
    if fast:
        return list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    return list(yaml.safe_load_all(text))


def is_was(obj: dict[str, Any]) -> bool:
    """WAS-related by content: scheduling.k8s.io WAS kinds, KAI objects, gang Jobs,
    schedulingGroup members and GPU containers."""
    api = obj["apiVersion"]
    if api.startswith("scheduling.k8s.io/") and api != "scheduling.k8s.io/v1":
        return True
    if api.startswith("scheduling.run.ai/"):
        return True
    spec = obj.get("spec") or {}
    if obj["kind"] == "Job" and "scheduling" in spec:
        return True
    pod = spec.get("template", {}).get("spec", spec)
    if "schedulingGroup" in pod:
        return True
    return "nvidia.com/gpu" in json.dumps(pod.get("containers", []))


def test_small_corpus_parses_and_matches_request(tmp_path: Path) -> None:
    manifest = generate(tmp_path, "--docs", "60", "--was-share", "0.2", "--seed", "7")
    docs: list[dict[str, Any]] = []
    for path in corpus_files(tmp_path):
        loaded = load_file(path)
        assert loaded, path
        assert all(isinstance(d, dict) and "apiVersion" in d and "kind" in d for d in loaded)
        docs.extend(loaded)
    assert len(docs) == 60
    assert sum(is_was(d) for d in docs) == 12
    totals = manifest["totals"]
    assert totals["documents"] == 60 and totals["was_documents"] == 12
    assert totals["files"] == len(corpus_files(tmp_path))
    kinds: dict[str, int] = {}
    for d in docs:
        kinds[d["kind"]] = kinds.get(d["kind"], 0) + 1
    assert kinds == manifest["kinds"]


def test_mixed_formats_and_findings(tmp_path: Path) -> None:
    manifest = generate(tmp_path, "--docs", "240", "--was-share", "0.5", "--finding-share", "0.2", "--seed", "3")
    assert manifest["formats"].get("json", 0) >= 1
    assert manifest["formats"].get("yml", 0) >= 1
    assert manifest["crlf_files"] >= 1
    crlf = [p for p in corpus_files(tmp_path) if b"\r\n" in p.read_bytes()]
    assert len(crlf) == manifest["crlf_files"]
    assert manifest["totals"]["finding_documents"] == round(120 * 0.2)
    assert sum(manifest["findings_by_type"].values()) == len(manifest["findings"])
    old = sum(d["apiVersion"] in OLD_APIS for p in corpus_files(tmp_path) for d in load_file(p, fast=True))
    old_types = [f for f in manifest["findings"] if f["type"].startswith("old-api-")]
    assert old == len(old_types)


def test_deterministic_for_a_seed(tmp_path: Path) -> None:
    runs = []
    for n, hash_seed in enumerate(("1", "2")):
        out = tmp_path / f"run{n}"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        cmd = [sys.executable, str(GEN), "--out", str(out), "--docs", "60", "--seed", "5"]
        subprocess.run(cmd, check=True, env=env, capture_output=True)
        runs.append({p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert runs[0] == runs[1]
    generate(tmp_path / "other", "--docs", "60", "--seed", "6")
    other = {p.relative_to(tmp_path / "other"): p.read_bytes() for p in (tmp_path / "other").rglob("*") if p.is_file()}
    assert other != runs[0]


@pytest.mark.parametrize(("files", "share", "expected"), [(20, 0.25, 5), (20, 0.0, 0)])
def test_needs_fix_share_counts_files(tmp_path: Path, files: int, share: float, expected: int) -> None:
    manifest = generate(
        tmp_path,
        "--docs",
        "60",
        "--files",
        str(files),
        "--was-share",
        "0.5",
        "--needs-fix-share",
        str(share),
        "--seed",
        "2",
    )
    loaded = [load_file(p, fast=True) for p in corpus_files(tmp_path)]
    assert len(loaded) == files
    assert sum(len(docs) for docs in loaded) == 60
    needing = [docs for docs in loaded if any(d["apiVersion"] in OLD_APIS for d in docs)]
    assert len(needing) == expected
    assert manifest["totals"]["files_needing_fix"] == expected
