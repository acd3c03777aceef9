"""Issue 21, reading a cluster: a hostile API server (tests/apiserver.py `Hostile` scenarios) never
gets a traceback, an unbounded read, a request outside the paths waslint means, or raw text into
a terminal or a report. One test per item of the issue, named after it."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from apiserver import Hostile
from clusters import cluster_137, hostile, pod, with_hostile_names, with_runtime_problems

from conftest import ROOT, CliRun, in_process, run_cli

DEEP = b"[" * 100_000 + b"]" * 100_000


def audit(kubeconfig: Path, *flags: str) -> CliRun:
    return in_process("audit", "--kubeconfig", str(kubeconfig), *flags)


def capture(kubeconfig: Path, output: Path, *flags: str) -> CliRun:
    return in_process("snapshot", "capture", "-o", str(output), "--kubeconfig", str(kubeconfig), *flags)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """An empty folder for what a capture writes (the kubeconfigs live in tmp_path)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def one_error_line(result: CliRun) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("waslint: error: "), lines[0]
    return lines[0]


def no_raw_control(text: str) -> None:
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text), repr(text)
    assert not any(line.lstrip().startswith("::") for line in text.splitlines()), text


# `python -m waslint` that writes its own peak resident size (KiB) to $PEAK_FILE as it exits. Not
# getrusage: on Linux its maxrss survives exec, so a child forked from a large pytest process reports
# the parent's size; VmHWM in /proc belongs to the address space exec made.
OWN_PEAK = """
import atexit, os, resource, runpy

def peak_kib():
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

atexit.register(lambda: open(os.environ["PEAK_FILE"], "w").write(str(peak_kib())))
runpy.run_module("waslint", run_name="__main__", alter_sys=True)
"""


def test_an_endless_chunked_reply_is_cut_at_the_reply_limit(serve: Any, out: Path) -> None:
    _, kubeconfig = serve(hostile(cluster_137(), Hostile("/api/v1/nodes", "endless")))
    started = time.monotonic()
    peak_file = out / "peak-kib"
    result = run_cli(  # a real process of its own, which writes its own peak memory as it exits
        "audit",
        "--kubeconfig",
        str(kubeconfig),
        timeout=120,
        program=[sys.executable, "-c", OWN_PEAK],
        env={"PEAK_FILE": str(peak_file)},
    )
    line = one_error_line(CliRun(result.returncode, result.stdout, result.stderr))
    assert "GET /api/v1/nodes with more than 64 MiB (the reply limit)" in line
    assert time.monotonic() - started < 60
    peak_kib = int(peak_file.read_text())
    assert peak_kib < 600 * 1024, f"{peak_kib} KiB"  # the body is refused at 64 MiB, never read whole


def test_a_continue_token_that_never_changes_ends_the_list(serve: Any, out: Path) -> None:
    cluster = cluster_137(nodes=5)
    _, kubeconfig = serve(hostile(cluster, Hostile("/api/v1/nodes", "repeat-continue")))
    output = out / "snap.json"
    line = one_error_line(capture(kubeconfig, output, "--page-size", "2"))
    assert "GET /api/v1/nodes: the server sent the same continue token twice" in line
    assert list(out.iterdir()) == []  # no partial file left growing
    assert "same continue token" in one_error_line(audit(kubeconfig, "--page-size", "2"))


@pytest.mark.parametrize("scenario", ["drip", "drip-headers"])
def test_a_dripping_server_is_bounded_by_the_request_timeout(serve: Any, scenario: str) -> None:
    body = json.dumps({"kind": "NodeList", "items": []}).encode() * 20
    _, kubeconfig = serve(hostile(cluster_137(), Hostile("/api/v1/nodes", scenario, body=body, delay=0.3)))
    started = time.monotonic()
    line = one_error_line(audit(kubeconfig, "--request-timeout", "2s"))
    assert "did not answer within 2s (--request-timeout)" in line
    assert time.monotonic() - started < 10  # 2 s for the request, not 0.3 s per byte


