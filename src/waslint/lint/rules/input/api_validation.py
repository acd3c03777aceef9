"""WAS003 api-validation: upstream's declarative and imperative validation, read from the upstream types."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.keys import JOB_KINDS, WAS_GROUP_KINDS
from waslint.objects.kobject import KObject
from waslint.objects.walks import POD_TEMPLATE_KINDS


@register
class ApiValidation(Rule):
    code = "WAS003"
    name = "api-validation"
    severity = Severity.ERROR
    summary = "The API server of the target release rejects the object: upstream validation, at the field it names."
    what = (
        "Applies upstream's validation of the WAS kinds for the target release: the declarative"
        " `+k8s:` markers of the Go API types (generated into `knowledge/validation-data/` by"
        " `scripts/gen_validation.py` from kubernetes/api: required/optional/forbidden, formats such"
        " as DNS labels (`k8s-short-name`), DNS subdomains (`k8s-long-name`), path-segment names and"
        " label keys, minimum/maximum, maxItems, unions, `listType=map` keys, enum values,"
        " dependentRequired/dependentForbidden) and the hand-written checks of"
        " `pkg/apis/scheduling/validation/validation.go` (object names are DNS subdomains, a namespace"
        " written in the manifest is a DNS label; for a 1.35 v1alpha1 Workload, the checks of that"
        " line: podGroups present, at most 8, names DNS labels and unique, the basic/gang union,"
        " controllerRef kind and name; template"
        " names unique across the whole Workload tree, tree depth at most 4, a composite template"
        " has a child, one priority for all templates), Pod `spec.schedulingGroup` (exactly one"
        " member, `podGroupName` a DNS subdomain; no `evictionResponders` with it) and Job"
        " `spec.scheduling` (`disruptionMode: {all: {}}` needs a gang policy). Covers Workload,"
        " PodGroup and CompositePodGroup in every version the target serves, Job and CronJob"
        " `spec.scheduling`, and the pod spec of every pod template. The message is upstream's own"
        " (`spec.podGroupTemplates[0].name: Invalid value: ...`); the finding points at the field,"
        " or at its parent when the field is absent. Upstream validation is the one detector"
        " of these errors; those of a more specific rule's domain are reported under its code with"
        " its advice (WAS203, WAS306, WAS405, WAS601, WAS602, WAS605: `ROUTES` in"
        " `lint/rules/input/upstream.py`), a missing required key is WAS002's; fields of a gate"
        " known to be off are WAS702's."
    )
    why = (
        "These are the checks the API server runs on create: the JSON schema (WAS002) carries"
        " types and required fields only, so a manifest can pass it and still be refused at apply"
        " time, which is exactly what a migration gate or a pre-commit hook exists to prevent."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: Workers_A        # not a DNS label
    schedulingPolicy:
      gang:
        minCount: 4
    priority: 2000000000   # above 1000000000
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers-a
    schedulingPolicy:
      gang:
        minCount: 4
    priorityClassName: training-high
"""
    kinds = WAS_GROUP_KINDS | JOB_KINDS | POD_TEMPLATE_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        yield from self._hits(obj, ctx)

    def _hits(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        # the validation data loads on the first object this rule checks, not at start-up
        from waslint.lint.rules.input.upstream import left_to_another_rule, upstream_issues

        for issue, schema_covers in upstream_issues(obj, ctx.target):
            if not left_to_another_rule(issue, obj.data, schema_covers):
                yield self.hit(obj, issue.path, f"{obj.api_version} {obj.kind}: {issue.message}", point_at_key=False)
