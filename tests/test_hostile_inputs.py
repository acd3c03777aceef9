"""Issue 21, other inputs: hostile files, snapshots, baselines, configs and names. One test per item
of the issue, named after it; each asserts the located finding or the one-line status 2 a user
gets instead of a traceback, a hang or unbounded memory."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import FIXTURES, ROOT, in_process, run_cli

SNAPSHOT = FIXTURES / "snapshots" / "cluster.yaml"
HUGE = "1" * 5000
BIG_INT_PODGROUP = (
    '{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "a", "namespace": "ml"},'
    ' "spec": {"schedulingPolicy": {"gang": {"minCount": ' + HUGE + "}}}}"
)


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("waslint: error: "), stderr
    return lines[0]


def test_a_json_integer_over_4300_digits_is_a_finding_in_lint_jobs_fix_and_feasibility(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_text(BIG_INT_PODGROUP)
    for name in ("a", "b", "c"):  # enough files for --jobs 2 to shard the reading
        (tmp_path / f"{name}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n")
    column = BIG_INT_PODGROUP.index(HUGE) + 1
    expected = f"big.json:1:{column}: WAS001 a number of more than 4,300 digits"
    for jobs in ("1", "2"):
        result = run_cli("lint", "--format", "concise", "--jobs", jobs, ".", cwd=tmp_path)
        assert result.returncode == 1 and expected in result.stdout, result.stderr
        assert "Traceback" not in result.stderr
    fixed = run_cli("fix", "big.json", cwd=tmp_path)
    assert fixed.returncode == 1 and "a number of more than 4,300 digits" in fixed.stdout + fixed.stderr
    assert (tmp_path / "big.json").read_text() == BIG_INT_PODGROUP
    placed = run_cli("feasibility", "--snapshot", str(SNAPSHOT), "big.json", cwd=tmp_path)
    assert placed.returncode == 0, placed.stderr
    assert f"waslint: warning: big.json:1:{column}: not read: a number of more than 4,300 digits" in placed.stderr
    snapshot = tmp_path / "snap.json"
    snapshot.write_text('{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "x": ' + HUGE + "}]}")
    refused = run_cli("feasibility", "--snapshot", str(snapshot), "a.yaml", cwd=tmp_path)
    assert refused.returncode == 2 and "a number of more than 4,300 digits" in one_error_line(refused.stderr)


QUANTITY_JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: sweep, namespace: ml}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      tolerations: [{operator: Exists}]
      containers:
      - name: main
        image: trainer:1.0
        resources:
          requests: {cpu: "1", memory: "QUANTITY"}
"""


@pytest.mark.parametrize("quantity", ["1e999999999", "1e5000", "1e99999999999999999999", "8Ei"])
def test_quantities_past_what_kubernetes_counts_are_a_finding(tmp_path: Path, quantity: str) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(QUANTITY_JOB.replace("QUANTITY", quantity))
    result = run_cli("lint", "--format", "json", str(manifest))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    finding = next(f for f in json.loads(result.stdout)["findings"] if f["code"] == "WAS004")
    assert (finding["line"], finding["column"]) == (15, 40)
    assert quantity in finding["message"]
    placed = run_cli("feasibility", "--snapshot", str(SNAPSHOT), "--format", "json", str(manifest))
    assert placed.returncode == 1, placed.stderr  # no node holds it: never "feasible" on a value ignored
    group = json.loads(placed.stdout)["groups"][0]
    assert not group["feasible"] and group["limiting_resource"] == "memory"


