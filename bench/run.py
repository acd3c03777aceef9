#!/usr/bin/env python3
"""waslint benchmark harness.

Times, on one corpus and in one run:
  (a) raw libyaml parsing (read + yaml.compose_all with CSafeLoader), in-process, best of N;
  (b) `waslint lint --format json DIR` as a subprocess, best of N (and in-process when
      `waslint.cli.main` is importable);
  (c) kubernetes-validate on a deterministic sample of documents (Python API), best of N;
  (d) `waslint fix --check DIR` against `waslint lint DIR` on a 1,000-file corpus in which 10%
      of the files need fixes (skipped when `waslint fix --help` fails).

Then prints a table and the two speed bars:
  waslint / raw libyaml throughput   >= 0.50
  waslint / kubernetes-validate      >= 50x (documents per second)

Usage: python bench/run.py [--corpus DIR] [--waslint-cmd "python -m waslint"] [--json FILE]
Exit status: 0 all bars pass, 1 a bar fails, 2 waslint could not be run (exit code not 0/1).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.metadata
import inspect
import io
import json
import os
import platform
import random
import re
import shlex
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
DEFAULT_CORPUS = BENCH / "out" / "corpus-5000"
DEFAULT_FIX_CORPUS = BENCH / "out" / "corpus-fix-1000"
DEFAULT_WASLINT = "python -m waslint"
MANIFEST_NAME = "MANIFEST.json"
SUFFIXES = {".yaml", ".yml", ".json"}
RAW_BAR = 0.50
KV_BAR = 50.0
CODE_RE = re.compile(r"WAS\d{3}")

Obj = dict[str, Any]


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass
class Measure:
    name: str
    docs: int
    nbytes: int
    runs: list[float] = field(default_factory=list)
    status: str = "ok"  # ok | error | skipped
    note: str = ""
    extra: Obj = field(default_factory=dict)

    @property
    def seconds(self) -> float | None:
        return min(self.runs) if self.runs and self.status == "ok" else None

    @property
    def docs_per_s(self) -> float | None:
        s = self.seconds
        return self.docs / s if s else None

    @property
    def mb_per_s(self) -> float | None:
        s = self.seconds
        return self.nbytes / 1e6 / s if s else None

    def as_json(self) -> Obj:
        out = asdict(self)
        out.update(seconds=self.seconds, docs_per_s=self.docs_per_s, mb_per_s=self.mb_per_s)
        out["mb"] = self.nbytes / 1e6
        return out


@dataclass
class Corpus:
    root: Path
    files: list[Path]
    nbytes: int
    manifest: Obj | None


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[list[float], Any]:
    runs: list[float] = []
    result: Any = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        runs.append(time.perf_counter() - start)
    return runs, result


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------


def ensure_corpus(root: Path, gen_args: list[str]) -> None:
    if root.exists() and any(root.iterdir()):
        return
    cmd = [sys.executable, str(BENCH / "gen_corpus.py"), "--out", str(root), *gen_args]
    log("generating corpus: " + shlex.join(cmd))
    subprocess.run(cmd, check=True)


def load_corpus(root: Path) -> Corpus:
    files = sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and p.suffix in SUFFIXES and not (p.parent == root and p.name == MANIFEST_NAME)
    )
    manifest_path = root / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else None
    return Corpus(root, files, sum(p.stat().st_size for p in files), manifest)


def tree_digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------
# (a) raw libyaml
# --------------------------------------------------------------------------------------------


def raw_parse(files: list[Path]) -> int:
    count = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        count += len(list(yaml.compose_all(text, Loader=yaml.CSafeLoader)))
    return count


def bench_raw(corpus: Corpus, repeat: int) -> Measure:
    log(f"raw libyaml: {len(corpus.files)} files, best of {repeat}")
    runs, docs = best_of(repeat, lambda: raw_parse(corpus.files))
    return Measure("raw libyaml compose_all", docs, corpus.nbytes, runs)


# --------------------------------------------------------------------------------------------
# (b) waslint as a subprocess / in-process
# --------------------------------------------------------------------------------------------


def waslint_argv(cmd: str, *args: str) -> list[str]:
    parts = shlex.split(cmd)
    if parts and parts[0] in ("python", "python3"):
        parts[0] = sys.executable
    return [*parts, *args]


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(REPO / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    return env


@dataclass
class CmdResult:
    rc: int
    stdout: str
    stderr: str


def run_cmd(argv: list[str], timeout: float) -> CmdResult:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=child_env(), check=False)
    except subprocess.TimeoutExpired:
        return CmdResult(-1, "", f"timed out after {timeout:.0f}s")
    except OSError as exc:
        return CmdResult(-1, "", str(exc))
    return CmdResult(proc.returncode, proc.stdout, proc.stderr)


def _tail(text: str, lines: int = 6) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


def bench_cmd(
    name: str, argv: list[str], corpus: Corpus, docs: int, args: argparse.Namespace
) -> tuple[Measure, CmdResult | None]:
    log(f"{name}: {shlex.join(argv)}, best of {args.repeat}")
    measure = Measure(name, docs, corpus.nbytes, extra={"argv": argv})
    last: CmdResult | None = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        last = run_cmd(argv, args.timeout)
        elapsed = time.perf_counter() - start
        measure.extra["exit_code"] = last.rc
        if last.rc not in (0, 1):
            measure.status = "error"
            measure.note = f"exit code {last.rc}: {_tail(last.stderr or last.stdout)}"
            return measure, last
        measure.runs.append(elapsed)
    return measure, last


def finding_codes(stdout: str) -> Counter[str] | None:
    """Rule codes found in a JSON report of any reasonable shape (None if not JSON)."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    codes: Counter[str] = Counter()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in ("code", "rule", "rule_id", "ruleId", "id"):
                value = node.get(key)
                if isinstance(value, str) and CODE_RE.fullmatch(value):
                    codes[value] += 1
                    return
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    return codes