# Wrong JSON types where discovery, list metadata, item metadata and the OpenAPI index are read.
REQUIRED_SHAPES = {
    "discovery root a list": ("/api", b"[1, 2]"),
    "discovery root a string": ("/apis", b'"apis"'),
    "discovery root deep": ("/apis", DEEP),
    "node list a number": ("/api/v1/nodes", b"5"),
    "node list items a string": ("/api/v1/nodes", b'{"kind": "NodeList", "items": "many"}'),
    "node list items an object": ("/api/v1/nodes", b'{"kind": "NodeList", "items": {"a": 1}}'),
    "node list metadata a list": ("/api/v1/nodes", b'{"kind": "NodeList", "metadata": [], "items": []}'),
    "node list continue a number": ("/api/v1/nodes", b'{"kind": "NodeList", "metadata": {"continue": 7}, "items": []}'),
    "node list deep": ("/api/v1/nodes", DEEP),
}
TOLERATED_SHAPES = {
    "version a list": ("/version", b"[]", None),
    "aggregated items a string": (
        "/apis",
        b'{"kind": "APIGroupDiscoveryList", "items": "x"}',
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    ),
    "aggregated versions an int": (
        "/apis",
        b'{"kind": "APIGroupDiscoveryList", "items": [{"metadata": {"name": "batch"}, "versions": 3}]}',
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    ),
    "aggregated resource names a path": (
        "/apis",
        b'{"kind": "APIGroupDiscoveryList", "items": [{"metadata": {"name": "../../api/v1/secrets"},'
        b' "versions": [{"version": "v1", "resources": [{"resource": "x", "responseKind": {"kind": "X"},'
        b' "verbs": "list"}]}]}]}',
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    ),
    "item metadata a string": ("/api/v1/nodes", b'{"kind": "NodeList", "items": [{"metadata": "node-1"}]}', None),
    "item metadata name a number": (
        "/api/v1/nodes",
        b'{"kind": "NodeList", "items": [{"metadata": {"name": 7}}]}',
        None,
    ),
    "item metadata labels a list": (
        "/api/v1/nodes",
        b'{"kind": "NodeList", "items": [{"metadata": {"name": "n", "labels": []}}]}',
        None,
    ),
    "item a number": ("/api/v1/nodes", b'{"kind": "NodeList", "items": [1, "two", null]}', None),
    "item status conditions a number": (
        "/api/v1/nodes",
        b'{"kind": "NodeList", "items": [{"metadata": {"name": "n"}, "status": {"conditions": 5}}]}',
        None,
    ),
    "optional list a number": ("/apis/scheduling.run.ai/v2/queues", b"5", None),
    "optional list deep": ("/apis/scheduling.run.ai/v2/queues", DEEP, None),
    "optional items a string": ("/apis/kueue.x-k8s.io/v1beta2/topologies", b'{"items": "x"}', None),
    "openapi index paths a list": ("/openapi/v3", b'{"paths": [1]}', None),
    "openapi index url a number": (
        "/openapi/v3",
        b'{"paths": {"apis/scheduling.k8s.io/v1beta1": {"serverRelativeURL": 5}}}',
        None,
    ),
    "openapi index url elsewhere": (
        "/openapi/v3",
        b'{"paths": {"apis/scheduling.k8s.io/v1beta1": {"serverRelativeURL": "/api/v1/secrets"}}}',
        None,
    ),
    "openapi document components a list": ("/openapi/v3/apis/scheduling.k8s.io/v1beta1", b'{"components": []}', None),
    "openapi document deep": ("/openapi/v3/apis/scheduling.k8s.io/v1beta1", DEEP, None),
}