def test_a_gang_of_a_billion_pods_is_placed_by_counts(tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    text = QUANTITY_JOB.replace("QUANTITY", "1Gi").replace("parallelism: 2", "parallelism: 1000000000")
    text = text.replace("completions: 2", "completions: 1000000000")
    manifest.write_text(text + "  scheduling:\n    schedulingPolicy:\n      gang:\n        minCount: 1000000000\n")
    started = time.monotonic()
    result = run_cli("feasibility", "--snapshot", str(SNAPSHOT), "--format", "json", str(manifest), timeout=60)
    assert time.monotonic() - started < 30  # 10^8 pods took 223 s, 10^9 ran out of memory
    assert result.returncode == 1, result.stderr
    group = json.loads(result.stdout)["groups"][0]
    assert group["required"] == 1_000_000_000 and not group["feasible"]


def _kai_zip(path: Path, payload: bytes, lie: int | None = None) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("snapshot.json", payload)
    if lie is not None:  # rewrite the uncompressed size in both headers
        data = bytearray(path.read_bytes())
        real = len(payload).to_bytes(4, "little")
        for header, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
            at = data.find(header)
            assert data[at + offset : at + offset + 4] == real
            data[at + offset : at + offset + 4] = lie.to_bytes(4, "little")
        path.write_bytes(bytes(data))
    return path


def test_a_kai_zip_whose_header_lies_is_cut_by_real_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.sources import snapshot
    from waslint.sources.snapshot import SnapshotError, load_snapshot

    monkeypatch.setattr(snapshot, "MAX_SNAPSHOT_BYTES", 1024 * 1024)
    bomb = b'{"rawObjects": {"nodes": [], "pad": "' + b"0" * (3 * 1024 * 1024) + b'"}}'
    archive = _kai_zip(tmp_path / "big.zip", bomb, lie=2**31 - 1)  # says 2 GiB: read until the limit, no further
    with pytest.raises(SnapshotError, match=r"snapshot\.json decompresses to more than 1 MiB"):
        load_snapshot(str(archive))
    archive = _kai_zip(tmp_path / "small.zip", bomb, lie=100)  # says 100 bytes: the check fails, nothing more read
    with pytest.raises(SnapshotError, match="cannot read the KAI snapshot: Bad CRC-32"):
        load_snapshot(str(archive))


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b'{"rawObjects": {"pods": 5, "nodes": []}}', "rawObjects.pods is a int, not a list"),
        (b'{"rawObjects": {"nodes": "n1"}}', "rawObjects.nodes is a str, not a list"),
        (b'{"rawObjects": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nesting deeper than 200 levels"),
        (b'{"rawObjects": {"nodes": [' + b"1" * 5000 + b"]}}", "a number of more than 4,300 digits"),
    ],
)
def test_malformed_raw_objects_are_problems_not_tracebacks(tmp_path: Path, raw: bytes, said: str) -> None:
    archive = _kai_zip(tmp_path / "snapshot.zip", raw)
    manifest = tmp_path / "none.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    result = run_cli("feasibility", "--snapshot", str(archive), str(manifest))
    assert "Traceback" not in result.stderr
    assert said in result.stderr
    assert result.returncode in (0, 2)
    if result.returncode == 2:
        one_error_line(result.stderr)