def _main_callable() -> Callable[..., Any] | None:
    src = str(REPO / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    try:
        import waslint.cli as cli  # type: ignore[import-not-found,unused-ignore]
    except Exception as exc:  # any import failure means "not available yet"
        log(f"in-process: waslint.cli not importable ({type(exc).__name__}: {exc})")
        return None
    main = getattr(cli, "main", None)
    return main if callable(main) else None


def _call_main(main: Callable[..., Any], argv: list[str]) -> int:
    saved = sys.argv
    sys.argv = ["waslint", *argv]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                takes_args = bool(inspect.signature(main).parameters)
            except (TypeError, ValueError):
                takes_args = True
            rc = main(argv) if takes_args else main()
    except SystemExit as exc:
        rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved
    return int(rc or 0)


def bench_inprocess(corpus: Corpus, docs: int, repeat: int) -> Measure:
    name = "waslint lint (in-process)"
    main = _main_callable()
    if main is None:
        return Measure(name, docs, corpus.nbytes, status="skipped", note="waslint.cli.main not available")
    argv = ["lint", "--format", "json", str(corpus.root)]
    log(f"{name}: main({argv}), best of {repeat}")
    measure = Measure(name, docs, corpus.nbytes)
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            rc = _call_main(main, argv)
        except Exception as exc:
            return Measure(name, docs, corpus.nbytes, status="error", note=f"{type(exc).__name__}: {exc}")
        measure.runs.append(time.perf_counter() - start)
        if rc not in (0, 1):
            measure.status, measure.note = "error", f"exit code {rc}"
            break
    measure.note = measure.note or "warm process: caches survive between runs"
    return measure


# --------------------------------------------------------------------------------------------
# (c) kubernetes-validate
# --------------------------------------------------------------------------------------------


def iter_docs(files: list[Path]) -> Iterator[tuple[Any, int]]:
    """Every document of the corpus with the size of its source text."""
    for path in files:
        loader = yaml.CSafeLoader(path.read_text(encoding="utf-8"))
        try:
            while loader.check_node():
                node = loader.get_node()
                if node is None:
                    break
                size = node.end_mark.index - node.start_mark.index
                yield loader.construct_document(node), size
        finally:
            loader.dispose()


def kv_sample(corpus: Corpus, size: int, seed: int) -> list[tuple[Any, int]]:
    docs = list(iter_docs(corpus.files))
    picks = sorted(random.Random(seed).sample(range(len(docs)), min(size, len(docs))))
    return [docs[i] for i in picks]


def kv_validate(objs: list[Any]) -> Counter[str]:
    import kubernetes_validate as kv  # type: ignore[import-untyped,unused-ignore]

    outcome: Counter[str] = Counter()
    for obj in objs:
        try:
            kv.validate(obj, "1.37.0", strict=True)
            outcome["valid"] += 1
        except kv.SchemaNotFoundError:
            outcome["no schema"] += 1
        except kv.ValidationError:
            outcome["invalid"] += 1
        except Exception:
            outcome["other error"] += 1
    return outcome


def bench_kv(corpus: Corpus, args: argparse.Namespace) -> Measure:
    name = f"kubernetes-validate (sample {args.kv_sample})"
    try:
        version = importlib.metadata.version("kubernetes-validate")
    except importlib.metadata.PackageNotFoundError:
        return Measure(name, 0, 0, status="skipped", note="kubernetes-validate not installed")
    sample = kv_sample(corpus, args.kv_sample, args.kv_seed)
    objs = [obj for obj, _ in sample]
    log(f"kubernetes-validate {version}: {len(objs)} documents, best of {args.kv_repeat}")
    runs, outcome = best_of(args.kv_repeat, lambda: kv_validate(objs))
    note = ", ".join(f"{k} {v}" for k, v in sorted(outcome.items()))
    return Measure(
        name,
        len(objs),
        sum(s for _, s in sample),
        runs,
        note=note,
        extra={"version": version, "outcome": dict(outcome), "seed": args.kv_seed},
    )


# --------------------------------------------------------------------------------------------
# (d) fix --check
# --------------------------------------------------------------------------------------------


def bench_fix(args: argparse.Namespace) -> list[Measure]:
    help_rc = run_cmd(waslint_argv(args.waslint_cmd, "fix", "--help"), 120).rc
    if help_rc != 0:
        note = f"`waslint fix --help` exited {help_rc}: no fixer yet"
        return [Measure("waslint fix --check", 0, 0, status="skipped", note=note)]
    ensure_corpus(
        args.fix_corpus,
        [
            "--docs",
            str(args.fix_docs),
            "--files",
            "1000",
            "--needs-fix-share",
            "0.1",
            "--seed",
            str(args.seed),
        ],
    )
    corpus = load_corpus(args.fix_corpus)
    docs = raw_parse(corpus.files)
    before = tree_digest(corpus.files)
    fix, _ = bench_cmd(
        "waslint fix --check (fix corpus)",
        waslint_argv(args.waslint_cmd, "fix", "--check", str(corpus.root)),
        corpus,
        docs,
        args,
    )
    if tree_digest(corpus.files) != before:
        fix.status, fix.note = "error", "fix --check modified the corpus (regenerate it)"
    lint, _ = bench_cmd(
        "waslint lint (fix corpus)",
        waslint_argv(args.waslint_cmd, "lint", "--format", "json", str(corpus.root)),
        corpus,
        docs,
        args,
    )
    if corpus.manifest:
        needs = corpus.manifest["totals"]["files_needing_fix"]
        fix.extra["files"], fix.extra["files_needing_fix"] = len(corpus.files), needs
    return [fix, lint]


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(measures: list[Measure]) -> None:
    head = f"{'benchmark':<40} {'docs':>6} {'MB':>7} {'seconds':>9} {'docs/s':>10} {'MB/s':>8}"
    print(head)
    print("-" * len(head))
    for m in measures:
        print(
            f"{m.name:<40} {m.docs:>6} {m.nbytes / 1e6:>7.2f} {_fmt(m.seconds, '.3f'):>9} "
            f"{_fmt(m.docs_per_s, ',.0f'):>10} {_fmt(m.mb_per_s, '.2f'):>8}"
            + (f"  [{m.status}] {m.note}" if m.status != "ok" else "")
        )
    notes = [m for m in measures if m.status == "ok" and m.note]
    for m in notes:
        print(f"  note, {m.name}: {m.note}")


def ratio(a: Measure, b: Measure) -> float | None:
    x, y = a.docs_per_s, b.docs_per_s
    return x / y if x is not None and y else None


def _verdict(value: float | None, bar: float, reference: Measure) -> str:
    if reference.status == "skipped":
        return "SKIP"
    if value is None:
        return "FAIL"
    return "PASS" if value >= bar else "FAIL"


def verdicts(raw: Measure, lint: Measure, kv: Measure) -> list[Obj]:
    rows = [
        ("waslint / raw libyaml throughput", ratio(lint, raw), RAW_BAR, ">= 0.50", raw),
        ("waslint / kubernetes-validate docs/s", ratio(lint, kv), KV_BAR, ">= 50x", kv),
    ]
    return [
        {
            "ratio": label,
            "value": value,
            "bar": bar,
            "bar_text": text,
            "verdict": _verdict(value, bar, reference),
        }
        for label, value, bar, text, reference in rows
    ]


def print_verdicts(rows: list[Obj]) -> None:
    print()
    for row in rows:
        value = "n/a" if row["value"] is None else f"{row['value']:.2f}"
        print(f"{row['ratio']:<40} {value:>10}   bar {row['bar_text']:<8} {row['verdict']}")


def compare_findings(stdout: str | None, manifest: Obj | None) -> Obj | None:
    """Rule codes in the waslint JSON report next to the corpus's intended findings."""
    if stdout is None or manifest is None:
        return None
    found = finding_codes(stdout)
    expected: dict[str, int] = manifest.get("expected_rule_hits", {})
    if found is None:
        return {"json": False, "expected": expected, "reported": None}
    return {"json": True, "expected": expected, "reported": dict(sorted(found.items()))}


def print_findings(findings: Obj | None) -> None:
    if findings is None:
        return
    if not findings["json"]:
        print("\nwaslint output is not JSON: intended findings not compared")
        return
    expected, reported = findings["expected"], findings["reported"]
    print("\nintended findings (MANIFEST.json) vs rule codes in the waslint report:")
    for code in sorted(set(expected) | set(reported)):
        print(f"  {code}: intended {expected.get(code, 0):>4}   reported {reported.get(code, 0):>5}")


def machine_info() -> Obj:
    info: Obj = {
        "nproc": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "pyyaml": yaml.__version__,
        "libyaml": bool(yaml.__with_libyaml__),
    }
    if hasattr(os, "sched_getaffinity"):
        info["usable_cpus"] = len(os.sched_getaffinity(0))
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    return info


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="waslint benchmark harness")
    p.add_argument(
        "--corpus",
        type=Path,
        default=DEFAULT_CORPUS,
        help=f"corpus directory (generated when missing; default {DEFAULT_CORPUS})",
    )
    p.add_argument("--docs", type=int, default=5000, help="documents when generating (5000)")
    p.add_argument("--was-share", default="0.2", help="WAS share when generating (0.2)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (1)")
    p.add_argument(
        "--waslint-cmd",
        default=DEFAULT_WASLINT,
        help=f'waslint command; a leading "python" means this interpreter (default "{DEFAULT_WASLINT}")',
    )
    p.add_argument("--repeat", type=int, default=3, help="runs per timing, best kept (3)")
    p.add_argument("--timeout", type=float, default=900, help="seconds per waslint run (900)")
    p.add_argument("--kv-sample", type=int, default=300, help="kubernetes-validate sample (300)")
    p.add_argument("--kv-repeat", type=int, default=3, help="kubernetes-validate runs (3)")
    p.add_argument("--kv-seed", type=int, default=0, help="sample seed (0)")
    p.add_argument("--skip-kv", action="store_true", help="skip kubernetes-validate")
    p.add_argument("--skip-fix", action="store_true", help="skip the fix --check benchmark")
    p.add_argument("--no-inprocess", action="store_true", help="skip the in-process lint run")
    p.add_argument(
        "--fix-corpus",
        type=Path,
        default=DEFAULT_FIX_CORPUS,
        help=f"fixer corpus, 1,000 files (default {DEFAULT_FIX_CORPUS})",
    )
    p.add_argument("--fix-docs", type=int, default=5000, help="documents in the fixer corpus")
    p.add_argument("--json", type=Path, default=None, help="write the figures as JSON here")
    return p.parse_args(argv)


