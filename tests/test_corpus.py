"""Real public manifests (../shared/corpus): no false positives on ordinary ones, no crash on any."""

from __future__ import annotations

from collections import Counter

from conftest import CORPUS, lint_path, needs_corpus

# Files of general/ that truly are not valid YAML: each repeats a key in one mapping (YAML
# requires unique keys; kubectl keeps the last value silently).
DUPLICATE_KEY_FILES = {
    "kubernetes-examples/_archived/openshift-origin/etcd-controller.yaml",
    "kubernetes-examples/_archived/openshift-origin/etcd-discovery-controller.yaml",
    "kubernetes-examples/_archived/openshift-origin/openshift-controller.yaml",
    "kubernetes-examples/_archived/persistent-volume-provisioning/quobyte/quobyte-admin-secret.yaml",
    "kubernetes-examples/_archived/volumes/scaleio/sc-pvc.yaml",
}


# Kustomize roots of the corpus that kustomize cannot build there (WAS005): the corpus holds part of
# each repository, and these name files it does not hold (microservices-demo's
# components/google-cloud-operations/otel-collector.yaml), or are an Argo CD plugin's input
# (argocd-example-apps plugins/kustomized-helm: `all.yaml` is what the plugin's helm step writes,
# and its `patches` entry is a string kustomize refuses).
BUILDS_FAILING_IN_THE_CORPUS = {
    "argocd-example-apps/plugins/kustomized-helm/kustomization.yaml",
    "microservices-demo/kustomize/tests/memorystore-with-all-components/kustomization.yaml",
    "microservices-demo/kustomize/tests/service-mesh-istio-with-all-components/kustomization.yaml",
    "microservices-demo/kustomize/tests/spanner-with-all-components/kustomization.yaml",
}


@needs_corpus
def test_ordinary_manifests_have_no_findings_but_true_parse_errors() -> None:
    root = CORPUS / "general"
    result = lint_path(root)
    assert result.internal_errors == []
    assert len(result.files) >= 1000
    unexpected = [(f.path, f.code, f.message) for f in result.findings if f.code not in ("WAS001", "WAS005")]
    assert unexpected == []
    failed_builds = {str(f.path).removeprefix(str(root) + "/") for f in result.findings if f.code == "WAS005"}
    assert failed_builds == BUILDS_FAILING_IN_THE_CORPUS
    parse_errors = {str(f.path).removeprefix(str(root) + "/") for f in result.findings if f.code == "WAS001"}
    assert parse_errors == DUPLICATE_KEY_FILES
    assert all("duplicate key" in f.message for f in result.findings if f.code == "WAS001")


@needs_corpus
def test_every_was_document_is_linted_without_a_crash() -> None:
    result = lint_path(CORPUS / "was", CORPUS / "kai", CORPUS / "kueue", CORPUS / "volcano", CORPUS / "jobset-lws")
    assert result.internal_errors == []
    by_code = Counter(f.code for f in result.findings)
    # The migration rules must see the many 1.35/1.36 shapes of the WAS docs and KEPs.
    for code in ("WAS101", "WAS103", "WAS104", "WAS105"):
        assert by_code[code] > 0, by_code


@needs_corpus
def test_templated_files_get_clear_parse_errors_only() -> None:
    result = lint_path(CORPUS / "templated")
    assert result.internal_errors == []
    for finding in result.findings:
        if finding.code == "WAS001" and "YAML syntax error" in finding.message:
            assert "Helm/Go template" in finding.message
