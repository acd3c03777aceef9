"""`waslint feasibility` end to end: the README quickstart on the embedded snapshot, the JSON
contract, exit statuses, KAI snapshot input, the what-ifs and the common reporters."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from conftest import FIXTURES, ROOT, run_cli

SNAPSHOT = FIXTURES / "snapshots" / "cluster.yaml"
MANIFESTS = FIXTURES / "feasibility"
GROUP_KEYS = {
    "kind", "namespace", "name", "path", "line", "feasible", "required", "placeable", "domain",
    "fitting_domains", "placement", "reasons", "exclusions", "limiting_resource", "blocked_by",
}  # fmt: skip


def feasibility(*args: str, cwd: Path = ROOT) -> Any:
    return run_cli("feasibility", *args, cwd=cwd)


def test_quickstart_text_names_the_fitting_and_the_failing_gang() -> None:
    result = feasibility("--snapshot", "fixtures/snapshots/cluster.yaml", "fixtures/feasibility/")
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "\x1b[" not in out  # not a terminal: plain text
    assert "Job research/finetune (fixtures/feasibility/finetune.yaml:14): feasible" in out
    assert "PodGroup research/pretrain-70b (fixtures/feasibility/pretrain.yaml:10): cannot be placed" in out
    assert "Resources were found for 2 pods while 3 are required for gang scheduling" in out
    assert "room for 3 pods on eligible nodes in all (42 nvidia.com/gpu free, 8 per pod), at most 2 in one rack" in out
    assert "(topology.kubernetes.io/rack=rack-b2); the gang needs 3 in one rack" in out
    assert "    rack-b2 ##############################     18     2 pods\n    rack-a2 #######################" in out
    assert "    rack-a1 #######.......................      4     0 pods\n    ... and 2 more domains\n" in out
    assert out.rstrip().endswith("2 group(s): 1 feasible, 1 cannot be placed")


def test_json_report_has_the_contract_shape() -> None:
    result = feasibility("--snapshot", str(SNAPSHOT), str(MANIFESTS), "--format", "json")
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert {"tool", "version", "snapshot", "groups", "summary"} <= set(payload)
    assert payload["snapshot"]["nodes"] == 24
    finetune, pretrain = payload["groups"]
    for group in (finetune, pretrain):
        assert set(group) >= GROUP_KEYS
    assert finetune["feasible"] is True
    assert finetune["domain"] == {"key": "topology.kubernetes.io/rack", "value": "rack-a1"}
    assert sum(finetune["placement"].values()) >= finetune["required"] == 4
    assert (pretrain["feasible"], pretrain["required"], pretrain["placeable"]) == (False, 3, 2)
    assert pretrain["limiting_resource"] == "nvidia.com/gpu"
    assert pretrain["exclusions"]["not Ready"] == 1
    assert (pretrain["path"], pretrain["line"]) == (str(MANIFESTS / "pretrain.yaml"), 10)
    assert payload["summary"]["infeasible"] == 1


def test_only_feasible_gangs_exit_zero_and_the_autoscaler_what_if() -> None:
    assert feasibility("--snapshot", str(SNAPSHOT), str(MANIFESTS / "finetune.yaml")).returncode == 0
    grown = feasibility(
        "--snapshot", str(SNAPSHOT), str(MANIFESTS / "pretrain.yaml"),
        "--add-nodes", "1", "--like", "gpu-b2-2", "--label", "topology.kubernetes.io/rack=rack-b2",
    )  # fmt: skip
    assert grown.returncode == 0, grown.stdout
    assert "what-if: added 1 node(s) like gpu-b2-2, topology.kubernetes.io/rack=rack-b2" in grown.stdout
    preempt = feasibility("--snapshot", str(SNAPSHOT), str(MANIFESTS / "pretrain.yaml"), "--preempt")
    assert preempt.returncode == 1  # a what-if changes no verdict
    assert (  # a WAS PodGroup with a topology constraint: kube-scheduler 1.37 does not preempt for it
        "--preempt: kube-scheduler 1.37 runs no workload-aware preemption for a pod group with a topology"
        in preempt.stdout
    )
    drained = feasibility("--snapshot", str(SNAPSHOT), str(MANIFESTS / "finetune.yaml"), "--drain", "gpu-a1-4")
    assert drained.returncode == 0 and "rack-a1" not in drained.stdout.split("placement")[1].split("\n")[0]


def test_usage_errors_exit_two_with_one_line() -> None:
    for args, words in (
        ((str(MANIFESTS),), "--snapshot SNAP is required"),
        (("--snapshot", "nope.yaml", str(MANIFESTS)), "no such file or directory"),
        (("--snapshot", str(SNAPSHOT), str(MANIFESTS), "--drain", "ghost"), "--drain: no node ghost"),
        (("--snapshot", str(SNAPSHOT), str(MANIFESTS), "--add-nodes", "2"), "--add-nodes N and --like NODE"),
        (("--snapshot", str(SNAPSHOT), "missing/"), "missing/: no such file or directory"),
    ):
        result = feasibility(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert words in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def kai_raw_objects() -> dict[str, Any]:
    """The fixture cluster as KAI's snapshot plugin writes it: Go structs without apiVersion/kind."""
    items = yaml.safe_load(SNAPSHOT.read_text())["items"]
    keys = {"Node": "nodes", "Pod": "pods", "PriorityClass": "priorityClasses", "Queue": "queues"}
    raw: dict[str, list[Any]] = {key: [] for key in keys.values()}
    for item in items:
        kind = item.pop("kind")
        item.pop("apiVersion")
        raw[keys[kind]].append(item)
    raw["configMaps"] = [{"metadata": {"name": "secret-ish"}, "data": {"token": "x"}}]
    return {"config": {}, "schedulerParams": {}, "rawObjects": raw}


