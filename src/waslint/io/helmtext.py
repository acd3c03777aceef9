"""What every run needs of Helm templates without reading one: the placeholder a masked template
holds where an action was (io/helm.py masks them), how a person is shown it, and the file that
makes a folder a chart. The masking itself (io/helm.py) is imported only for a file holding `{{`."""

from __future__ import annotations

from waslint.core.patterns import LazyPattern

PLACEHOLDER = "\ue000"
CHART_FILE = "Chart.yaml"  # a folder holding it is a Helm chart (lint/gitops.py: each chart a scope)
SHOWN_AS = "{{…}}"


_RUN = LazyPattern(PLACEHOLDER + "+")


def shown(text: str) -> str:
    """Text read from a masked template, as a person should see it."""
    return _RUN.sub(SHOWN_AS, text) if PLACEHOLDER in text else text
