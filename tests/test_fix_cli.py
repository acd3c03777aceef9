"""`waslint fix` on the command line: modes, streams, exit status, flags, safety."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli, run_cli_unprivileged
from waslint.fix import edits as edits_module
from waslint.fix.command import FixRequest, run
from waslint.fix.run import FixOptions
from waslint.lint.options import LintOptions

V1ALPHA2 = """\
# training gang
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata:
  name: training
  namespace: ml
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
    disruptionMode: PodGroup  # 1.36 form
"""
FIXED = V1ALPHA2.replace("v1alpha2", "v1beta1").replace(
    "    disruptionMode: PodGroup  # 1.36 form\n", "    disruptionMode:\n      all: {}  # 1.36 form\n"
)
V1ALPHA3 = "apiVersion: scheduling.k8s.io/v1alpha3\nkind: PodGroup\nmetadata:\n  name: pg\nspec:\n  schedulingPolicy:\n    basic: {}\n"
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  namespace: ml
spec:
  workloadRef:
    name: training
    podGroup: workers
  containers:
  - name: main
    image: trainer:1.0
"""


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "workload.yaml").write_text(V1ALPHA2)
    (tmp_path / "deploy" / "ok.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
    return tmp_path


def test_diff_prints_a_unified_diff_and_changes_nothing(repo: Path) -> None:
    result = run_cli("fix", "--diff", "deploy", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("--- a/deploy/workload.yaml\n+++ b/deploy/workload.yaml\n@@ ")
    assert "-apiVersion: scheduling.k8s.io/v1alpha2\n+apiVersion: scheduling.k8s.io/v1beta1\n" in result.stdout
    assert (
        "-    disruptionMode: PodGroup  # 1.36 form\n+    disruptionMode:\n+      all: {}  # 1.36 form\n"
        in result.stdout
    )
    assert "ok.yaml" not in result.stdout
    assert "Would fix 2 findings in 1 file" in result.stderr  # the summary stays off stdout
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2


def test_diff_applies_with_git_apply(repo: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    diff = run_cli("fix", "--diff", "deploy", cwd=repo).stdout
    subprocess.run(["git", "apply"], input=diff, text=True, cwd=repo, check=True)
    assert (repo / "deploy" / "workload.yaml").read_text() == FIXED


def test_check_exits_1_when_something_would_change(repo: Path) -> None:
    result = run_cli("fix", "--check", "deploy", cwd=repo)
    assert result.returncode == 1
    assert "Would fix deploy/workload.yaml: 2 fixes (WAS101, WAS103)" in result.stdout
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2
    clean = run_cli("fix", "--check", "deploy/ok.yaml", cwd=repo)
    assert clean.returncode == 0 and "Nothing to fix in 1 file." in clean.stdout


def test_fix_in_place_keeps_mode_and_leaves_no_temporary_file(repo: Path) -> None:
    target = repo / "deploy" / "workload.yaml"
    os.chmod(target, 0o640)
    untouched = repo / "deploy" / "ok.yaml"
    before = untouched.stat().st_mtime_ns
    result = run_cli("fix", "deploy", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert target.read_text() == FIXED
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert untouched.stat().st_mtime_ns == before  # untouched files are not rewritten
    assert sorted(p.name for p in (repo / "deploy").iterdir()) == ["ok.yaml", "workload.yaml"]
    assert "Fixed deploy/workload.yaml: 2 fixes (WAS101, WAS103)" in result.stdout
    again = run_cli("fix", "--check", "deploy", cwd=repo)
    assert again.returncode == 0


def test_fix_never_writes_through_a_symlink(repo: Path) -> None:
    link = repo / "link.yaml"
    link.symlink_to(repo / "deploy" / "workload.yaml")
    result = run_cli("fix", "link.yaml", cwd=repo)
    assert result.returncode == 1 and "link.yaml is a symbolic link" in result.stdout
    assert link.is_symlink()
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2
    assert run_cli("fix", ".", cwd=repo).returncode == 0  # the walk reaches the file itself
    assert link.is_symlink()
    assert (repo / "deploy" / "workload.yaml").read_text() == FIXED


def test_stdin_writes_the_fixed_text_to_stdout() -> None:
    result = run_cli("fix", "-", stdin=V1ALPHA2)
    assert result.returncode == 0, result.stderr
    assert result.stdout == FIXED
    assert "Fixed -: 2 fixes" in result.stderr


def test_stdin_keeps_bom_and_crlf_bytes() -> None:
    raw = ("\ufeff" + V1ALPHA2).replace("\n", "\r\n").encode("utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-m", "waslint", "fix", "-"], input=raw, capture_output=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("\ufeff" + FIXED).replace("\n", "\r\n").encode("utf-8")


def test_stdin_check_and_diff() -> None:
    assert run_cli("fix", "--check", "-", stdin=V1ALPHA2).stdout == ""
    diff = run_cli("fix", "--diff", "-", stdin=V1ALPHA2)
    assert diff.returncode == 1 and diff.stdout.startswith("--- a/-\n+++ b/-\n")
    clean = run_cli("fix", "-", stdin=FIXED)
    assert clean.returncode == 0 and clean.stdout == FIXED


def test_select_and_ignore_apply_to_fixes(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(V1ALPHA3 + "---\n" + V1ALPHA2)
    only = run_cli("fix", "--select", "WAS102", str(path))
    assert only.returncode == 0  # only WAS102 runs, so nothing else is reported
    text = path.read_text()
    assert text.startswith("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup")
    assert "scheduling.k8s.io/v1alpha2" in text and "disruptionMode: PodGroup" in text
    run_cli("fix", "--ignore", "WAS103", str(path))
    assert "scheduling.k8s.io/v1alpha2" not in path.read_text()


def test_unsafe_fixes_are_opt_in(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text(V1ALPHA2)
    (tmp_path / "pod.yaml").write_text(POD)
    safe = run_cli("fix", str(tmp_path))
    assert safe.returncode == 1
    assert "rerun with --unsafe-fixes" in safe.stdout
    assert (tmp_path / "pod.yaml").read_text() == POD
    unsafe = run_cli("fix", "--unsafe-fixes", str(tmp_path))
    assert unsafe.returncode == 0, unsafe.stdout
    assert "podGroupName: training-workers" in (tmp_path / "pod.yaml").read_text()
    assert "name: training-workers\n" in (tmp_path / "w.yaml").read_text()


def test_target_version_other_than_137_is_a_usage_error(repo: Path) -> None:
    result = run_cli("fix", "--target-version", "1.36", "deploy", cwd=repo)
    assert result.returncode == 2
    assert "1.37" in result.stderr
    assert run_cli("fix", "--check", "--target-version", "1.37", "deploy", cwd=repo).returncode == 1


def test_usage_errors(repo: Path) -> None:
    assert run_cli("fix", "missing.yaml", cwd=repo).returncode == 2
    assert run_cli("fix", "-", "deploy", cwd=repo, stdin="").returncode == 2
    assert run_cli("fix", "--format", "xml", "deploy", cwd=repo).returncode == 2
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2


def test_a_file_that_does_not_parse_is_refused_untouched(tmp_path: Path) -> None:
    broken = V1ALPHA2 + "---\nkind: [oops\n"
    path = tmp_path / "broken.yaml"
    path.write_text(broken)
    result = run_cli("fix", str(path))
    assert result.returncode == 1
    assert path.read_text() == broken
    assert "WAS001" in result.stdout and "does not parse" in result.stdout


def test_helm_templates_are_fixed_around_their_actions(tmp_path: Path) -> None:
    chart = V1ALPHA2.replace("name: training", 'name: "{{ .Release.Name }}"')
    path = tmp_path / "workload.yaml"
    path.write_text(chart)
    result = run_cli("fix", str(path))
    assert result.returncode == 0, result.stdout
    fixed = path.read_text()
    assert 'name: "{{ .Release.Name }}"' in fixed and "scheduling.k8s.io/v1beta1" in fixed


def test_helm_templates_that_cannot_be_masked_are_skipped_with_a_note(tmp_path: Path) -> None:
    chart = V1ALPHA2.replace("metadata:", "metadata:\n  {{- if .Values.a }}\n  {{- end }}\n  x: [{{ .y }}")
    path = tmp_path / "workload.yaml"
    path.write_text(chart)
    result = run_cli("fix", str(path))
    assert path.read_text() == chart
    assert "Helm/Go template" in result.stdout


def test_json_report(repo: Path) -> None:
    result = run_cli("fix", "--check", "--format", "json", "deploy", cwd=repo)
    payload = json.loads(result.stdout)
    assert payload["mode"] == "check"
    assert payload["summary"] == {"files": 2, "changed_files": 1, "fixes": 2, "remaining": 0}
    assert [f["code"] for f in payload["files"][0]["fixes"]] == ["WAS101", "WAS103"]


def test_report_to_a_file_and_fail_on(repo: Path) -> None:
    (repo / "deploy" / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: w\nspec:\n  template:\n    spec:\n"
        "      restartPolicy: Never\n      containers:\n      - name: c\n        image: k\n"
        '        command: ["kubectl", "wait", "--for=condition=PodGroupScheduled"]\n'
    )
    result = run_cli("fix", "-o", "report.txt", "deploy", cwd=repo)
    assert result.returncode == 0 and result.stdout == ""  # WAS106 is info
    report = (repo / "report.txt").read_text()
    assert "WAS106" in report and "no automatic fix" in report
    assert run_cli("fix", "--fail-on", "info", "deploy", cwd=repo).returncode == 1


def test_config_and_suppressions_apply(tmp_path: Path) -> None:
    (tmp_path / ".waslint.yaml").write_text("ignore: [WAS102]\n")
    (tmp_path / "pg.yaml").write_text(V1ALPHA3)
    suppressed = V1ALPHA2.replace("  namespace: ml\n", "  namespace: ml\n  annotations:\n    waslint.io/ignore: WAS1\n")
    (tmp_path / "w.yaml").write_text(suppressed)
    result = run_cli("fix", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert (tmp_path / "pg.yaml").read_text() == V1ALPHA3
    assert (tmp_path / "w.yaml").read_text() == suppressed


def test_a_write_failure_is_exit_2(shared_tmp: Path) -> None:
    """As an ordinary user (`nobody` when the tests run as root, who may write anywhere)."""
    folder = shared_tmp / "deploy"
    folder.mkdir()
    (folder / "workload.yaml").write_text(V1ALPHA2)
    (folder / "workload.yaml").chmod(0o666)
    os.chmod(folder, 0o555)
    try:
        result = run_cli_unprivileged("fix", "deploy", cwd=shared_tmp)
    finally:
        os.chmod(folder, 0o755)
    assert result.returncode == 2 and "cannot write" in result.stderr, result.stdout + result.stderr
    assert (folder / "workload.yaml").read_text() == V1ALPHA2


def test_a_fix_that_breaks_the_yaml_is_not_written_and_reported(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = edits_module._set_scalar

    def broken(node: object, value: str, doc: edits_module.DocText) -> edits_module.Edit:
        edit = real(node, value, doc)  # type: ignore[arg-type]
        return edits_module.Edit(edit.start, edit.end, edit.text + ": [")

    monkeypatch.setattr(edits_module, "_set_scalar", broken)
    out, err = io.StringIO(), io.StringIO()
    request = FixRequest([str(repo / "deploy")], FixOptions(lint=LintOptions()))
    status = run(request, stdout=out, stderr=err)
    assert status == 2
    assert "please report this bug" in err.getvalue()
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2


def test_a_fix_that_breaks_the_schema_is_declined(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.lint.fixers import migration as planner

    monkeypatch.setitem(planner.DISRUPTION, "PodGroup", {"everything": {}})
    out, err = io.StringIO(), io.StringIO()
    status = run(FixRequest([str(repo / "deploy")], FixOptions()), stdout=out, stderr=err)
    assert status == 1 and err.getvalue() == ""
    assert "would fail the Kubernetes 1.37 schema: unknown field 'everything'" in out.getvalue()
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2


def test_the_safety_net_catches_a_schema_break_the_planner_missed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.lint.fixers import migration as planner

    monkeypatch.setitem(planner.DISRUPTION, "PodGroup", {"everything": {}})
    monkeypatch.setattr(planner, "decline_invalid", lambda *args: True)
    out, err = io.StringIO(), io.StringIO()
    status = run(FixRequest([str(repo / "deploy")], FixOptions()), stdout=out, stderr=err)
    assert status == 2
    assert "fails the 1.37 schema" in err.getvalue()
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2


def test_a_write_error_leaves_the_file_and_exits_2(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.fix import command

    def refuse(path: str, data: bytes) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(command, "write_atomic", refuse)
    out, err = io.StringIO(), io.StringIO()
    status = run(FixRequest([str(repo / "deploy")], FixOptions()), stdout=out, stderr=err)
    assert status == 2 and "cannot write" in err.getvalue()
    assert (repo / "deploy" / "workload.yaml").read_text() == V1ALPHA2


def test_atomic_write_replaces_the_file(tmp_path: Path) -> None:
    from waslint.fix.writer import write_atomic

    path = tmp_path / "a.yaml"
    path.write_text("old\n")
    os.chmod(path, 0o600)
    inode = path.stat().st_ino
    write_atomic(str(path), b"new\n")
    assert path.read_bytes() == b"new\n"
    assert path.stat().st_ino != inode  # a new file renamed over the old one
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["a.yaml"]


def test_a_file_changed_during_the_fix_is_not_overwritten(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from waslint.fix import command

    target = repo / "deploy" / "workload.yaml"
    real = command.fix_paths

    def racing(*args: object, **kwargs: object) -> object:
        outcome = real(*args, **kwargs)  # type: ignore[arg-type]
        target.write_text(V1ALPHA2 + "# edited meanwhile\n")
        return outcome

    monkeypatch.setattr(command, "fix_paths", racing)
    err = io.StringIO()
    status = run(FixRequest([str(repo / "deploy")], FixOptions()), stdout=io.StringIO(), stderr=err)
    assert status == 2 and "changed while it was being fixed" in err.getvalue()
    assert target.read_text() == V1ALPHA2 + "# edited meanwhile\n"


def test_utf16_files_keep_their_encoding(tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_bytes(V1ALPHA2.encode("utf-16"))  # with a BOM, native byte order
    assert run_cli("fix", str(path)).returncode == 0
    assert path.read_bytes() == FIXED.encode("utf-16")
