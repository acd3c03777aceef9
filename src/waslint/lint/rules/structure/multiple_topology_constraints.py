"""WAS601 multiple-topology-constraints."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.structure.common import holder_label, label_key_problem
from waslint.objects.keys import POLICY_KINDS
from waslint.objects.kobject import KObject, as_str


@register
class MultipleTopologyConstraints(Rule):
    code = "WAS601"
    name = "multiple-topology-constraints"
    severity = Severity.ERROR
    summary = "More than one topology constraint, or a topology key that is not a valid label key."
    what = (
        "Checks `schedulingConstraints.topology` in Workload templates (flat and composite),"
        " PodGroup and CompositePodGroup `spec`, and Job / CronJob `spec.scheduling`: the list may"
        " hold one entry, and its `key` must be a valid label key (an optional DNS-subdomain prefix"
        " and '/', then a name of at most 63 letters, digits, '-', '_' or '.')."
    )
    why = (
        "The API allows a single topology constraint per group (`topology` has at most one item)"
        " and validates `key` as a label key (1.36 and 1.37): the object is rejected; upstream"
        " validation detects both and this rule words them. A key that is not a label key could"
        " never match a node label anyway. To keep a gang inside a rack and a zone, constrain it by the"
        " narrowest level (the rack): a rack lies in one zone."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 8
  schedulingConstraints:
    topology:
    - key: topology.kubernetes.io/zone
    - key: example.com/rack
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 8
  schedulingConstraints:
    topology:
    - key: example.com/rack
"""
    kinds = POLICY_KINDS
    text_trigger = "topology"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        """Upstream validation's topology errors (`maxItems=1`, `format=k8s-label-key`), worded here."""
        from waslint.lint.rules.input.upstream import group_at, owned_issues, value_at

        for issue in owned_issues(obj, ctx.target, self.code):
            group = group_at(obj, issue.path)
            label = holder_label(group) if group is not None else obj.kind
            if issue.origin == "maxItems":
                topology = value_at(obj.data, issue.path)
                keys = [as_str(c.get("key")) or "?" if isinstance(c, dict) else "?" for c in topology or []]
                yield self.hit(
                    obj,
                    (*issue.path, 1),
                    f"{label} has {len(keys)} topology constraints ({', '.join(keys)}); the API allows"
                    " one: keep the key of the level that must hold the whole group (the narrowest,"
                    " e.g. the rack) and remove the others",
                )
                continue
            key = str(value_at(obj.data, issue.path))
            problem = label_key_problem(key) or issue.detail
            yield self.hit(
                obj,
                issue.path,
                f"topology key {key!r} is not a valid label key: {problem}; no node can carry it, so the"
                " group can never be placed (use a node label key such as topology.kubernetes.io/zone)",
                point_at_key=False,
            )
