"""WAS402 dangling-workload-ref."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.lint.rules.references.common import close_name, names_of, templated
from waslint.objects.groups import object_group
from waslint.objects.keys import (
    COMPOSITE,
    PODGROUP,
    WORKLOAD,
)
from waslint.objects.kobject import KObject, as_str
from waslint.objects.walks import workload_templates


@register
class DanglingWorkloadRef(Rule):
    code = "WAS402"
    name = "dangling-workload-ref"
    severity = Severity.ERROR
    other_severities = (Severity.WARNING,)
    summary = "A PodGroup/CompositePodGroup `workloadRef` names a missing Workload or template."
    what = (
        "Resolves `spec.workloadRef.{workloadName,templateName}` of every PodGroup and"
        " CompositePodGroup against the Workloads of the same namespace in the set. Error when the"
        " Workload is in the set but has no template of that name anywhere in its tree (nested"
        " composite templates included), or when the template is of the wrong kind (a PodGroup"
        " must name a `podGroupTemplates` entry, a CompositePodGroup a"
        " `compositePodGroupTemplates` entry). Warning when the Workload itself is absent but"
        " the namespace has other Workloads in the set; silent when the namespace has none (the"
        " Workload may be created by a controller or live elsewhere)."
    )
    why = (
        "The API server does not resolve the reference, so the object is accepted. The group then"
        " belongs to no template of its Workload: the template's policy, priority and claims are"
        " not the ones in force, controllers that reconcile the Workload do not recognise the group"
        " as theirs, and a CompositePodGroup fails with condition reason `Invalid`."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: worker          # no such template
  schedulingPolicy:
    gang:
      minCount: 4
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: training-workers-0
spec:
  workloadRef:
    workloadName: training
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 4
"""
    kinds = frozenset({PODGROUP, COMPOSITE})

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        group = object_group(obj)
        reference = group.workload_ref if group is not None else None
        if reference is None or reference.legacy:
            return  # the 1.36 podGroupTemplateRef is WAS104's (it rewrites it)
        workload_name = reference.workload
        if workload_name is None or templated(workload_name):
            return
        namespace = obj.namespace
        workloads = ctx.index.get_all(*WORKLOAD, namespace, workload_name)
        if not workloads:
            if ctx.index.has_kind_in_namespace(*WORKLOAD, namespace):
                present = [wl for wl in ctx.index.of_kind(*WORKLOAD) if wl.namespace == namespace]
                hint = close_name(workload_name, (wl.name for wl in present if wl.name))
                yield self.hit(
                    obj,
                    (*reference.path, "workloadName"),
                    f'Workload "{workload_name}" is not defined in namespace "{namespace}"{hint};'
                    f" the set defines Workloads {names_of(present)} there. Fix workloadName or"
                    " add the Workload",
                    severity=Severity.WARNING,
                )
            return
        template_name = reference.template
        if template_name is None or templated(template_name):
            return
        kinds_by_name: dict[str, set[bool]] = defaultdict(set)
        for workload in workloads:
            for template in workload_templates(workload):
                name = as_str(template.data.get("name"))
                if name is not None:
                    kinds_by_name[name].add(template.composite)
        want_composite = obj.kind == "CompositePodGroup"
        wanted_list = "compositePodGroupTemplates" if want_composite else "podGroupTemplates"
        fitting = sorted(name for name, kinds in kinds_by_name.items() if want_composite in kinds)
        label = f"Workload {namespace}/{workload_name}"
        if template_name not in kinds_by_name:
            shown = f"it has no {wanted_list}"
            if fitting:
                shown = f"its {wanted_list}: {', '.join(fitting)}"
            yield self.hit(
                obj,
                (*reference.path, "templateName"),
                f'{label} has no template "{template_name}"{close_name(template_name, fitting)};'
                f" {shown}. The {obj.kind} is tied to no template: set templateName to one of"
                " them or add the template to the Workload",
            )
        elif want_composite not in kinds_by_name[template_name]:
            actual = "podGroupTemplates" if want_composite else "compositePodGroupTemplates"
            shown = ", ".join(fitting) if fitting else "none"
            yield self.hit(
                obj,
                (*reference.path, "templateName"),
                f'template "{template_name}" of {label} is a {actual} entry, but a {obj.kind}'
                f" must reference a {wanted_list} entry (candidates: {shown})",
            )