def test_the_same_node_twice_is_counted_once_with_a_warning(tmp_path: Path) -> None:
    import yaml

    from waslint.sources.snapshot import load_snapshot

    data = yaml.safe_load(SNAPSHOT.read_text())
    nodes = [item for item in data["items"] if item["kind"] == "Node"]
    twice = tmp_path / "twice.yaml"
    twice.write_text(yaml.safe_dump({**data, "items": data["items"] + nodes[:3]}))
    once = load_snapshot(str(SNAPSHOT))
    loaded = load_snapshot(str(twice))
    assert len(loaded.nodes) == len(once.nodes)
    assert any("3 Node item(s) appear more than once" in warning for warning in loaded.warnings)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.yaml").write_text(SNAPSHOT.read_text())
    (folder / "b.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes}))
    across = load_snapshot(str(folder))
    assert len(across.nodes) == len(once.nodes)
    gang = FIXTURES / "feasibility"
    single = run_cli("feasibility", "--snapshot", str(SNAPSHOT), "--format", "json", str(gang))
    doubled = run_cli("feasibility", "--snapshot", str(folder), "--format", "json", str(gang))
    assert json.loads(doubled.stdout)["groups"] == json.loads(single.stdout)["groups"]  # no capacity invented
    assert f"{len(nodes)} Node item(s) appear more than once" in doubled.stderr


def _member(kind: str, version: str, name: str, parent: str, policy: str) -> str:
    return (
        f"apiVersion: scheduling.k8s.io/{version}\nkind: {kind}\nmetadata: {{name: {name}, namespace: ml}}\n"
        f"spec:\n  parentCompositePodGroupName: {parent}\n  schedulingPolicy: {{gang: {{{policy}: 1}}}}\n"
    )


CYCLE = "---\n".join(
    [
        _member("CompositePodGroup", "v1alpha3", "a", "b", "minGroupCount"),
        _member("CompositePodGroup", "v1alpha3", "b", "a", "minGroupCount"),
        _member("PodGroup", "v1beta1", "workers", "a", "minCount"),
    ]
)


def test_a_cycle_of_composite_pod_groups_is_a_reported_problem(tmp_path: Path) -> None:
    manifest = tmp_path / "cycle.yaml"
    manifest.write_text(CYCLE)
    result = run_cli("feasibility", "--snapshot", str(SNAPSHOT), "--format", "json", str(manifest))
    assert result.returncode == 1, result.stderr  # was "0 groups", exit 0
    groups = {group["name"]: group for group in json.loads(result.stdout)["groups"]}
    assert set(groups) == {"a", "b"}
    for group in groups.values():
        assert not group["feasible"]
        assert "parentCompositePodGroupName chain is a cycle (a -> b -> a)" in group["reasons"][0]


@pytest.mark.parametrize("case", ["fifo", "/dev/zero", "deep", "huge int", "not json"])
def test_a_baseline_is_read_through_the_bounded_reader(tmp_path: Path, case: str) -> None:
    path = tmp_path / "baseline.json"
    if case == "fifo":
        os.mkfifo(path)
    elif case == "/dev/zero":
        path = Path("/dev/zero")
    elif case == "deep":
        path.write_text('{"entries": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif case == "huge int":
        path.write_text('{"baseline_version": ' + HUGE + ', "entries": []}')
    else:
        path.write_text("{not json")
    result = run_cli("lint", "--baseline", str(path), str(FIXTURES / "demo"), timeout=30)
    assert result.returncode == 2
    line = one_error_line(result.stderr)
    assert f"--baseline: {path}" in line


@pytest.mark.parametrize("pattern", ["../", "/", "", ".", "/etc/*", "a/../../b"])
def test_scope_patterns_that_name_no_folder_are_usage_errors(tmp_path: Path, pattern: str) -> None:
    (tmp_path / ".waslint.yaml").write_text(f"scopes: [{json.dumps(pattern)}]\n")
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    result = in_process("lint", ".", cwd=tmp_path)
    assert result.returncode == 2
    line = one_error_line(result.stderr)
    assert "key 'scopes': scope" in line


@pytest.mark.parametrize("pattern", ["*/*.yaml", "./*/*.yaml", "ex/b.yaml", "ex/*.yaml/"])
def test_a_file_glob_is_a_scope_each_file_it_matches_its_own_cluster(tmp_path: Path, pattern: str) -> None:
    """A glob matching files (fixtures/rules/.waslint.yaml: `*/*.yaml`) is no usage error: each file
    it matches is a cluster of its own, so the Pod's PriorityClass in the other file is unknown."""
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "a.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 10\n"
    )
    (tmp_path / "ex" / "b.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 1\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {priorityClassName: high, containers: [{name: c, image: busybox}]}\n"
    )
    together = in_process("lint", "--format", "json", ".", cwd=tmp_path)
    assert together.returncode == 0 and json.loads(together.stdout)["findings"] == []
    (tmp_path / ".waslint.yaml").write_text(f"scopes: [{json.dumps(pattern)}]\n")
    apart = in_process("lint", "--format", "json", ".", cwd=tmp_path)
    assert apart.returncode == 0, apart.stderr  # WAS405 is a warning
    findings = json.loads(apart.stdout)["findings"]
    assert [(f["path"], f["code"]) for f in findings] == [("ex/b.yaml", "WAS405")]
    assert "scope" not in findings[0]  # a file scope names no scope


def test_jobs_is_capped_at_a_multiple_of_the_cores(tmp_path: Path) -> None:
    from waslint.core.parallel import JOBS_PER_CORE, default_jobs

    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    result = in_process("lint", "--jobs", "10000", str(tmp_path))
    assert result.returncode == 0, result.stderr
    cap = JOBS_PER_CORE * default_jobs()
    assert f"waslint: warning: --jobs 10000: capped at {cap}" in result.stderr
    help_text = in_process("lint", "--help").stdout
    assert "4 per core" in " ".join(help_text.split())


def test_a_jobs_worker_killed_by_a_signal_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.core import parallel

    padding = "# " + "x" * 4000 + "\n"  # enough bytes for --jobs to fork its readers (io/batch.py)
    for index in range(200):
        (tmp_path / f"f{index}.yaml").write_text(
            f"{padding}apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: f{index}}}\n"
        )
    parent = os.getpid()
    take = parallel._take_items

    def dying(task, items, queue):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return take(task, items, queue)

    monkeypatch.setattr(parallel, "_take_items", dying)
    result = in_process("lint", "--jobs", "2", str(tmp_path))
    assert result.returncode == 2
    line = one_error_line(result.stderr)
    assert "a --jobs worker was killed by SIGKILL" in line


def _wait_until_it_catches_sigterm(pid: int, timeout: float = 30.0) -> None:
    """Until the child's handler is installed (python -m waslint installs it first thing): a SIGTERM
    before that, while the interpreter itself starts (0.4 s and more on a loaded machine), takes
    the default action, which no Python code can change. Where /proc is absent, a fixed 0.4 s."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        time.sleep(0.4)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            caught = next(line for line in status.read_text().splitlines() if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            return  # it has exited
        if int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.005)


def test_fix_interrupted_by_sigterm_leaves_no_temporary_file(tmp_path: Path) -> None:
    old = (FIXTURES / "rules" / "WAS101" / "bad.yaml").read_text()
    tree = tmp_path / "tree"
    tree.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for attempt in range(8):
        for index in range(150):
            (tree / f"m{index}.yaml").write_text(old)
        started = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-m", "waslint", "fix", str(tree)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        _wait_until_it_catches_sigterm(child.pid)
        time.sleep(0.15 * attempt)  # from start-up into the writes
        child.send_signal(signal.SIGTERM)
        _, stderr = child.communicate(timeout=120)
        # -SIGTERM: the signal came as the interpreter was finalizing, after the run (Python resets
        # its handlers to the default action then); what matters is below: nothing left behind.
        assert child.returncode in (0, 1, 128 + signal.SIGTERM, -signal.SIGTERM), (child.returncode, stderr)
        assert "Traceback" not in stderr.decode()
        leftovers = [path.name for path in tree.iterdir() if not re.fullmatch(r"m\d+\.yaml", path.name)]
        assert leftovers == [], (attempt, time.monotonic() - started, leftovers)


def test_junit_holds_control_characters_as_valid_xml(tmp_path: Path) -> None:
    name = "job\x01\x1b[31m\x0b.yaml"
    (tmp_path / name).write_text("apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: a}\n")
    result = in_process("lint", "--format", "junit", ".", cwd=tmp_path)
    assert result.returncode == 1
    root = ElementTree.fromstring(result.stdout)  # parses: nothing XML 1.0 forbids is in it
    case = root.find("./testsuite/testcase")
    assert case is not None and case.get("name") == "job\\x01\\x1b[31m\\x0b.yaml"


def test_github_format_a_newline_in_a_file_name_injects_no_workflow_command(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text("apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: a}\n")
    evil = "x\n::error file=README.md::forged\n::stop-commands::tok.yaml"
    missing = tmp_path / evil
    result = in_process("lint", "--format", "github", "ok.yaml", evil, "::stop-commands::tok.yaml", cwd=tmp_path)
    assert not missing.exists()
    for text in (result.stdout, result.stderr):
        assert not any(line.lstrip().startswith("::") and "ok.yaml" not in line for line in text.splitlines()), text
    concise = run_cli("lint", "--format", "concise", "::stop-commands::a.yaml", cwd=tmp_path)
    (tmp_path / "::stop-commands::a.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: a}\n"
    )
    concise = run_cli("lint", "--format", "concise", "::stop-commands::a.yaml", cwd=tmp_path)
    assert concise.stdout.startswith("./::stop-commands::a.yaml:"), concise.stdout


def test_the_step_summary_escapes_backticks_and_html(tmp_path: Path) -> None:
    name = "a`b`<img src=x onerror=alert(1)>|[x](evil.example).yaml"
    (tmp_path / name).write_text("apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {name: a}\n")
    summary = tmp_path / "summary.md"
    result = run_cli("lint", "--format", "github", ".", cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 1
    text = summary.read_text()
    row = next(line for line in text.splitlines() if "WAS101" in line and "`" in line)
    # the path in a code span whose fence is longer than its backticks: nothing in it is HTML or a link
    assert "| ``a`b`<img src=x onerror=alert(1)>\\|[x](evil.example).yaml:1:1`` |" in row
    assert row.count("|") - row.count("\\|") == 5  # the path's | cannot add a column
    assert "(\\`waslint fix\\` does it)" in row  # backticks in a message cell are literal
