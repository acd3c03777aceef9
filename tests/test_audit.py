"""`waslint audit` against 1.36- and 1.37-shaped test API servers (real kubernetes client, HTTPS)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from clusters import cluster_136, cluster_137, podgroup_137, with_runtime_problems

from conftest import ROOT, CliRun, in_process, run_cli


def audit(kubeconfig: Path, *flags: str, cwd: Path | None = None) -> CliRun:
    result = in_process("audit", "--kubeconfig", str(kubeconfig), *flags, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return result


def findings_of(result: Any) -> list[tuple[str, str]]:
    return [(finding["code"], finding["path"]) for finding in json.loads(result.stdout)["findings"]]


def test_136_cluster_reports_stored_alpha_objects_gates_and_the_verdict(serve: Any) -> None:
    server, kubeconfig = serve(cluster_136())
    result = run_cli("audit", "--kubeconfig", str(kubeconfig), "--format", "markdown")  # a real process
    assert result.returncode == 1, result.stderr
    document = result.stdout
    assert document.startswith("# waslint audit: `test` (v1.36.4), target 1.37")
    verdict = document.split("## Verdict")[1].split("##")[0]
    assert "1 stored PodGroup scheduling.k8s.io/v1alpha2 object(s)" in verdict
    assert "1 stored Workload scheduling.k8s.io/v1alpha2 object(s)" in verdict
    assert "--runtime-config=scheduling.k8s.io/v1beta1=true" in verdict
    # the server-side-applied PodGroup has no last-applied annotation: managedFields names its version
    assert (
        "| PodGroup ml/trainer-workers | scheduling.k8s.io/v1alpha2 | scheduling.k8s.io/v1alpha2 |"
        " managedFields: kubectl (Apply) |"
    ) in document
    assert (
        "| Workload ml/trainer | scheduling.k8s.io/v1alpha2 | scheduling.k8s.io/v1alpha2 | last-applied annotation |"
        in document
    )
    assert "| DRAWorkloadResourceClaims | on (alpha) | off (alpha) |" in document
    assert "- kubelet gpu-node-1: 503 ServiceUnavailable" in document
    assert "- kubelet gpu-node-2: forbidden by RBAC" in document
    assert "- kube-scheduler kube-scheduler-cp-0: forbidden by RBAC" in document
    assert "about 1 Workload(s) and 1 PodGroup(s)" in document
    for row in (
        "WAS703 removed-feature-gate | cluster://test/feature-gates | GangScheduling=true",
        "WAS703 removed-feature-gate | cluster://test/feature-gates | WorkloadAwarePreemption=true",
        "WAS701 gate-inconsistent | cluster://test/feature-gates | DRAWorkloadResourceClaims",
        "WAS101 api-version-not-served | cluster://test/ml/PodGroup/trainer-workers",
        "WAS101 api-version-not-served | cluster://test/ml/Workload/trainer",
        "WAS103 legacy-disruption-mode | cluster://test/ml/Workload/trainer",
    ):
        assert row in document
    assert server.methods() == {"GET"}
    assert not any("secrets" in path or "configmaps" in path for path in server.paths())


def test_136_cluster_is_fine_for_its_own_release_except_what_it_runs(serve: Any) -> None:
    _, kubeconfig = serve(cluster_136())
    result = audit(kubeconfig, "--format", "json", "--target-version", "1.36")
    codes = {code for code, _ in findings_of(result)}
    assert "WAS101" not in codes and "WAS703" not in codes
    assert "WAS701" in codes  # the kubelet really has DRAWorkloadResourceClaims off
    assert "before 1.36" not in result.stderr


def test_137_cluster_is_clean(serve: Any) -> None:
    server, kubeconfig = serve(cluster_137())
    result = audit(kubeconfig, "--format", "json")
    assert result.returncode == 0, result.stdout
    report = json.loads(result.stdout)
    assert report["findings"] == []
    # Workload, PodGroup, 2 member Pods, PriorityClass, KAI Queue, Kueue Topology: one source each
    assert report["summary"]["files"] == 7
    markdown = audit(kubeconfig, "--format", "markdown").stdout
    assert "Nothing on this cluster blocks 1.37" in markdown
    assert "| GenericWorkload | on (beta) | on (beta) | on (beta) | on (beta) | on (beta) |" in markdown
    assert server.methods() == {"GET"}


def test_runtime_rules_and_thresholds(serve: Any, tmp_path: Path) -> None:
    _, kubeconfig = serve(with_runtime_problems(cluster_137()))
    found = findings_of(audit(kubeconfig, "--format", "json", "--select", "WAS8"))
    assert found == [
        ("WAS803", "cluster://test/rot/PodGroup/degraded"),
        ("WAS801", "cluster://test/rot/PodGroup/ghost"),
        ("WAS804", "cluster://test/rot/PodGroup/stuck"),
        ("WAS805", "cluster://test/rot/PodGroup/too-big"),
        ("WAS802", "cluster://test/rot/ResourceClaim/left-behind"),
    ]
    (tmp_path / ".waslint.yaml").write_text("runtime:\n  orphan-after: 7d\n  stuck-deletion-after: 4d\n")
    relaxed = findings_of(audit(kubeconfig, "--format", "json", "--select", "WAS8", cwd=tmp_path))
    assert [code for code, _ in relaxed] == ["WAS803", "WAS805", "WAS802"]


def test_a_forbidden_resource_is_a_warning_and_the_audit_goes_on(serve: Any) -> None:
    cluster = with_runtime_problems(cluster_137())
    cluster.forbidden = {("", "pods")}
    _, kubeconfig = serve(cluster)
    result = audit(kubeconfig, "--format", "json", "--select", "WAS8")
    assert "waslint: warning: pods.v1 not read: GET /api/v1/pods: 403 Forbidden" in result.stderr
    # without the Pods, nothing is an orphan or degraded for lack of members
    assert [code for code, _ in findings_of(result)] == ["WAS804", "WAS805", "WAS802"]
    markdown = audit(kubeconfig, "--format", "markdown").stdout
    assert "## Warnings" in markdown and "pods.v1 not read" in markdown


def test_namespace_scope_and_discovery_without_aggregation(serve: Any) -> None:
    cluster = with_runtime_problems(cluster_137())
    cluster.aggregated_discovery = False
    server, kubeconfig = serve(cluster)
    result = audit(kubeconfig, "--format", "json", "--namespace", "ml")
    assert result.returncode == 0, result.stdout
    listed = {request.path for request in server.requests if request.query.get("limit")}
    namespaced = {path for path in listed if "/namespaces/" in path}
    assert namespaced and all("/namespaces/ml/" in path or "/namespaces/kube-system/" in path for path in namespaced)
    assert "/apis/scheduling.k8s.io/v1beta1" in set(server.paths())  # per group version discovery


def test_same_object_in_two_served_versions_is_linted_once(serve: Any) -> None:
    cluster = cluster_137()
    stored = cluster.objects[("scheduling.k8s.io", "v1beta1", "podgroups")][0]
    as_alpha = json.loads(json.dumps(stored))
    as_alpha["apiVersion"] = "scheduling.k8s.io/v1alpha3"
    resource = cluster.resource("scheduling.k8s.io", "v1alpha3", "podgroups")
    assert resource is not None
    cluster.add(resource, as_alpha)
    _, kubeconfig = serve(cluster)
    markdown = audit(kubeconfig, "--format", "markdown").stdout
    assert "| PodGroup | scheduling.k8s.io/v1alpha3 | 1 |" in markdown
    assert "| PodGroup | scheduling.k8s.io/v1beta1 | 1 |" in markdown
    assert json.loads(audit(kubeconfig, "--format", "json").stdout)["summary"]["files"] == 7


def test_inline_ignore_annotation_on_a_live_object(serve: Any) -> None:
    cluster = with_runtime_problems(cluster_137())
    resource = cluster.resource("scheduling.k8s.io", "v1beta1", "podgroups")
    assert resource is not None
    ignored = podgroup_137("ignored-ghost", "rot", None, 2, annotations={"waslint.io/ignore": "WAS801"})
    cluster.add(resource, ignored)
    _, kubeconfig = serve(cluster)
    paths = [path for code, path in findings_of(audit(kubeconfig, "--format", "json", "--select", "WAS801"))]
    assert paths == ["cluster://test/rot/PodGroup/ghost"]


def test_sarif_audit_report_is_valid(serve: Any) -> None:
    _, kubeconfig = serve(cluster_136())
    result = audit(kubeconfig, "--format", "sarif")
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    report = json.loads(result.stdout)
    jsonschema.validate(report, schema)
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in report["runs"][0]["results"]
        for loc in r["locations"]
    }
    assert "cluster://test/ml/Workload/trainer" in uris


@pytest.mark.parametrize("fmt", ["yaml", "xml"])
def test_unknown_format_is_a_usage_error(serve: Any, fmt: str) -> None:
    _, kubeconfig = serve(cluster_137())
    result = in_process("audit", "--kubeconfig", str(kubeconfig), "--format", fmt)
    assert result.returncode == 2 and "--format" in result.stderr


def test_context_flag_picks_the_cluster(serve: Any, tmp_path: Path) -> None:
    import yaml

    old, old_config = serve(cluster_136())
    new, new_config = serve(cluster_137())
    merged = yaml.safe_load(old_config.read_text())
    other = yaml.safe_load(new_config.read_text())
    other["clusters"][0]["name"] = other["contexts"][0]["context"]["cluster"] = "next"
    other["users"][0]["name"] = other["contexts"][0]["context"]["user"] = "next-user"
    other["contexts"][0]["name"] = "next"
    for key in ("clusters", "users", "contexts"):
        merged[key] += other[key]
    both = tmp_path / "both"
    both.write_text(yaml.safe_dump(merged))
    report = json.loads(audit(both, "--format", "json", "--context", "next").stdout)
    assert report["findings"] == [] and new.requests and not any(r.path == "/apis" for r in old.requests)
    unknown = in_process("audit", "--kubeconfig", str(both), "--context", "nope")
    assert unknown.returncode == 2 and "no context named 'nope'" in unknown.stderr


@pytest.mark.parametrize("value", ["soon", "-5", "true"])
def test_invalid_runtime_threshold_is_a_config_error(serve: Any, tmp_path: Path, value: str) -> None:
    _, kubeconfig = serve(cluster_137())
    (tmp_path / ".waslint.yaml").write_text(f"runtime:\n  orphan-after: {value}\n")
    result = in_process("audit", "--kubeconfig", str(kubeconfig), cwd=tmp_path)
    assert result.returncode == 2
    assert "runtime" in result.stderr and "orphan-after" in result.stderr and "Traceback" not in result.stderr


def test_stored_objects_are_checked_against_the_clusters_own_openapi(serve: Any, tmp_path: Path) -> None:
    cluster = cluster_137()
    schemas = cluster.openapi["apis/scheduling.k8s.io/v1beta1"]["components"]["schemas"]
    # this patch release serves a field the packaged 1.37 schema does not know
    schemas["io.k8s.api.scheduling.v1beta1.PodGroupSpec"]["properties"]["futureField"] = {"type": "string"}
    resource = cluster.resource("scheduling.k8s.io", "v1beta1", "podgroups")
    assert resource is not None
    newer = podgroup_137("newer", "ml", None, 1)
    newer["spec"]["futureField"] = "on"
    typo = podgroup_137("typo", "ml", None, 1)
    typo["spec"]["schedulingPolicy"]["gang"]["minCount"] = "2"
    cluster.add(resource, newer)
    cluster.add(resource, typo)
    _, kubeconfig = serve(cluster)
    report = json.loads(audit(kubeconfig, "--format", "json", "--select", "WAS002").stdout)
    assert [(f["path"], f["message"]) for f in report["findings"]] == [
        (
            "cluster://test/ml/PodGroup/typo",
            "scheduling.k8s.io/v1beta1 PodGroup (the cluster's OpenAPI v3): spec.schedulingPolicy.gang.minCount:"
            " expected integer, got string '2'",
        )
    ]
    markdown = audit(kubeconfig, "--format", "markdown").stdout
    line = next(
        line for line in markdown.splitlines() if line.startswith("Schemas (WAS002) from the cluster's OpenAPI")
    )
    assert "scheduling.k8s.io/v1beta1 PodGroup" in line and "scheduling.k8s.io/v1alpha3 Workload" in line
    # the same object as a file is checked against the packaged schema, which has no futureField
    manifest = tmp_path / "newer.json"
    manifest.write_text(json.dumps(newer))
    linted = json.loads(in_process("lint", "--format", "json", "--select", "WAS002", str(manifest)).stdout)
    assert [f["code"] for f in linted["findings"]] == ["WAS002"]
    assert "futureField" in linted["findings"][0]["message"]


def test_without_openapi_access_the_packaged_schemas_are_used(serve: Any) -> None:
    cluster = cluster_137()
    cluster.forbidden_paths = {"/openapi/v3"}
    _, kubeconfig = serve(cluster)
    result = audit(kubeconfig, "--format", "json")
    assert "warning: /openapi/v3 not read" in result.stderr
    assert json.loads(result.stdout)["findings"] == []


def test_lint_cluster_validates_manifests_against_the_live_openapi(serve: Any, tmp_path: Path) -> None:
    cluster = cluster_137()
    schemas = cluster.openapi["apis/scheduling.k8s.io/v1beta1"]["components"]["schemas"]
    schemas["io.k8s.api.scheduling.v1beta1.PodGroupSpec"]["properties"]["futureField"] = {"type": "string"}
    server, kubeconfig = serve(cluster)
    manifest = tmp_path / "newer.json"
    newer = podgroup_137("newer", "ml", None, 1)
    newer["spec"]["futureField"] = "on"
    manifest.write_text(json.dumps(newer))
    args = ("lint", "--format", "json", "--select", "WAS002", str(manifest))
    assert [f["code"] for f in json.loads(in_process(*args).stdout)["findings"]] == ["WAS002"]
    live = in_process(*args, "--cluster", "--kubeconfig", str(kubeconfig))
    assert json.loads(live.stdout)["findings"] == [], live.stderr
    assert server.methods() == {"GET"} and "/openapi/v3/apis/scheduling.k8s.io/v1beta1" in set(server.paths())
    older = in_process(*args, "--cluster", "--kubeconfig", str(kubeconfig), "--target-version", "1.36")
    assert "the packaged schemas are used" in older.stderr


# -- the reports carry the verdict; words and counts for cluster input ---------------------------------


def test_the_verdict_is_in_json_sarif_text_and_markdown_not_only_stderr(serve: Any) -> None:
    _, kubeconfig = serve(cluster_136())
    reasons = {
        "1 stored PodGroup scheduling.k8s.io/v1alpha2 object(s)",
        "1 stored Workload scheduling.k8s.io/v1alpha2 object(s)",
        "scheduling.k8s.io/v1beta1 is not served after the upgrade",
    }
    report = json.loads(audit(kubeconfig, "--format", "json").stdout)
    verdict = report["verdict"]
    assert (verdict["target"], verdict["ready"]) == ("1.37", False)
    assert {reason.split(":")[0] for reason in verdict["reasons"]} == reasons
    assert report["cluster"]["context"] == "test" and report["cluster"]["server_version"] == "v1.36.4"
    assert report["cluster"]["served"]["scheduling.k8s.io"] == ["v1", "v1alpha2"]
    sarif = audit(kubeconfig, "--format", "sarif")
    log = json.loads(sarif.stdout)
    jsonschema.validate(log, json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text()))
    run = log["runs"][0]
    assert run["properties"]["verdict"] == verdict
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert [note["message"]["text"] for note in notes] == verdict["reasons"]
    assert {note["level"] for note in notes} == {"error"}
    text = audit(kubeconfig)
    assert "Before this cluster runs Kubernetes 1.37:\n  - 1 stored PodGroup" in text.stdout
    for result in (sarif, text):
        assert "before 1.37" not in result.stderr  # in the report, not beside it
    concise = audit(kubeconfig, "--format", "concise")  # no place for it in the report: stderr
    assert "waslint: before 1.37: scheduling.k8s.io/v1beta1 is not served" in concise.stderr
    clean = json.loads(audit(serve(cluster_137())[1], "--format", "json").stdout)
    assert clean["verdict"] == {"target": "1.37", "ready": True, "reasons": []}


def test_gates_read_from_metrics_are_worded_so(serve: Any) -> None:
    _, kubeconfig = serve(cluster_136())
    messages = {f["code"]: f["message"] for f in json.loads(audit(kubeconfig, "--format", "json").stdout)["findings"]}
    for code in ("WAS701", "WAS703"):
        assert "--gates" not in messages[code], messages[code]
        assert "its /metrics reports" in messages[code]
    assert "remove it from the component's --feature-gates flag or config file" in messages["WAS703"]
    assert "is on for kube-apiserver: true as its /metrics reports, but off on kubelet" in messages["WAS701"]


def test_the_summary_counts_objects_and_markdown_orders_severities(serve: Any) -> None:
    _, kubeconfig = serve(cluster_136())
    text = audit(kubeconfig).stdout
    assert text.rstrip().endswith("in 8 objects, target Kubernetes 1.37.")
    assert " files" not in text.splitlines()[-1]
    summary = json.loads(audit(kubeconfig, "--format", "json").stdout)["summary"]
    assert summary["objects"] == 8
    document = audit(kubeconfig, "--format", "markdown").stdout
    findings = document.split("## Findings\n\n", 1)[1]
    assert findings.startswith("7 errors, 1 warning, 1 info in 8 objects.\n")
    severities = [
        line.split(" | ")[0].lstrip("| ")
        for line in findings.splitlines()
        if line.startswith("| ") and "|---" not in line
    ][1:]
    assert severities == sorted(severities, key=["error", "warning", "info"].index)
    assert severities[-1] == "info"
    assert "No findings (7 objects, target Kubernetes 1.37)." in audit(serve(cluster_137())[1]).stdout


def _on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """The CLI with stderr on a pseudo-terminal (stdout a pipe), as a user at a terminal runs it."""
    import os
    import pty
    import subprocess
    import sys

    primary, secondary = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), TERM="xterm")
    env.pop("NO_COLOR", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "waslint", *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=secondary
    )
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out = child.stdout.read() if child.stdout else b""
    status = child.wait(timeout=120)
    os.close(primary)
    return status, out.decode(), seen.decode()


def test_a_long_audit_or_capture_shows_progress_on_a_terminal_only(serve: Any, tmp_path: Path) -> None:
    from clusters import cluster_137 as bigger

    _, kubeconfig = serve(bigger(nodes=30))
    status, _, err = _on_a_terminal(
        ["audit", "--kubeconfig", str(kubeconfig), "--page-size", "5", "-o", "a.txt"], tmp_path
    )
    assert status == 0, err
    assert "\r\x1b[Kwaslint: discovery" in err and "\r\x1b[Kwaslint: reading nodes.v1: 5" in err
    assert err.rstrip("\r\n").endswith("\r\x1b[K")  # the status line is erased at the end
    status, _, err = _on_a_terminal(
        ["snapshot", "capture", "--kubeconfig", str(kubeconfig), "--page-size", "5", "-o", "s.json"], tmp_path
    )
    assert status == 0, err
    assert "\r\x1b[Kwaslint: capturing nodes: 10" in err
    piped = run_cli(
        "snapshot", "capture", "--kubeconfig", str(kubeconfig), "--page-size", "5", "-o", str(tmp_path / "t.json")
    )
    assert piped.returncode == 0 and "\x1b[" not in piped.stderr and "\r" not in piped.stderr


def test_junit_lists_every_audited_object_as_a_test_case(serve: Any) -> None:
    """One test case per object linted, passing or failing, as for the files of a lint: the audit
    keeps only the objects findings point at, and lists the others' paths from its store."""
    from xml.etree import ElementTree

    _, kubeconfig = serve(with_runtime_problems(cluster_137()))
    summary = json.loads(audit(kubeconfig, "--format", "json").stdout)
    suite = ElementTree.fromstring(audit(kubeconfig, "--format", "junit").stdout).find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    objects = {case.get("name") for case in cases if str(case.get("name")).startswith("cluster://test/")}
    failing = {finding["path"] for finding in summary["findings"]}
    assert len(objects - {"cluster://test/feature-gates"}) == summary["summary"]["objects"]
    assert failing <= {case.get("name") for case in cases}
    assert len(failing) < len(cases) and int(suite.get("failures", "0")) == len(failing)