@pytest.mark.parametrize("case", sorted(REQUIRED_SHAPES))
def test_wrong_json_types_in_a_required_reply_are_one_line_exit_2(serve: Any, out: Path, case: str) -> None:
    """Capture cannot go on without discovery, its version or its Nodes: one line, status 2. Audit
    reads Nodes only for the kubelets' gates: there a bad node list is a warning."""
    path, body = REQUIRED_SHAPES[case]
    _, kubeconfig = serve(hostile(cluster_137(), Hostile(path, body=body)))
    one_error_line(capture(kubeconfig, out / "s.json"))
    assert list(out.iterdir()) == []
    result = audit(kubeconfig)
    if path == "/api/v1/nodes":
        assert result.returncode == 0 and "nodes.v1 not read" in result.stderr, result.stderr
    else:
        one_error_line(result)


@pytest.mark.parametrize("case", sorted(TOLERATED_SHAPES))
def test_wrong_json_types_in_discovery_lists_items_and_openapi_are_warnings(serve: Any, case: str) -> None:
    path, body, content_type = TOLERATED_SHAPES[case]
    cluster = cluster_137()
    cluster.openapi = {"apis/scheduling.k8s.io/v1beta1": {"components": {"schemas": {}}}}
    _, kubeconfig = serve(hostile(cluster, Hostile(path, body=body, content_type=content_type or "application/json")))
    for result in (
        audit(kubeconfig, "--format", "json"),
        in_process("lint", "--cluster", "--kubeconfig", str(kubeconfig), str(ROOT / "fixtures" / "demo")),
    ):
        assert result.returncode in (0, 1), result.stderr
        assert "Traceback" not in result.stderr
        no_raw_control(result.stderr)


def test_items_null_on_an_optional_resource_is_read_as_empty(serve: Any, tmp_path: Path) -> None:
    body = b'{"kind": "QueueList", "metadata": {}, "items": null}'
    _, kubeconfig = serve(hostile(cluster_137(), Hostile("/apis/scheduling.run.ai/v2/queues", body=body)))
    result = audit(kubeconfig, "--format", "json")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    captured = capture(kubeconfig, tmp_path / "snap.json")
    assert captured.returncode == 0 and "0 KAI queues" in captured.stderr


def test_a_malformed_optional_resource_is_a_warning_and_the_audit_goes_on(serve: Any) -> None:
    _, kubeconfig = serve(hostile(cluster_137(), Hostile("/apis/scheduling.run.ai/v2/queues", body=DEEP)))
    result = audit(kubeconfig, "--format", "json")
    assert result.returncode == 0, result.stderr
    assert "queues.scheduling.run.ai/v2 not read: GET /apis/scheduling.run.ai/v2/queues: 200 malformed reply:" in (
        result.stderr
    )
    assert "nesting deeper than 200 levels" in result.stderr
    assert json.loads(result.stdout)["summary"]["files"] >= 5  # the other resources were read and linted


def test_an_unclosed_brace_in_metrics_is_read_in_linear_time(serve: Any) -> None:
    line = b'kubernetes_feature_enabled{name="GenericWorkload' + b"x" * 400_000
    metrics = b'kubernetes_feature_enabled{name="GangScheduling",stage="BETA"} 1\n' + line + b"\n"
    _, kubeconfig = serve(hostile(cluster_137(), Hostile("/metrics", body=metrics, content_type="text/plain")))
    started = time.monotonic()
    result = audit(kubeconfig, "--format", "markdown")
    assert time.monotonic() - started < 15  # the regex took 84 s on 400 KB
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr
    assert "| GangScheduling | on (beta) |" in result.stdout  # the good line is still read


def test_a_node_named_like_a_path_never_makes_audit_get_another_path(serve: Any) -> None:
    server, kubeconfig = serve(with_hostile_names(cluster_137()))
    result = audit(kubeconfig, "--format", "markdown")
    assert result.returncode in (0, 1) and "Traceback" not in result.stderr
    assert not any("secrets" in path for path in server.paths()), sorted(set(server.paths()))
    assert all(path.startswith(("/api", "/version", "/metrics", "/openapi")) for path in server.paths())
    assert server.methods() == {"GET"}
    assert "item(s) skipped, malformed" in result.stderr  # the nodes no API server could store


