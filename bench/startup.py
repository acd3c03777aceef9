#!/usr/bin/env python3
"""Start-up: `waslint lint FILE` against `yamllint FILE` on the same small file, the shape of a
pre-commit hook run on one staged manifest. The bar: waslint takes no longer than yamllint.

Both run as `python -m TOOL FILE` with the interpreter that runs this script, in a scratch folder
that holds only the file (neither finds a config of its own), with their bytecode compiled (warm-up
runs write it under bench/out/pycache, for waslint's source tree and yamllint's site-packages
alike). The runs alternate (waslint, yamllint, waslint, ...) so that a drift of the shared machine's
speed hits both; the figure is the ratio of the medians, wall-clock and CPU (the child's user +
system time).

Usage: python bench/startup.py [--pairs 21] [--file FILE] [--importtime] [--json OUT]
yamllint comes with the bench extra: pip install '.[bench]'.
Exit status: 0 the bar passes, 1 it fails, 2 a tool is missing or failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
DEFAULT_FILE = REPO / "fixtures" / "rules" / "WAS103" / "good.yaml"
BAR = 1.0  # waslint / yamllint, ratio of the medians of wall-clock time


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has bytecode: so must both here
    env["PYTHONPYCACHEPREFIX"] = str(OUT / "pycache")
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["NO_COLOR"] = "1"
    for name in ("GITHUB_ACTIONS", "WASLINT_DEBUG", "YAMLLINT_CONFIG_FILE"):
        env.pop(name, None)
    return env


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, child cpu seconds, exit status) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def least_self_times(command: list[str], cwd: Path, env: dict[str, str], runs: int) -> dict[str, int]:
    """`python -X importtime`: each module's self time (microseconds), its least over `runs` runs
    (one run on a shared machine is mostly noise)."""
    least: dict[str, int] = {}
    for _ in range(runs):
        done = subprocess.run(
            [command[0], "-X", "importtime", *command[1:]], cwd=cwd, env=env, capture_output=True, text=True
        )
        for line in done.stderr.splitlines():
            found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
            if found:
                name, own = found.group(4), int(found.group(1))
                least[name] = min(own, least.get(name, own))
    return least


def import_profile(commands: dict[str, list[str]], cwd: Path, env: dict[str, str], runs: int = 7) -> list[str]:
    """Both tools' import time in all, and waslint's largest modules and its own share."""
    least = least_self_times(commands["waslint"], cwd, env, runs)
    theirs = sum(least_self_times(commands["yamllint"], cwd, env, runs).values())
    ours = sum(own for name, own in least.items() if name.startswith("waslint"))
    rules = sum(own for name, own in least.items() if name.startswith("waslint.lint.rules"))
    lines = [
        f"import self time, least of {runs} runs: waslint {sum(least.values()) / 1000:.1f} ms over {len(least)}"
        f" modules (its own {ours / 1000:.1f} ms, rule modules {rules / 1000:.1f} ms), yamllint {theirs / 1000:.1f} ms;"
        " waslint's largest:"
    ]
    ranked = sorted(((own, name) for name, own in least.items()), reverse=True)[:15]
    lines += [f"  {own / 1000:6.2f} ms  {name}" for own, name in ranked]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=21, help="alternating pairs of runs (default 21)")
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="the manifest both tools read")
    parser.add_argument("--importtime", action="store_true", help="also print waslint's import profile (7 runs)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    try:
        import yamllint  # noqa: F401
    except ImportError:
        print("startup: yamllint is not installed: pip install '.[bench]'", file=sys.stderr)
        return 2
    env = child_env()
    with tempfile.TemporaryDirectory(prefix="waslint-startup-") as scratch:
        folder = Path(scratch)
        shutil.copy(args.file, folder / args.file.name)
        commands = {
            "waslint": [sys.executable, "-m", "waslint", "lint", args.file.name],
            "yamllint": [sys.executable, "-m", "yamllint", args.file.name],
        }
        for name, command in commands.items():
            for _ in range(2):  # warm-up: bytecode written, files in the page cache
                _, _, status = timed(command, folder, env)
            if name == "waslint" and status not in (0, 1):
                print(f"startup: {' '.join(command)} exited {status}", file=sys.stderr)
                return 2
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.pairs):
            for name, command in commands.items():
                wall, cpu, _ = timed(command, folder, env)
                runs[name].append((wall, cpu))
        profile = import_profile(commands, folder, env) if args.importtime else []
    figures = {
        name: {
            "wall_median": statistics.median(wall for wall, _ in values),
            "cpu_median": statistics.median(cpu for _, cpu in values),
        }
        for name, values in runs.items()
    }
    wall_ratio = figures["waslint"]["wall_median"] / figures["yamllint"]["wall_median"]
    cpu_ratio = figures["waslint"]["cpu_median"] / figures["yamllint"]["cpu_median"]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    python = sys.version.split()[0]
    print(f"one file ({args.file.name}), {args.pairs} alternating pairs, load average {load:.1f}, Python {python}")
    for name, values in figures.items():
        print(f"  {name:<9} wall {values['wall_median']:.3f} s   cpu {values['cpu_median']:.3f} s   (medians)")
    verdict = "PASS" if wall_ratio <= BAR else "FAIL"
    print(f"  waslint / yamllint: wall {wall_ratio:.2f}x, cpu {cpu_ratio:.2f}x (bar: wall <= {BAR:.2f}x): {verdict}")
    for line in profile:
        print(line)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "pairs": args.pairs,
            "load": load,
            "figures": figures,
            "wall_ratio": wall_ratio,
            "cpu_ratio": cpu_ratio,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
