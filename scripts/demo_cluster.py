#!/usr/bin/env python3
"""A local demo cluster for `waslint audit` and `waslint snapshot capture`, no real cluster needed.

It serves the test suite's own Kubernetes API server double (`tests/apiserver.py`: discovery,
paged lists, `/metrics` feature gates, `/openapi/v3`, bearer tokens) with the suite's 1.36- or
1.37-shaped cluster (`tests/clusters.py`: nodes with GPUs, WAS Workloads and PodGroups, their Pods,
a PriorityClass, a KAI Queue, a Kueue Topology) over TLS on 127.0.0.1, writes a kubeconfig for it
(its own test CA, a token) and stays up until Ctrl-C. Nothing leaves this machine.

    pip install ".[cluster]"            # the kubernetes client: the cluster commands and this demo
    python scripts/demo_cluster.py      # then, in another terminal:
    waslint audit --kubeconfig demo-kubeconfig

`--release 1.36` (the default) is a cluster before its upgrade: v1alpha2 objects stored, gates that
disagree, so the audit has a verdict to give; `--release 1.37` is a clean 1.37 cluster, and
`--release 1.37 --rot` adds the runtime rot the WAS8xx rules look for (namespace `rot`).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--release", choices=("1.36", "1.37"), default="1.36", help="the cluster's shape")
    parser.add_argument(
        "--kubeconfig", default="demo-kubeconfig", help="where to write the kubeconfig (default: ./demo-kubeconfig)"
    )
    parser.add_argument("--rot", action="store_true", help="1.37 only: add orphaned, degraded and stuck objects")
    args = parser.parse_args(argv)
    if args.rot and args.release != "1.37":
        parser.error("--rot goes with --release 1.37")
    sys.path.insert(0, str(TESTS))
    try:
        from apiserver import APIServer, make_tls
        from clusters import cluster_136, cluster_137, with_runtime_problems
    except ImportError as err:  # the clusters are built with the kubernetes client's models
        print(f"demo_cluster: {err.name or err}: install the cluster extra first: pip install '.[cluster]'")
        return 2
    if shutil.which("openssl") is None:
        print("demo_cluster: openssl is needed to make the demo's TLS certificates")
        return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with tempfile.TemporaryDirectory(prefix="waslint-demo-") as folder:
        cluster = cluster_136() if args.release == "1.36" else cluster_137()
        if args.rot:
            cluster = with_runtime_problems(cluster)
        with APIServer(cluster, make_tls(Path(folder))) as server:
            kubeconfig = server.write_kubeconfig(Path(args.kubeconfig).resolve(), context="demo")
            print(f"demo cluster (Kubernetes {cluster.git_version}) at {server.url}", flush=True)
            print(f"kubeconfig: {kubeconfig} (context demo); Ctrl-C stops it", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                stop.wait()
            print(f"demo cluster stopped: {len(server.requests)} requests, methods {sorted(server.methods())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
