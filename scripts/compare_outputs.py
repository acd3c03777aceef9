"""Record waslint's outputs on a fixed set of inputs, or compare two recordings byte for byte.

Used to prove that a refactoring changes no finding and no fix:

    python scripts/compare_outputs.py record /tmp/before --corpus DIR   # on the old tree
    python scripts/compare_outputs.py record /tmp/after --corpus DIR    # on the new tree
    python scripts/compare_outputs.py compare /tmp/before /tmp/after

Inputs: every subfolder of each `--corpus DIR` (a folder of real manifests, one folder per
source), `fixtures/` (each rule folder, each fix folder, the demo), and the bench corpus when
`bench/out/corpus-5000` exists. For each input it records
`waslint lint --format json` and `waslint fix --diff` (stdout, stderr and exit status). Each rule
folder's `bad.yaml` and `good.yaml` are also linted with the folder's `options.yaml` (`target`,
`namespace`, `snapshot`, `gates`), and `waslint feasibility --format json` runs on the folders
that come with a snapshot (the feasibility fixtures, the demo, WAS603 and WAS606), so the
readers that lint and feasibility share are compared too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def inputs(corpora: list[Path]) -> list[Path]:
    found: list[Path] = []
    for corpus in corpora:
        found += sorted(p for p in corpus.iterdir() if p.is_dir())
    fixtures = ROOT / "fixtures"
    found += [fixtures / "demo", fixtures / "rules", fixtures / "fix"]
    found += sorted(p for p in (fixtures / "rules").iterdir() if p.is_dir())
    found += sorted(p for p in (fixtures / "fix").iterdir() if p.is_dir())
    bench = ROOT / "bench" / "out" / "corpus-5000"
    if bench.is_dir():
        found.append(bench)
    return found


def _options(folder: Path) -> list[str]:
    """The command-line options of a rule folder's `options.yaml` (its `base` needs a git
    repository: the rule fixture test covers it)."""
    path = folder / "options.yaml"
    if not path.is_file():
        return []
    import yaml

    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    args: list[str] = []
    if "target" in raw:
        args += ["--target", str(raw["target"])]
    if "namespace" in raw:
        args += ["--namespace", str(raw["namespace"])]
    for key in ("snapshot", "gates"):
        if key in raw:
            args += [f"--{key}", os.path.relpath(folder / str(raw[key]), ROOT)]
    return args


def with_options() -> list[tuple[Path, list[str]]]:
    """Each rule folder's bad.yaml and good.yaml, with the folder's options."""
    found = []
    for folder in sorted(p for p in (ROOT / "fixtures" / "rules").iterdir() if p.is_dir()):
        options = _options(folder)
        for name in ("bad.yaml", "good.yaml"):
            found.append((folder / name, options))
    return found


def feasibility_inputs() -> list[tuple[Path, Path]]:
    """(snapshot, manifests) pairs for `waslint feasibility`."""
    fixtures = ROOT / "fixtures"
    cluster = fixtures / "snapshots" / "cluster.yaml"
    found = [(cluster, fixtures / "feasibility"), (cluster, fixtures / "demo")]
    for code in ("WAS603", "WAS606"):
        folder = fixtures / "rules" / code
        found += [(folder / "snapshot.yaml", folder / name) for name in ("bad.yaml", "good.yaml")]
    bench = ROOT / "bench" / "out" / "corpus-5000"
    if bench.is_dir():
        found.append((cluster, bench))
    return found


def _run(args: list[str], cwd: Path) -> dict[str, object]:
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-m", "waslint", *args], cwd=cwd, capture_output=True, env=env, timeout=600, check=False
    )
    return {
        "status": done.returncode,
        "stdout": done.stdout.decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace"),
    }


def record(out: Path, corpora: list[Path]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for target in inputs(corpora):
        where = os.path.relpath(target, ROOT)
        result = {
            "input": where,
            "lint": _run(["lint", "--format", "json", "--fail-on", "never", where], ROOT),
            "fix-diff": _run(["fix", "--diff", where], ROOT),
        }
        _save(out, where, result)
    for target, options in with_options():
        where = os.path.relpath(target, ROOT)
        lint = ["lint", "--format", "json", "--fail-on", "never", *options, where]
        _save(out, f"{where} {' '.join(options)}", {"input": f"{where} {' '.join(options)}", "lint": _run(lint, ROOT)})
    for snapshot, manifests in feasibility_inputs():
        snap, where = os.path.relpath(snapshot, ROOT), os.path.relpath(manifests, ROOT)
        run = _run(["feasibility", "--format", "json", "--snapshot", snap, where], ROOT)
        said = f"feasibility --snapshot {snap} {where}"
        _save(out, said, {"input": said, "feasibility": run})
        if manifests.name == "corpus-5000":  # WAS603 and WAS606 over the bench corpus
            lint = ["lint", "--format", "json", "--fail-on", "never", "--snapshot", snap, where]
            _save(out, f"{where} --snapshot {snap}", {"input": f"{where} --snapshot {snap}", "lint": _run(lint, ROOT)})


def _save(out: Path, where: str, result: dict[str, object]) -> None:
    key = hashlib.sha1(where.encode()).hexdigest()[:12]
    (out / f"{key}.json").write_text(json.dumps(result, indent=1, sort_keys=True), encoding="utf-8")
    print(f"recorded {where}")


def _first_difference(old: object, new: object) -> str:
    """The first differing line of two outputs, for a quick look (`diff` the files for the rest)."""
    left = json.dumps(old, indent=1, sort_keys=True).splitlines()
    right = json.dumps(new, indent=1, sort_keys=True).splitlines()
    for number, (a, b) in enumerate(zip(left, right, strict=False), 1):
        if a != b:
            return f"    line {number}:\n    - {a.strip()[:200]}\n    + {b.strip()[:200]}"
    return f"    {len(left)} lines vs {len(right)} lines"


def compare(before: Path, after: Path) -> int:
    names = sorted({p.name for p in before.glob("*.json")} | {p.name for p in after.glob("*.json")})
    differing = 0
    for name in names:
        left, right = before / name, after / name
        if not left.exists() or not right.exists():
            print(f"only in one recording: {name}")
            differing += 1
            continue
        old, new = json.loads(left.read_text()), json.loads(right.read_text())
        for command in ("lint", "fix-diff", "feasibility"):
            if old.get(command) != new.get(command):
                differing += 1
                print(f"DIFFERS: {command} on {old['input']} ({name})")
                print(_first_difference(old.get(command), new.get(command)))
    print(f"{len(names)} recordings compared, {differing} outputs differ")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out", type=Path)
    rec.add_argument("--corpus", type=Path, action="append", default=[], help="a folder of input folders (repeatable)")
    cmp = sub.add_parser("compare")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.verb == "record":
        missing = [str(corpus) for corpus in args.corpus if not corpus.is_dir()]
        if missing:
            parser.error(f"--corpus: no such folder: {', '.join(missing)}")
        record(args.out, args.corpus)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
