"""What a lint run keeps: node trees are dropped once a file's findings are located; repeated
keys and short values are one string object each."""

from __future__ import annotations

from conftest import FIXTURES, lint_path
from waslint.io.loader import parse_bytes


def test_lint_keeps_no_node_trees_after_locating() -> None:
    result = lint_path(FIXTURES / "rules")
    with_findings = {f.path for f in result.findings if f.object_id is not None}
    assert with_findings
    for source in result.files:
        assert source._nodes is None, source.path
        assert all(doc.stored_node is None for doc in source.documents), source.path
    # The positions were taken before the trees went: findings point past line 1.
    assert any(f.span.line > 1 for f in result.findings)


def test_repeated_keys_and_short_values_share_one_string() -> None:
    text = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm{n}}}\n" for n in range(3))
    docs = parse_bytes("x.yaml", text.encode()).documents
    first, second = docs[0].data, docs[1].data
    assert next(iter(first)) is next(iter(second))
    assert first["kind"] is second["kind"]