def test_server_text_is_escaped_in_every_output(serve: Any, tmp_path: Path) -> None:
    message = "denied\x1b[2J\x1b]0;pwned\x07\n::error file=README.md::forged\n::stop-commands::tok"
    status = {"kind": "Status", "status": "Failure", "reason": "Forbidden\x1b[31m", "message": message, "code": 403}
    cluster = with_runtime_problems(with_hostile_names(cluster_137()))
    forbidden = Hostile("/apis/scheduling.run.ai/v2/queues", body=json.dumps(status).encode(), code=403)
    _, kubeconfig = serve(hostile(cluster, forbidden), context="ctx/../../../README.md")
    for fmt in ("markdown", "text", "github", "concise", "sarif", "junit", "json"):
        result = audit(kubeconfig, "--format", fmt)
        assert result.returncode in (0, 1), result.stderr
        no_raw_control(result.stderr)
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout
        if fmt == "github":
            files = re.findall(r"file=([^,]*)", result.stdout)
            assert files and all(name.startswith("cluster%3A//") for name in files), files
            assert "README.md::" not in result.stdout
        if fmt == "markdown":
            for line in result.stdout.splitlines():
                if line.startswith("|"):
                    assert "<b>" not in line and "\n" not in line
    captured = capture(kubeconfig, tmp_path / "s.json")
    assert captured.returncode == 0
    no_raw_control(captured.stderr)


def test_object_paths_never_name_a_repository_file() -> None:
    from waslint.audit.collect import object_path
    from waslint.report.base import relative_path
    from waslint.report.sarif import artifact_location

    item = {"kind": "../../../../README.md", "metadata": {"name": "..", "namespace": "ml"}}
    path = object_path("ctx/..", item)
    assert path == "cluster://ctx%2F../ml/..%2F..%2F..%2F..%2FREADME.md/%2E%2E"
    assert ".." not in path.removeprefix("cluster://").split("/")
    assert relative_path(path, str(ROOT)) is None
    assert artifact_location(path, str(ROOT))["uri"] == path


def test_redact_names_redacts_names_inside_affinity(serve: Any, tmp_path: Path) -> None:
    cluster = cluster_137()
    member = pod("trainer-x", "ml", "gpu-node-0", group="trainer-workers")
    member["metadata"]["ownerReferences"] = [
        {"apiVersion": "batch/v1", "kind": "Job", "name": "secret-job", "controller": True}
    ]
    term = {
        "topologyKey": "kubernetes.io/hostname",
        "namespaces": ["secret-team", "ml"],
        "namespaceSelector": {
            "matchLabels": {"kubernetes.io/metadata.name": "secret-team"},
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["secret-team"]}],
        },
        "labelSelector": {
            "matchLabels": {"job-name": "secret-job"},
            "matchExpressions": [{"key": "batch.kubernetes.io/job-name", "operator": "In", "values": ["secret-job"]}],
        },
    }
    member["spec"]["affinity"] = {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]},
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": term}]
        },
    }
    cluster.add(cluster.resource("", "v1", "pods"), member)  # type: ignore[arg-type]
    _, kubeconfig = serve(cluster)
    output = tmp_path / "snap.json"
    assert capture(kubeconfig, output, "--redact-names").returncode == 0
    text = output.read_text()
    assert "secret-team" not in text and "secret-job" not in text
    snapshot = json.loads(text)
    redacted = next(item for item in snapshot["items"] if item["kind"] == "Pod" and "affinity" in item["spec"])
    required = redacted["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    owner = redacted["metadata"]["ownerReferences"][0]["name"]
    assert required["labelSelector"]["matchLabels"]["job-name"] == owner  # the same Job, the same hash
    assert required["namespaces"][1] == redacted["metadata"]["namespace"]  # "ml", consistently redacted
    assert required["topologyKey"] == "kubernetes.io/hostname"


@pytest.mark.parametrize("target", ["/dev/null", "fifo", "link"])
def test_capture_writes_only_regular_files(serve: Any, out: Path, target: str) -> None:
    import os

    _, kubeconfig = serve(cluster_137())
    if target == "fifo":
        output = out / "fifo"
        os.mkfifo(output)
    elif target == "link":
        victim = out / "victim.txt"
        victim.write_text("keep me\n")
        output = out / "link.json"
        output.symlink_to(victim)
    else:
        output = Path(target)
    before = os.lstat(output)
    line = one_error_line(capture(kubeconfig, output))
    assert "capture writes only regular files" in line
    after = os.lstat(output)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)
    if target == "link":
        assert (out / "victim.txt").read_text() == "keep me\n"
    assert not list(out.glob("*.partial-*"))
    assert capture(kubeconfig, out / "fine.json").returncode == 0  # a regular file is fine
    stdout = capture(kubeconfig, Path("-"))
    assert stdout.returncode == 0 and json.loads(stdout.stdout)["kind"] == "List"


