"""WAS306 gang-size-invalid."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from waslint.core.model import Severity
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import MIN_GROUP_COUNT, Group
from waslint.objects.keys import (
    KAI_MIN_MEMBER,
    KAI_MIN_MEMBER_KINDS,
    SCHEDULING,
)
from waslint.objects.kobject import KObject
from waslint.objects.walks import (
    kai_min_member,
    parse_min_member,
)


@register
class GangSizeInvalid(Rule):
    code = "WAS306"
    name = "gang-size-invalid"
    severity = Severity.ERROR
    summary = "A gang size is missing, zero or negative where it is required."
    what = (
        "`gang.minCount` of a Workload pod-group template (also the 1.35 `podGroups[].policy`)"
        " and of a PodGroup, and `gang.minGroupCount` of a composite template and of a"
        " CompositePodGroup: fires when the `gang` mapping is there but the count is missing, 0"
        " or negative. Job (and CronJob jobTemplate) `spec.scheduling` gang `minCount` may be"
        " left out (it defaults to parallelism) but fires when it is below 1. Judgment call: the"
        " KAI `kai.scheduler/batch-min-member` annotation on a Job, CronJob, JobSet or"
        " LeaderWorkerSet fires too when KAI cannot use it (not a base-10 integer, or below 1),"
        " or when it is not a string at all (an unquoted number, which the API server rejects),"
        " since that is the same mistake in a third-party spelling. A count of the wrong type"
        " (e.g. a string) is WAS002's."
    )
    why = (
        'The API server rejects a WAS object without a positive count ("required"). For a'
        " Job, `minCount: 0` is rejected too. KAI's podgrouper refuses an unparseable or"
        " non-positive batch-min-member and creates no PodGroup, so the Pods never schedule."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 0
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 4
"""
    kinds = (
        frozenset({(SCHEDULING, "Workload"), (SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup")})
        | KAI_MIN_MEMBER_KINDS
    )

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.group == SCHEDULING:
            yield from self._was(obj, ctx)
            return
        if obj.kind in ("Job", "CronJob"):
            yield from self._was(obj, ctx)
        found = kai_min_member(obj)
        if found is not None and not isinstance(found[1], str):
            yield self.hit(
                obj,
                found[0],
                f"KAI annotation {KAI_MIN_MEMBER} is a bare {type(found[1]).__name__}, not a"
                " string: the API server rejects non-string annotation values. Quote it, e.g."
                f' "{found[1]}"',
                point_at_key=False,
            )
        elif found is not None and parse_min_member(found[1]) is None:
            yield self.hit(
                obj,
                found[0],
                f"KAI annotation {KAI_MIN_MEMBER}: {found[1]!r} is not a positive base-10 integer:"
                " KAI's podgrouper rejects it and creates no PodGroup, so the Pods never"
                ' schedule. Write the gang size as a quoted number, e.g. "4"',
                point_at_key=False,
            )

    def _was(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        """The gang counts upstream validation rejects (`required`, `minimum`), worded here."""
        from waslint.lint.rules.input.upstream import group_at, owned_issues, value_at

        for issue in owned_issues(obj, ctx.target, self.code):
            group = group_at(obj, issue.path)
            field = str(issue.path[-1])
            value = value_at(obj.data, issue.path)
            if obj.group == "batch":
                yield self.hit(
                    obj,
                    issue.path,
                    f"{obj.kind} gang minCount is {value}: when set it must be at least 1 (the API"
                    " server rejects it). Remove it (it then defaults to parallelism), or set the"
                    " gang's size",
                    point_at_key=False,
                )
            elif group is not None and value is None:
                yield self.hit(
                    obj,
                    issue.path[:-1],
                    f"{_where(obj, group)} gang policy has no {field}: it is required and must be at least 1"
                    f" (the number of {'child groups' if field == MIN_GROUP_COUNT else 'Pods'} that"
                    f" must be schedulable together); add gang.{field}",
                )
            else:
                where = _where(obj, group) if group is not None else obj.kind
                yield self.hit(
                    obj,
                    issue.path,
                    f"{where} gang {field} is {value}: it must be at least 1 (the API server rejects"
                    " it). Set it to the gang's real size, or use `basic: {}` for no gang",
                    point_at_key=False,
                )


def _where(obj: KObject, group: Group) -> str:
    return f"template {group.name or '<unnamed>'!r}" if group.template is not None else obj.kind
