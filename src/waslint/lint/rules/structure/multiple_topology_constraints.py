"""WAS601 multiple-topology-constraints."""

from __future__ import annotations

from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.structure.common import holder_label, label_key_problem
from waslint.objects.groups import groups_of
from waslint.objects.keys import POLICY_KINDS
from waslint.objects.kobject import KObject


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
        " and validates `key` as a label key in 1.37: the object is rejected. Even where it is"
        " not (1.36), a key that is not a label key can never match a node label, so the group"
        " can never be placed. To keep a gang inside a rack and a zone, constrain it by the"
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
        for group in groups_of(obj):
            topology = group.topology
            if len(topology) > 1:
                keys = [constraint.key or "?" for constraint in topology]
                yield self.hit(
                    obj,
                    topology[1].path,
                    f"{holder_label(group)} has {len(topology)} topology constraints"
                    f" ({', '.join(keys)}); the API allows one: keep the key of the level that must"
                    " hold the whole group (the narrowest, e.g. the rack) and remove the others",
                )
            for constraint in topology:
                key = constraint.key
                if key is None:
                    continue  # missing or not a string: WAS002 (schema) reports it
                problem = label_key_problem(key)
                if problem is not None:
                    yield self.hit(
                        obj,
                        constraint.key_path,
                        f"topology key {key!r} is not a valid label key: {problem}; no node can"
                        " carry it, so the group can never be placed (use a node label key such as"
                        " topology.kubernetes.io/zone)",
                        point_at_key=False,
                    )