def run_benchmarks(args: argparse.Namespace) -> tuple[list[Measure], Obj]:
    ensure_corpus(
        args.corpus,
        ["--docs", str(args.docs), "--was-share", args.was_share, "--seed", str(args.seed)],
    )
    corpus = load_corpus(args.corpus)
    raw = bench_raw(corpus, args.repeat)
    lint_argv = waslint_argv(args.waslint_cmd, "lint", "--format", "json", str(corpus.root))
    lint, last = bench_cmd("waslint lint (subprocess)", lint_argv, corpus, raw.docs, args)
    measures = [raw, lint]
    if not args.no_inprocess and args.waslint_cmd == DEFAULT_WASLINT:
        measures.append(bench_inprocess(corpus, raw.docs, args.repeat))
    kv = (
        Measure("kubernetes-validate", 0, 0, status="skipped", note="--skip-kv")
        if args.skip_kv
        else bench_kv(corpus, args)
    )
    measures.append(kv)
    if not args.skip_fix:
        measures.extend(bench_fix(args))
    stdout = last.stdout if last and lint.status == "ok" else None
    context = {
        "corpus": str(corpus.root),
        "files": len(corpus.files),
        "verdicts": verdicts(raw, lint, kv),
        "findings": compare_findings(stdout, corpus.manifest),
    }
    return measures, context


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    command = shlex.join([sys.executable, *sys.argv]) if argv is None else shlex.join(argv)
    machine = machine_info()
    measures, context = run_benchmarks(args)
    print(f"\ncommand: {command}")
    print("machine: " + ", ".join(f"{k}={v}" for k, v in machine.items()))
    print(f"corpus:  {context['corpus']} ({context['files']} files)\n")
    print_table(measures)
    print_verdicts(context["verdicts"])
    print_findings(context["findings"])
    if args.json:
        report = {
            "command": command,
            "machine": machine,
            **context,
            "results": [m.as_json() for m in measures],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    if any(m.status == "error" for m in measures if m.name.startswith("waslint")):
        return 2
    return 1 if any(r["verdict"] == "FAIL" for r in context["verdicts"]) else 0


if __name__ == "__main__":
    sys.exit(main())
