"""A streamed lint (lint_paths) indexes only the files that may hold what cross-object rules look
up, checks every other file on its own and drops its values: same findings as indexing the
whole set, far less memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, lint_options, lint_path
from waslint.findings import Finding
from waslint.io import batch
from waslint.io.config import Config
from waslint.io.loader import load_all
from waslint.lint.engine import LintResult, lint_sources
from waslint.lint.lookups import RULE_LOOKUPS
from waslint.lint.selection import plan_reading
from waslint.objects.index import ObjectIndex, UndeclaredLookup
from waslint.objects.keys import SCHEDULING


def _shape(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [
        (f.code, f.severity, f.message, f.path, f.document, f.span, f.object_id, f.fixable, f.field_path, f.scope)
        for f in findings
    ]


def _whole_set(folder: Path) -> LintResult:
    """The same run with every file parsed and indexed (how fix and audit lint)."""
    from waslint.lint.gitops import read_layout
    from waslint.lint.selection import may_need_layout

    plan, errors = plan_reading([str(folder)], Config().excludes)
    assert not errors
    sources = load_all(plan.files)
    options = lint_options()
    layout = read_layout(sources, options) if may_need_layout(source.path for source in sources) else None
    return lint_sources(sources, options, Config(), release_positions=True, layout=layout)


@pytest.mark.parametrize(
    "folder", [FIXTURES / "rules", FIXTURES / "helm", FIXTURES / "scopes", FIXTURES / "demo", CORPUS]
)
def test_streamed_findings_equal_the_whole_set_findings(folder: Path) -> None:
    if not folder.is_dir():
        pytest.skip(f"no {folder}")
    streamed = lint_path(folder)
    whole = _whole_set(folder)
    assert len(whole.findings) > 0
    assert streamed.internal_errors == [] == whole.internal_errors
    assert _shape(streamed.findings) == _shape(whole.findings)
    assert streamed.documents == whole.documents
    assert sorted(f.declined for f in streamed.findings if f.declined) == sorted(
        f.declined for f in whole.findings if f.declined
    )


def test_files_without_looked_up_objects_are_dropped_after_their_checks(tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"
    )
    (tmp_path / "gang.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: g\n"
        "spec:\n  schedulingPolicy:\n    gang:\n      minCount: 2\n"
    )
    result = lint_path(tmp_path)
    data = {Path(source.path).name: source.documents[0].data for source in result.files}
    assert data["app.yaml"] == {"apiVersion": "apps/v1", "kind": "Deployment"}  # only what reports ask
    assert data["gang.yaml"]["spec"]["schedulingPolicy"]["gang"]["minCount"] == 2  # kept for lookups
    assert result.context is not None
    assert [obj.name for obj in result.context.index.objects] == ["g"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_kind_spelled_with_escapes_is_still_found_by_the_cross_object_rules(
    tmp_path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch, "MIN_PARALLEL_FILES", 1)  # workers even for these few files
    monkeypatch.setattr(batch, "MIN_PARALLEL_BYTES", 1)
    # "Pod\x47roup" is PodGroup once parsed, but the text never says "PodGroup": the file is left
    # unparsed at first, its check notices the kind, and the run starts again indexing everything.
    (tmp_path / "group.yaml").write_text(
        'apiVersion: scheduling.k8s.io/v1beta1\nkind: "Pod\\x47roup"\nmetadata:\n  name: trainers\n'
        "  namespace: ml\nspec:\n  schedulingPolicy:\n    gang:\n      minCount: 2\n"
    )
    pods = "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{n}\n  namespace: ml\nspec:\n"
        "  schedulingGroup:\n    podGroupName: trainers\n  containers:\n  - name: main\n    image: main:1\n"
        for n in range(2)
    )
    (tmp_path / "pods.yaml").write_text(pods)
    (tmp_path / "other.yaml").write_text(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata:\n  name: other\n  namespace: ml\n"
        "spec:\n  schedulingPolicy:\n    gang:\n      minCount: 1\n"
    )
    for number in range(8):  # files streamed alongside, so a worker takes some
        (tmp_path / f"app{number}.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{number}\n")
    streamed = lint_path(tmp_path, jobs=jobs)
    whole = _whole_set(tmp_path)
    assert streamed.internal_errors == []
    assert _shape(streamed.findings) == _shape(whole.findings)
    assert not RULE_LOOKUPS.may_hold((tmp_path / "group.yaml").read_text())
    # Without the second reading the Pods would get WAS401 (PodGroup trainers not defined).
    assert "WAS401" not in {finding.code for finding in streamed.findings}


def test_a_streamed_index_refuses_undeclared_lookups() -> None:
    index = ObjectIndex(lookups=RULE_LOOKUPS)
    assert index.of_kind(SCHEDULING, "PodGroup") == []
    with pytest.raises(UndeclaredLookup, match="apps/Deployment"):
        index.of_kind("apps", "Deployment")
    with pytest.raises(UndeclaredLookup, match="replicas"):
        index.mentioning("replicas")
    whole = ObjectIndex()
    assert whole.of_kind("apps", "Deployment") == []


def test_may_hold_needs_the_kind_and_its_group() -> None:
    assert RULE_LOOKUPS.may_hold("apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n")
    assert not RULE_LOOKUPS.may_hold("apiVersion: batch/v1\nkind: Job\n")  # Volcano's Job needs batch.volcano.sh
    assert RULE_LOOKUPS.may_hold("apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n")
    assert RULE_LOOKUPS.may_hold("spec:\n  schedulingGroup:\n    podGroupName: g\n")
