"""WAS005 kustomize-build-failed: reported by the engine itself (`lint/gitops.py`), which renders
the kustomize build roots before any rule runs; the rule holds its documentation."""

from __future__ import annotations

from waslint.core.model import Severity
from waslint.lint.registry import Rule, register


@register
class KustomizeBuildFailed(Rule):
    code = "WAS005"
    name = "kustomize-build-failed"
    severity = Severity.ERROR
    summary = "A kustomize build root does not build: kustomize's own error, at its kustomization."
    what = (
        "Each kustomize build root of the run (a kustomization no other kustomization of the run"
        " includes) is rendered by the real kustomize (`kustomize build`, else `kubectl kustomize`,"
        " or `--kustomize-cmd`). A build that fails, or does not finish in 120 s, is reported at the"
        " root's kustomization (at the entry kustomize's error names, when it names one), with"
        " kustomize's error text; that root's files are then linted as they are. A root that names a"
        " remote base is never built (a note says so: waslint never fetches)."
    )
    why = (
        "Argo CD, Flux and `kubectl apply -k` refuse the overlay: nothing of it reaches the cluster,"
        " and none of the findings about what it would render can be trusted until it builds."
    )
    example = """\
# kustomization.yaml: the file it names was renamed
resources:
- pod.yaml
- training-job.yaml
"""
    use_instead = """\
# kustomization.yaml: every resource it names is there
resources:
- pod.yaml
"""
