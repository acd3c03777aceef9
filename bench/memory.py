#!/usr/bin/env python3
"""Peak memory of `waslint lint` on a corpus, against the corpus size.

    python bench/gen_corpus.py --out bench/out/corpus-50000 --docs 50000
    python bench/memory.py bench/out/corpus-50000 [--jobs 1] [-- more waslint lint args]

Runs `python -m waslint lint --format json --output /dev/null CORPUS` as a child process and reads
the child's peak resident set size from the operating system (resource.getrusage of the
children; the largest single process, as /usr/bin/time -v reports it). The ratio bar: peak RSS
<= 5x the corpus bytes (MANIFEST.json excluded).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BAR = 5.0


def corpus_bytes(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix in (".yaml", ".yml", ".json") and path.name != "MANIFEST.json":
            total += path.stat().st_size
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--jobs", default="1")
    parser.add_argument("rest", nargs="*", help="more `waslint lint` arguments (after --)")
    args = parser.parse_args()
    size = corpus_bytes(args.corpus)
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-m", "waslint", "lint", "--format", "json", "--output", os.devnull]
    command += ["--jobs", args.jobs, *args.rest, str(args.corpus)]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, check=False)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # kilobytes on Linux
    ratio = peak / size if size else float("inf")
    verdict = "PASS" if ratio <= BAR else "FAIL"
    print(f"command: {' '.join(command)}")
    print(f"exit status {done.returncode}, wall {wall:.2f} s")
    print(f"corpus {size / 1e6:.1f} MB, peak RSS {peak / 1e6:.1f} MB, ratio {ratio:.2f}x", end=" ")
    print(f"(bar <= {BAR:.0f}x): {verdict}")
    return 0 if done.returncode in (0, 1) and verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
