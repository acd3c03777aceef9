"""Hostile inputs and odd file systems (issue 8): no hang, no silent skip, nothing written outside
the tree, bounded reads, no internal error on content."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, run_cli, run_cli_unprivileged

BAD = FIXTURES / "rules" / "WAS103" / "bad.yaml"
GOOD = FIXTURES / "rules" / "WAS103" / "good.yaml"
QUICK = 60.0  # a hang fails the test (TimeoutExpired) instead of blocking the suite

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# --------------------------------------------------------------------------- 1. FIFOs


@needs_fifo
def test_a_fifo_in_a_folder_is_skipped_not_read(tmp_path: Path) -> None:
    shutil.copy(BAD, tmp_path / "bad.yaml")
    os.mkfifo(tmp_path / "pipe.yaml")
    result = run_cli("lint", "--format", "json", str(tmp_path), timeout=QUICK)
    assert result.returncode == 1, result.stderr
    paths = {finding["path"] for finding in json.loads(result.stdout)["findings"]}
    assert paths == {str(tmp_path / "bad.yaml")}


@needs_fifo
@pytest.mark.parametrize("command", ["lint", "fix"])
def test_a_named_fifo_is_the_runs_own_error(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result = run_cli(command, str(fifo), timeout=QUICK)
    assert result.returncode == 2
    line = _one_error_line(result.stderr)
    assert str(fifo) in line and "not a regular file" in line


@needs_fifo
@pytest.mark.parametrize("flag", ["--gates", "--snapshot", "--config"])
def test_a_fifo_as_an_input_file_is_the_runs_own_error(tmp_path: Path, flag: str) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result = run_cli("lint", flag, str(fifo), str(GOOD), timeout=QUICK)
    assert result.returncode == 2, result.stdout
    line = _one_error_line(result.stderr)
    assert str(fifo) in line and "not a regular file" in line


def test_a_device_as_gates_ends_quickly() -> None:
    result = run_cli("lint", "--gates", "/dev/zero", str(GOOD), timeout=QUICK)
    assert result.returncode == 2
    assert "not a regular file" in _one_error_line(result.stderr)


# --------------------------------------------------------------------------- 2. unreadable paths


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_an_unreadable_folder_is_the_runs_own_error(shared_tmp: Path, command: str) -> None:
    tree = shared_tmp / "tree"
    (tree / "locked").mkdir(parents=True)
    shutil.copy(GOOD, tree / "good.yaml")
    shutil.copy(BAD, tree / "locked" / "bad.yaml")
    (tree / "locked").chmod(0)
    result = run_cli_unprivileged(command, str(tree))
    assert result.returncode == 2, result.stdout + result.stderr
    line = _one_error_line(result.stderr)
    assert str(tree / "locked") in line and "Permission denied" in line
    assert "No findings" not in result.stdout


@pytest.mark.parametrize("command", ["lint", "fix"])
def test_an_unreadable_file_is_the_runs_own_error(shared_tmp: Path, command: str) -> None:
    shutil.copy(GOOD, shared_tmp / "good.yaml")
    locked = shared_tmp / "locked.yaml"
    shutil.copy(BAD, locked)
    locked.chmod(0)
    result = run_cli_unprivileged(command, str(shared_tmp))
    assert result.returncode == 2, result.stdout + result.stderr
    line = _one_error_line(result.stderr)
    assert str(locked) in line and "Permission denied" in line


# --------------------------------------------------------------------------- 3. links, owners, modes

OLD = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
    disruptionMode: PodGroup  # token=SECRET-VALUE
"""


def _tree_with_outside_link(base: Path) -> tuple[Path, Path]:
    tree = base / "tree"
    outside = base / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "secret.yaml").write_text(OLD)
    (tree / "link.yaml").symlink_to(outside / "secret.yaml")
    (tree / "linked-folder").symlink_to(outside)
    shutil.copy(GOOD, tree / "good.yaml")
    return tree, outside / "secret.yaml"


def test_lint_does_not_follow_links_out_of_the_tree(tmp_path: Path) -> None:
    tree, _ = _tree_with_outside_link(tmp_path)
    result = run_cli("lint", str(tree))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SECRET" not in result.stdout + result.stderr
    assert f"{tree / 'link.yaml'}: symbolic link to a file outside the given paths" in result.stdout
    assert f"{tree / 'linked-folder'}: symbolic link to a folder outside the given paths" in result.stdout
    payload = json.loads(run_cli("lint", "--format", "json", str(tree)).stdout)
    assert len(payload["summary"]["skipped"]) == 2 and payload["summary"]["files"] == 1