def test_kai_snapshot_zip_and_json_give_the_same_verdicts(tmp_path: Path) -> None:
    expected = json.loads(feasibility("--snapshot", str(SNAPSHOT), str(MANIFESTS), "--format", "json").stdout)
    data = json.dumps(kai_raw_objects())
    (tmp_path / "snapshot.json").write_text(data)
    with zipfile.ZipFile(tmp_path / "snapshot.zip", "w") as archive:
        archive.writestr("snapshot.json", data)
    for capture in ("snapshot.json", "snapshot.zip"):
        result = feasibility("--snapshot", str(tmp_path / capture), str(MANIFESTS), "--format", "json")
        assert result.returncode == 1, result.stderr
        payload = json.loads(result.stdout)
        assert payload["groups"] == expected["groups"]
        assert payload["snapshot"]["nodes"] == 24
    (tmp_path / "other.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    broken = feasibility("--snapshot", str(tmp_path / "other.zip"), str(MANIFESTS))
    assert broken.returncode == 2 and "not a KAI snapshot" in broken.stderr


def test_sarif_and_github_report_the_unplaceable_gang_at_its_min_count() -> None:
    sarif = json.loads(feasibility("--snapshot", str(SNAPSHOT), str(MANIFESTS), "--format", "sarif").stdout)
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "WAS606"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 10
    github = feasibility("--snapshot", str(SNAPSHOT), str(MANIFESTS), "--format", "github").stdout
    assert github.startswith("::error file=") and "pretrain.yaml,line=10" in github


def test_lint_with_snapshot_reports_was606_at_min_count() -> None:
    result = run_cli("lint", "--snapshot", str(SNAPSHOT), str(MANIFESTS), "--format", "json", cwd=ROOT)
    findings = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "WAS606"]
    assert [(Path(f["path"]).name, f["line"]) for f in findings] == [("pretrain.yaml", 10)]
    assert "Resources were found for 2 pods while 3 are required" in findings[0]["message"]


def test_the_feasibility_page_shows_the_real_output() -> None:
    page = (ROOT / "docs" / "feasibility.md").read_text()
    command = "waslint feasibility --snapshot fixtures/snapshots/cluster.yaml fixtures/feasibility/"
    after = page.split(f"```sh\n{command}\n```\n\n```\n", 1)[1]
    shown = after.split("\n```\n", 1)[0]
    result = run_cli(*command.split()[1:], cwd=ROOT, env={"NO_COLOR": "1"})
    assert result.stdout.rstrip("\n") == shown


def test_every_corpus_folder_gets_a_verdict_per_group_and_no_crash() -> None:
    import pytest

    from conftest import CORPUS
    from waslint.feasibility.command import FeasibilityRequest, run

    if not CORPUS.is_dir():
        pytest.skip("shared corpus not present")
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        outcome = run(FeasibilityRequest(str(SNAPSHOT), [str(folder)], "json"))
        payload = json.loads(outcome.text)
        assert outcome.status == (1 if payload["summary"]["infeasible"] else 0), folder
        for group in payload["groups"]:
            assert group["feasible"] or group["reasons"], (folder, group["name"])
            if group["feasible"] and not group["children"]:
                assert sum(group["placement"].values()) >= group["required"], (folder, group["name"])


def test_the_fixture_snapshot_is_what_its_generator_writes() -> None:
    """fixtures/snapshots/cluster.yaml and its copy in fixtures/rules/WAS606 are generated."""
    script = ROOT / "scripts" / "gen_fixture_snapshot.py"
    result = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, f"stale: run python {script.relative_to(ROOT)}"
