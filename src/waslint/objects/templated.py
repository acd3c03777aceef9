"""What a Helm template leaves open: values that come from an action (masked, see io/helm.py), and
mappings an action may write more keys into. Rules ask before stating a fact about a field that
is absent: `limits` missing is a fact in a manifest, and only a guess where `{{ toYaml
.Values.limits }}` may write it."""

from __future__ import annotations

from typing import Any

from waslint.core.model import Path
from waslint.io.helmtext import PLACEHOLDER
from waslint.objects.kobject import KObject


def from_action(value: Any) -> bool:
    """Whether a value read from a masked template comes (in part) from an action."""
    return isinstance(value, str) and PLACEHOLDER in value


def may_be_written(obj: KObject, path: Path) -> bool:
    """Whether, in a template, an action may write keys into the mapping at `path` (relative to
    the object): a line of its own inside that mapping's block holds an action that writes
    output (`{{- include "limits" . | nindent 2 }}`, `{{- toYaml .Values.x | nindent 4 }}`)."""
    template = obj.file.template
    if template is None:
        return False
    span = obj.doc.locate_key(obj.full_path(path))
    return template.writes_below(span.line, span.column)