def test_fix_writes_nothing_outside_the_tree(tmp_path: Path) -> None:
    tree, secret = _tree_with_outside_link(tmp_path)
    result = run_cli("fix", str(tree))
    assert result.returncode == 0, result.stdout + result.stderr
    assert secret.read_text() == OLD
    assert "symbolic link to a file outside the given paths" in result.stdout


def test_links_inside_the_tree_are_followed_and_kept(tmp_path: Path) -> None:
    (tmp_path / "real.yaml").write_text(OLD)
    (tmp_path / "alias.yaml").symlink_to("real.yaml")
    assert run_cli("lint", "--select", "WAS101", str(tmp_path)).stdout.count("WAS101") == 2
    result = run_cli("fix", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "v1beta1" in (tmp_path / "real.yaml").read_text()
    assert (tmp_path / "alias.yaml").is_symlink()


def test_fix_never_writes_through_a_named_link(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "elsewhere" / "w.yaml"
    target.write_text(OLD)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    result = run_cli("fix", str(link))
    assert target.read_text() == OLD and link.is_symlink()
    assert "is a symbolic link" in result.stdout


def test_a_hard_linked_file_is_reported(tmp_path: Path) -> None:
    first = tmp_path / "a.yaml"
    first.write_text(OLD)
    os.link(first, tmp_path / "b.txt")
    result = run_cli("fix", str(first))
    assert result.returncode == 0, result.stderr
    assert "v1beta1" in first.read_text()
    assert "had 2 hard links" in result.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_group_and_mode_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(OLD)
    os.chown(path, 65534, 65534)
    path.chmod(0o640)
    assert run_cli("fix", str(path)).returncode == 0
    status = path.stat()
    assert (status.st_uid, status.st_gid, status.st_mode & 0o7777) == (65534, 65534, 0o640)
    assert "v1beta1" in path.read_text()


def test_a_read_only_file_is_not_replaced_by_an_ordinary_user(shared_tmp: Path) -> None:
    path = shared_tmp / "w.yaml"
    path.write_text(OLD)
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    path.chmod(0o444)
    result = run_cli_unprivileged("fix", str(path))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"cannot write {path}: the file is read-only for this user" in result.stderr
    assert path.read_text() == OLD


# --------------------------------------------------------------------------- 4. bounded reads


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


@pytest.mark.parametrize(("flag", "limit"), [("--gates", 32), ("--snapshot", 256), ("--config", 32)])
def test_an_oversized_input_file_is_refused_without_reading_it(tmp_path: Path, flag: str, limit: int) -> None:
    huge = _sparse(tmp_path / "huge.yaml", (limit + 1) * 1024 * 1024)
    result = run_cli("lint", flag, str(huge), str(GOOD), timeout=QUICK)
    assert result.returncode == 2
    line = _one_error_line(result.stderr)
    assert str(huge) in line and f"larger than {limit} MiB" in line


DEEP_YAML = "select: " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_TOML = "[tool.waslint]\nselect = " + "[" * 5000 + "]" * 5000 + "\n"
BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}' if previous else 'x'] * 9)}]\n"
    for previous, name in zip(["", "a", "b", "c", "d", "e", "f"], "abcdefg", strict=True)
)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (".waslint.yaml", DEEP_YAML, "nest"),
        ("pyproject.toml", DEEP_TOML, "nest"),
        (".waslint.yaml", BOMB, "alias expansion"),
    ],
)
def test_the_config_file_has_the_manifest_limits(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text)
    shutil.copy(GOOD, tmp_path / "good.yaml")
    result = run_cli("lint", "good.yaml", cwd=tmp_path, timeout=QUICK)
    assert result.returncode == 2
    line = _one_error_line(result.stderr)
    assert name in line and message in line


def test_a_duplicate_key_in_the_config_is_an_error(tmp_path: Path) -> None:
    (tmp_path / ".waslint.yaml").write_text("ignore: [WAS102]\nfail-on: warning\nignore: [WAS103]\n")
    shutil.copy(BAD, tmp_path / "bad.yaml")
    result = run_cli("lint", "bad.yaml", cwd=tmp_path, timeout=QUICK)
    assert result.returncode == 2
    line = _one_error_line(result.stderr)
    assert ".waslint.yaml:3:1" in line and "duplicate key 'ignore'" in line


