#!/usr/bin/env python3
"""`--jobs 2` against `--jobs 1`, beside what this machine gives perfectly parallel work.

    python bench/gen_corpus.py --out bench/out/corpus-5000 --docs 5000
    python bench/jobs.py bench/out/corpus-5000 [--pairs 15]

Runs `waslint lint --format json --output /dev/null --jobs N CORPUS` with N = 2 and N = 1 in
turn (pairs, so a drift of the machine's speed hits both), checks that both reports are
byte-identical, and takes the wall-clock ratio pair by pair. Then the yardstick: the same pairs
for a pure-Python loop run twice in one process against once in each of two forked processes
(no shared work, no pickling: the most two processes can gain here). On a machine whose cores
are shared with other jobs the yardstick itself stays well under 2x; the lint ratio is judged
against the bar (1.6x) and shown beside the yardstick.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BAR = 1.6

YARDSTICK = """
import os, sys
def work():
    table = {}
    for number in range(2_000_000):
        table[number % 1000] = str(number)
if sys.argv[1] == "2":
    pid = os.fork()
    work()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
else:
    work()
    work()
"""


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, check=False, capture_output=True)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} exited with {done.returncode}: {done.stderr.decode()[-500:]}")
    return time.perf_counter() - start


def paired(one: list[str], two: list[str], pairs: int, env: dict[str, str]) -> tuple[float, float, float]:
    """Medians of the one-process and two-process walls, and of their pair-by-pair ratio."""
    timed(one, env)  # warm the page cache
    ones, twos, ratios = [], [], []
    for _ in range(pairs):
        second = timed(two, env)
        first = timed(one, env)
        ones.append(first)
        twos.append(second)
        ratios.append(first / second)
    return statistics.median(ones), statistics.median(twos), statistics.median(ratios)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--pairs", type=int, default=15)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as scratch:
        outputs = [os.path.join(scratch, f"jobs{jobs}.json") for jobs in (1, 2)]
        lint = [sys.executable, "-m", "waslint", "lint", "--format", "json", "--output"]
        one, two = ([*lint, outputs[jobs - 1], "--jobs", str(jobs), str(args.corpus)] for jobs in (1, 2))
        lint_one, lint_two, lint_ratio = paired(one, two, args.pairs, env)
        identical = Path(outputs[0]).read_bytes() == Path(outputs[1]).read_bytes()
        script = os.path.join(scratch, "yardstick.py")
        Path(script).write_text(YARDSTICK)
        yard_one, yard_two, yard_ratio = paired(
            [sys.executable, script, "1"], [sys.executable, script, "2"], args.pairs, env
        )
    print(f"lint {args.corpus}: --jobs 1 {lint_one:.3f} s, --jobs 2 {lint_two:.3f} s (medians of {args.pairs} pairs)")
    print(f"  --jobs 2 is {lint_ratio:.2f}x faster (median of the pair ratios); reports identical: {identical}")
    print(f"yardstick (perfectly parallel pure Python): one process {yard_one:.3f} s, two {yard_two:.3f} s")
    print(f"  two processes are {yard_ratio:.2f}x faster: the most this machine gives two processes now")
    verdict = "PASS" if lint_ratio >= BAR and identical else "FAIL"
    print(f"bar: --jobs 2 >= {BAR}x faster with identical output: {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