def test_sigterm_removes_the_partial_capture(serve: Any, out: Path) -> None:
    cluster = cluster_137()
    cluster.slow = {"/api/v1/pods": 20.0}  # nodes written, then the pods list hangs
    _, kubeconfig = serve(cluster)
    output = out / "snap.json"
    env_path = str(ROOT / "src")
    child = subprocess.Popen(
        [sys.executable, "-m", "waslint", "snapshot", "capture", "-o", str(output), "--kubeconfig", str(kubeconfig)],
        stderr=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
    )
    deadline = time.monotonic() + 30
    while not list(out.glob("snap.json.partial-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(out.glob("snap.json.partial-*")), "the capture never started writing"
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=30)
    assert child.returncode == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr
    assert list(out.iterdir()) == []


def test_what_capture_writes_feasibility_reads(serve: Any, out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.sources import snapshot
    from waslint.sources.cluster import capture as capture_module

    assert capture_module.MAX_SNAPSHOT_BYTES is snapshot.MAX_SNAPSHOT_BYTES  # one limit for both
    monkeypatch.setattr(capture_module, "MAX_SNAPSHOT_BYTES", 3000)
    _, kubeconfig = serve(cluster_137(nodes=20))
    output = out / "snap.json"
    line = one_error_line(capture(kubeconfig, output))
    assert "the snapshot passed" in line and "the most `--snapshot` reads" in line
    assert list(out.iterdir()) == []
    monkeypatch.undo()
    assert capture(kubeconfig, output).returncode == 0
    assert snapshot.load_snapshot(str(output)).summary()["nodes"] == 20


KUBECONFIGS = {
    "yaml error": "apiVersion: v1\nclusters: [\n",
    "tab": "apiVersion: v1\nclusters:\n\t- name: x\n",
    "deep nesting": "clusters: " + "[" * 5000 + "]" * 5000 + "\n",
    "not a mapping": "- just\n- a list\n",
    "wrong types": "apiVersion: v1\nclusters: 5\ncontexts: [{name: c, context: 7}]\ncurrent-context: c\n",
}


@pytest.mark.parametrize("case", [*sorted(KUBECONFIGS), "/dev/zero", "fifo"])
@pytest.mark.parametrize("command", ["audit", "capture", "lint --cluster"])
def test_a_broken_kubeconfig_is_one_line(tmp_path: Path, case: str, command: str) -> None:
    import os

    if case == "/dev/zero":
        path = Path("/dev/zero")
    elif case == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    else:
        path = tmp_path / "kubeconfig"
        path.write_text(KUBECONFIGS[case])
    args = {
        "audit": ["audit"],
        "capture": ["snapshot", "capture", "-o", str(tmp_path / "s.json")],
        "lint --cluster": ["lint", "--cluster", str(ROOT / "fixtures" / "demo")],
    }[command]
    line = one_error_line(in_process(*args, "--kubeconfig", str(path)))
    assert "kubeconfig" in line