# --------------------------------------------------------------------------- 8. snapshots

NODE_ITEM = "- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: '8'}}\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n", "is a Node, not a kind: List"),
        ("apiVersion: v1\nkind: List\nitems: {a: 1}\n", "items is not a list"),
        ("apiVersion: v1\nkind: List\n", "items is not a list"),
        ("- a\n- b\n", "is not a kind: List"),
        ("apiVersion: v1\nkind: List\nitems: []\n---\nkind: Pod\n", "document 2 is a Pod, not a kind: List"),
    ],
)
def test_a_snapshot_that_is_not_a_list_is_the_runs_own_error(tmp_path: Path, text: str, reason: str) -> None:
    snapshot = tmp_path / "snap.yaml"
    snapshot.write_text(text)
    result = run_cli("lint", "--snapshot", str(snapshot), str(GOOD), timeout=QUICK)
    assert result.returncode == 2, result.stdout + result.stderr
    line = _one_error_line(result.stderr)
    assert str(snapshot) in line and reason in line


def test_a_snapshot_without_nodes_is_a_warning(tmp_path: Path) -> None:
    snapshot = tmp_path / "snap.yaml"
    snapshot.write_text("apiVersion: v1\nkind: List\nitems: []\n")
    result = run_cli("lint", "--snapshot", str(snapshot), str(GOOD), timeout=QUICK)
    assert result.returncode == 0
    assert _one_error_line(result.stderr).startswith(f"waslint: warning: snapshot {snapshot} holds no Nodes")
    snapshot.write_text("apiVersion: v1\nkind: List\nitems:\n" + NODE_ITEM)
    result = run_cli("lint", "--snapshot", str(snapshot), str(GOOD), timeout=QUICK)
    assert result.returncode == 0 and result.stderr == ""


# --------------------------------------------------------------------------- 9. the small ones


def test_a_duplicate_json_key_is_located_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "pod.json"
    path.write_text(
        '{\n  "apiVersion": "v1",\n  "kind": "Pod",\n  "metadata": {\n    "name": "a",\n    "name": "b"\n  }\n}\n'
    )
    payload = json.loads(run_cli("lint", "--format", "json", str(path)).stdout)
    [finding] = payload["findings"]
    assert finding["code"] == "WAS001" and "duplicate key 'name'" in finding["message"]
    assert (finding["line"], finding["column"]) == (6, 5)


