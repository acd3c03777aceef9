"""WAS001 parse-error."""

from __future__ import annotations

from waslint.core.model import Severity
from waslint.lint.registry import Rule, register


@register
class ParseError(Rule):
    code = "WAS001"
    name = "parse-error"
    severity = Severity.ERROR
    summary = "A file or document cannot be parsed."
    what = (
        "YAML or JSON syntax errors, invalid UTF-8, binary files, alias bombs, nesting deeper"
        " than 200 levels, files over 32 MiB, duplicate keys in one mapping. Points at the line"
        " and column where the parser stopped; the file's other documents are still linted."
    )
    why = (
        "kubectl and GitOps controllers reject the file (or, for duplicate keys, silently keep one"
        " of the values); nothing else in the document can be checked."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
  name: workers-2     # duplicate key
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
"""
