"""`waslint fix` on the shared corpus of real WAS manifests (../shared/corpus/was and friends).

On a copy: no internal error; every fixed file parses; objects that were valid in their own
release are valid under kubernetes-validate 1.37 strict after the fix (and added PodGroups are);
the line diff stays on the lines of the changed nodes; comments survive; a second run changes
nothing; what lint still calls fixable is listed by the fix with a reason. Folders without WAS
objects, and templates, come out byte-identical.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import kubernetes_validate
import pytest
from test_fix_support import (
    changed_input_lines,
    decode,
    documents,
    node_lines_of_changes,
    objects,
)

from conftest import CORPUS, lint_path, needs_corpus
from waslint.fix.run import FixOptions, FixResult, fix_paths

pytestmark = needs_corpus
COMMENT = re.compile(r"(?:^|\s)(#.*)$")
RELEASES = ("1.35.0", "1.36.0", "1.37.0")


@pytest.fixture(scope="module")
def was_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("corpus") / "was"
    shutil.copytree(CORPUS / "was", target)
    return target


@pytest.fixture(scope="module")
def fixed(was_copy: Path) -> FixResult:
    result, errors = fix_paths([str(was_copy)], FixOptions(unsafe=True))
    assert errors == []
    return result


def _valid(obj: dict[str, object], release: str) -> bool:
    try:
        kubernetes_validate.validate(obj, release, strict=True)
    except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError):
        return False
    except Exception:  # an odd document kubernetes-validate cannot judge
        return False
    return True


def test_corpus_fix_runs_clean(fixed: FixResult) -> None:
    assert fixed.internal_errors == []
    assert len(fixed.changed) >= 50  # the corpus is mostly 1.35/1.36 material
    # 94 since fixes whose result would fail the 1.37 schema are declined (issue 8): the corpus
    # has objects with fields no 1.37 version has (k8s API test data, early KEP drafts).
    assert fixed.fixes >= 90
    declined = [item for item in fixed.remaining if "would fail the Kubernetes 1.37 schema" in item.reason]
    assert declined and all(item.finding.code.startswith("WAS10") for item in declined)


def test_corpus_fixed_files_pass_the_137_strict_schema(fixed: FixResult) -> None:
    checked = 0
    for state in fixed.changed:
        old = objects(documents(state.raw))
        new = objects(documents(state.encoded()))
        for obj in new:
            if obj in old:
                continue
            matches = [o for o in old if _same_identity(o, obj)]
            if matches and not any(_valid_original(o) for o in matches):
                continue  # the original was already invalid: not the fix's doing
            checked += 1
            assert _valid(obj, "1.37.0"), f"{state.path}: {obj.get('kind')} {obj.get('metadata')}"
    assert checked >= 30


def _valid_original(obj: dict[str, object]) -> bool:
    """Valid in some release, and no disruptionMode string outside the documented Pod/PodGroup
    (the JSON schemas carry no enums; the API server rejects other values)."""
    if any(mode not in ("Pod", "PodGroup") for mode in _string_modes(obj)):
        return False
    return any(_valid(obj, release) for release in RELEASES)


def _string_modes(value: object) -> list[str]:
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k == "disruptionMode" and isinstance(v, str)]
        return found + [m for v in value.values() for m in _string_modes(v)]
    if isinstance(value, list):
        return [m for v in value for m in _string_modes(v)]
    return []


def _same_identity(a: dict[str, object], b: dict[str, object]) -> bool:
    def ident(o: dict[str, object]) -> tuple[object, object]:
        meta = o.get("metadata")
        return o.get("kind"), meta.get("name") if isinstance(meta, dict) else None

    return ident(a) == ident(b)


def test_corpus_diff_touches_only_changed_nodes(fixed: FixResult) -> None:
    for state in fixed.changed:
        after = state.encoded()
        changed = changed_input_lines(state.raw, after)
        allowed = node_lines_of_changes(state.raw, after)
        assert changed <= allowed, f"{state.path}: lines {sorted(changed - allowed)}"


def test_corpus_comments_survive(fixed: FixResult) -> None:
    for state in fixed.changed:
        before = decode(state.raw).splitlines()
        after = Counter(m.group(1) for line in state.text.splitlines() if (m := COMMENT.search(line)))
        removed = {i for i in changed_input_lines(state.raw, state.encoded())}
        wanted = Counter(
            m.group(1)
            for number, line in enumerate(before, 1)
            if (m := COMMENT.search(line)) and not (number in removed and "priority:" in line)
        )
        missing = wanted - after
        assert not missing, f"{state.path}: {missing}"


def test_corpus_fix_is_idempotent_and_converges(fixed: FixResult, was_copy: Path) -> None:
    for state in fixed.changed:
        Path(state.path).write_bytes(state.encoded())
    again, _ = fix_paths([str(was_copy)], FixOptions(unsafe=True))
    assert again.changed == [] and again.internal_errors == []
    # What lint still calls fixable, the fix lists with a specific reason.
    reasons = {(r.finding.path, r.finding.span.line, r.finding.code): r.reason for r in again.remaining}
    findings = lint_path(was_copy, select=["WAS1"]).findings
    for finding in findings:
        if finding.fixable:
            reason = reasons[(finding.path, finding.span.line, finding.code)]
            assert reason not in ("not fixed", "no automatic fix"), (finding.path, finding.code)


ACTION = re.compile(r"\{\{.*?\}\}", re.DOTALL)


@pytest.mark.parametrize("folder", ["general", "templated", "kai", "kueue", "volcano", "jobset-lws"])
def test_non_was_folders_are_left_byte_identical(folder: str, tmp_path: Path) -> None:
    if not (CORPUS / folder).is_dir():
        pytest.skip(f"no corpus/{folder}")
    shutil.copytree(CORPUS / folder, tmp_path / folder)
    result, _ = fix_paths([str(tmp_path / folder)], FixOptions(unsafe=True))
    assert result.internal_errors == []
    changed = [s.path for s in result.changed]
    if folder == "templated":
        # Templates are rewritten around their actions (io/helm.py): every action stays as it was.
        for state in result.changed:
            assert ACTION.findall(state.source.text) == ACTION.findall(state.original), state.path
    # Outside was/ a fix may only touch files that hold WAS material.
    for path in changed:
        assert re.search(r"scheduling\.k8s\.io/v1alpha|workloadRef|disruptionMode", decode(Path(path).read_bytes()))