def test_dotted_tool_tables_in_pyproject_are_found(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool]\nwaslint.ignore = ["WAS103"]\n')
    shutil.copy(BAD, tmp_path / "bad.yaml")
    result = run_cli("lint", "--select", "WAS103", "bad.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "No findings" in result.stdout


def test_stdin_twice_is_read_once() -> None:
    result = run_cli("lint", "--format", "json", "-", "-", stdin=BAD.read_text(), timeout=QUICK)
    payload = json.loads(result.stdout)
    assert payload["summary"]["files"] == 1
    assert {finding["path"] for finding in payload["findings"]} == {"-"}


def test_a_newline_in_a_file_name_is_quoted_in_the_diff_header(tmp_path: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    name = "odd\nname.yaml"
    (tmp_path / name).write_text(OLD)
    result = run_cli("fix", "--diff", name, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    headers = [line for line in result.stdout.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == ['--- "a/odd\\nname.yaml"', '+++ "b/odd\\nname.yaml"']
    subprocess.run(["git", "apply"], input=result.stdout, text=True, cwd=tmp_path, check=True)
    assert "v1beta1" in (tmp_path / name).read_text()


@pytest.mark.parametrize("value", ["", " ", ","])
def test_an_empty_select_is_a_usage_error(value: str) -> None:
    result = run_cli("lint", "--select", value, str(BAD), timeout=QUICK)
    assert result.returncode == 2
    assert "--select" in _one_error_line(result.stderr)


# --------------------------------------------------------------------------- 6, 7. fix on odd content

WORKLOAD_V1ALPHA2 = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata:
  name: w
spec:
  podGroupTemplates:
  - name: t
    schedulingPolicy:
      gang:
        minCount: 2
    disruptionMode: {mode}
"""
PODGROUP_V1ALPHA2 = """\
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata:
  name: pg
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  podGroupTemplateRef: {ref}
"""
ODD_CONTENT = {
    "null-ref": PODGROUP_V1ALPHA2.format(ref="null"),
    "number-name": PODGROUP_V1ALPHA2.format(
        ref="\n    workload:\n      workloadName: 5\n      podGroupTemplateName: t"
    ),
    "mode-mapping": WORKLOAD_V1ALPHA2.format(mode="{x: PodGroup}"),
    "lone-cr": WORKLOAD_V1ALPHA2.format(mode="PodGroup").replace("  name: w\n", "  name: w\r"),
    "mixed-endings": WORKLOAD_V1ALPHA2.format(mode="PodGroup").replace("\n", "\r\n", 4),
    "cr-only": WORKLOAD_V1ALPHA2.format(mode="PodGroup").replace("\n", "\r"),
}


def _fix_in_process(paths: list[str], mode: str = "fix", fmt: str = "text") -> tuple[int, str, str]:
    import io

    from waslint.fix.command import FixRequest, run
    from waslint.fix.run import FixOptions

    out, err = io.StringIO(), io.StringIO()
    status = run(FixRequest(paths, FixOptions(), mode=mode, fmt=fmt), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def _lint_in_process(path: Path) -> list[dict[str, object]]:
    from conftest import lint_path
    from waslint.report.json_report import finding_json

    return [finding_json(finding) for finding in lint_path(path).findings]


@pytest.mark.parametrize("case", sorted(ODD_CONTENT))
def test_fix_declines_odd_content_instead_of_failing(tmp_path: Path, case: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_bytes(ODD_CONTENT[case].encode())
    status, out, err = _fix_in_process([str(path)])
    assert status == 1, out + err
    assert err == "" and "internal error" not in out
    assert path.read_bytes() == ODD_CONTENT[case].encode()  # nothing written that would be wrong
    payload = json.loads(_fix_in_process([str(path)], mode="check", fmt="json")[1])
    reasons = [item["reason"] for item in payload["remaining"] if item["code"].startswith("WAS10")]
    assert reasons and all(reason.startswith("not fixed: ") for reason in reasons), reasons
    assert not any(finding["fixable"] for finding in _lint_in_process(path))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (WORKLOAD_V1ALPHA2.format(mode="podgroup"), "disruptionMode: expected object, got string 'podgroup'"),
        (
            "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: w}\nspec:\n"
            "  priorityClassName: high\n  podGroups:\n  - name: t\n    policy: {gang: {minCount: 2}}\n",
            "unknown field 'priorityClassName' in spec",
        ),
        (PODGROUP_V1ALPHA2.format(ref="{workload: {workloadName: 5, podGroupTemplateName: t}}"), "expected string"),
        (WORKLOAD_V1ALPHA2.format(mode="PodGroup").replace("name: w", "name: 5"), "metadata.name: expected string"),
    ],
    ids=["unknown-mode", "v1alpha1-extra-field", "carried-problem", "metadata"],
)
def test_fix_never_writes_a_schema_invalid_file(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(text)
    status, out, err = _fix_in_process([str(path)])
    assert status == 1 and err == "", out + err
    assert path.read_text() == text
    assert "would fail the Kubernetes 1.37 schema" in out and problem in out
    assert not [finding for finding in _lint_in_process(path) if finding["fixable"]]


def test_the_diff_splits_lines_at_line_feeds_only(tmp_path: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    text = WORKLOAD_V1ALPHA2.format(mode="PodGroup").replace("  name: w\n", "  name: w  # line \u2028# separator\n")
    (tmp_path / "w.yaml").write_text(text)
    diff = run_cli("fix", "--diff", "w.yaml", cwd=tmp_path).stdout
    assert "No newline" not in diff
    subprocess.run(["git", "apply"], input=diff, text=True, cwd=tmp_path, check=True)
    assert "v1beta1" in (tmp_path / "w.yaml").read_text()


# --------------------------------------------------------------------------- 5. linear in documents per file


class _CountingText(str):
    """A file text that counts the substring scans made on it as a whole."""

    scans = 0

    def __contains__(self, word: object) -> bool:
        type(self).scans += 1
        return str.__contains__(self, word)  # type: ignore[operator]


def test_prefilters_scan_the_file_once_per_word_not_once_per_object() -> None:
    from waslint.io.loader import parse_bytes
    from waslint.lint.engine import lint_sources
    from waslint.lint.options import LintOptions

    documents = 300
    text = "---\n".join(OLD.replace("name: training", f"name: w{n}") for n in range(documents))
    source = parse_bytes("many.yaml", text.encode())
    source.text = _CountingText(source.text)
    _CountingText.scans = 0
    result = lint_sources([source], LintOptions())
    assert len([f for f in result.findings if f.code == "WAS101"]) == documents
    assert _CountingText.scans < 50  # one scan per prefilter word; was rules x objects


def test_a_finding_composes_only_its_own_document() -> None:
    from waslint.io.loader import parse_bytes
    from waslint.lint.engine import lint_sources
    from waslint.lint.options import LintOptions

    text = "---\n".join([GOOD.read_text()] * 50 + [OLD])
    source = parse_bytes("many.yaml", text.encode())
    findings = lint_sources([source], LintOptions(select=["WAS101"])).findings
    assert [finding.span.line for finding in findings] == [
        text.count("\n", 0, text.index("apiVersion: scheduling.k8s.io/v1alpha2")) + 1
    ]
    assert source._nodes is None  # no whole-file recomposition
    assert [doc.index for doc in source.documents if doc.stored_node is not None] == [50]


def test_was605_checks_a_child_whose_own_file_never_says_disruption_mode(tmp_path: Path) -> None:
    (tmp_path / "parent.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: root}\nspec:\n"
        "  workloadRef: {workloadName: w, templateName: root}\n  schedulingPolicy: {gang: {minGroupCount: 2}}\n"
        "  disruptionMode: {all: {}}\n"
    )
    (tmp_path / "child.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: a}\nspec:\n"
        "  schedulingPolicy: {gang: {minCount: 2}}\n  parentCompositePodGroupName: root\n"
    )
    from conftest import lint_path

    findings = [f for f in lint_path(tmp_path).findings if f.code == "WAS605"]
    assert [f.path for f in findings] == [str(tmp_path / "child.yaml")]


def test_a_small_file_is_read_without_a_limit_sized_buffer(tmp_path: Path) -> None:
    import tracemalloc

    from waslint.io.loader import read_source

    path = tmp_path / "small.yaml"
    shutil.copy(GOOD, path)
    tracemalloc.start()
    try:
        for _ in range(20):
            read_source(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024  # was 32 MiB + 1 per read (the size limit), whatever the size


def test_stdin_named_after_a_link_is_still_fixed(tmp_path: Path) -> None:
    (tmp_path / "real.yaml").write_text(OLD)
    (tmp_path / "link.yaml").symlink_to("real.yaml")
    result = run_cli("fix", "--stdin-filename", str(tmp_path / "link.yaml"), "-", stdin=OLD, timeout=QUICK)
    assert result.returncode == 0, result.stderr
    assert "scheduling.k8s.io/v1beta1" in result.stdout


def test_parsed_files_from_workers_keep_read_errors_and_document_spans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from waslint.core.parallel import can_fork
    from waslint.io import batch, loader
    from waslint.io.reading import InputError

    if not can_fork():
        pytest.skip("no fork here")
    text = ("# pad\n" * 4000) + OLD + "---\n" + OLD
    paths = []
    for number in range(40):
        path = tmp_path / f"f{number}.yaml"
        path.write_text(text)
        paths.append(str(path))
    real = loader.read_bounded

    def refuse_one(path: str, *args: object) -> bytes:
        if path == paths[-1]:
            raise InputError(f"{path}: cannot read: Permission denied")
        return real(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(loader, "read_bounded", refuse_one)
    sources = batch.read_files(paths, jobs=2)
    assert [source.read_error for source in sources][-1] == f"{paths[-1]}: cannot read: Permission denied"
    serial = loader.parse_bytes(paths[0], text.encode())
    for source in sources[:-1]:
        assert [(d.chunk_start, d.span_start, d.span_end, d.span_line) for d in source.documents] == [
            (d.chunk_start, d.span_start, d.span_end, d.span_line) for d in serial.documents
        ]
        assert source.documents[1].locate(("spec",)) == serial.documents[1].locate(("spec",))
    assert serial.documents[1].locate(("spec",)).line == text.splitlines().index("spec:", 4012) + 1
