"""WAS6xx: structure and topology. Limits of the Workload template tree, scheduling-policy and
disruption-mode unions, topology keys (against a cluster snapshot) and immutable fields (against
a git base revision)."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from waslint.core.model import Path, Severity
from waslint.knowledge import validation
from waslint.knowledge.names import DNS_SUBDOMAIN, QUALIFIED_NAME
from waslint.knowledge.schema import render_path
from waslint.lint.context import Context
from waslint.lint.registry import Hit, Rule, register
from waslint.objects.groups import MIN_COUNT, Group, groups_of, object_group, policy_variant
from waslint.objects.keys import COMPOSITE, POLICY_KINDS, SCHEDULING
from waslint.objects.kobject import KObject, as_list, as_map, as_str, dig
from waslint.objects.pods import pod_request
from waslint.objects.quantity import MILLI, Resources, milli
from waslint.objects.walks import (
    TEMPLATE_COPIED_FIELDS,
    GroupTemplate,
    job_parallelism,
    job_spec,
    pod_templates,
    template_lists,
    workload_templates,
)

if TYPE_CHECKING:
    from waslint.sources.snapshot import Snapshot

MAX_TEMPLATES = 8  # WorkloadMaxPodGroupTemplates, per list
MAX_TREE_DEPTH = 4  # WorkloadMaxTreeDepth: the top-level templates are level 1
LEGACY_LIST = "podGroups"  # a 1.35 Workload's list (WAS002/WAS003 check it, WAS101 renames it)


def label_key_problem(key: str) -> str | None:
    """Why `key` is not a valid Kubernetes label key (qualified name), or None when it is."""
    if not key:
        return "it is empty"
    prefix, slash, name = key.rpartition("/")
    if slash and not prefix:
        return "the prefix before '/' is empty"
    if key.count("/") > 1:
        return "it has more than one '/'"
    if slash and (len(prefix) > 253 or not DNS_SUBDOMAIN.match(prefix)):
        return f"the prefix {prefix!r} is not a DNS subdomain (lowercase letters, digits, '-', '.')"
    if not name:
        return "the name after '/' is empty"
    if len(name) > 63:
        return f"the name part is {len(name)} characters long (at most 63)"
    if not QUALIFIED_NAME.match(name):
        return (
            f"the name part {name!r} may hold only letters, digits, '-', '_' and '.', and must"
            " start and end with a letter or digit"
        )
    return None


def holder_label(group: Group) -> str:
    """How a group is named in messages: template 'workers', spec, spec.scheduling."""
    if group.template is not None:
        name = group.name
        kind = "composite template" if group.composite else "template"
        return f"{kind} {name!r}" if name else f"{kind} #{group.path[-1]}"
    return render_path(group.path)


# --------------------------------------------------------------------------- WAS601


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


# --------------------------------------------------------------------------- WAS602


@register
class TemplateLimits(Rule):
    code = "WAS602"
    name = "template-limits"
    severity = Severity.ERROR
    summary = "Workload template tree limits and the basic/gang and template-list unions."
    what = (
        "In a Workload: more than 8 templates in any list (`podGroupTemplates`,"
        " `compositePodGroupTemplates`, v1alpha1 `podGroups`, and every nested list), a template"
        " tree deeper than 4 levels, a template name used twice anywhere in the tree, a composite"
        " template with no child, and both or neither of `podGroupTemplates` /"
        " `compositePodGroupTemplates` in `spec`. In Workload templates, PodGroup and"
        " CompositePodGroup `spec` and Job / CronJob `spec.scheduling`: a `schedulingPolicy` that"
        " sets both or neither of `basic` / `gang` (`basic:` with no value is null, which the API"
        " reads as unset: write `basic: {}`)."
    )
    why = (
        "The API server rejects these objects (WorkloadMaxPodGroupTemplates = 8,"
        " WorkloadMaxTreeDepth = 4, unions with exactly one member). Template names must be unique"
        " across the whole tree because PodGroups and CompositePodGroups name their template by"
        " `workloadRef.templateName` alone. A Workload created by a controller fails at the worst"
        " moment: the controller retries forever and no pod is ever scheduled."
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
      basic: {}
      gang:
        minCount: 4
"""
    use_instead = """\
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
"""
    kinds = POLICY_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        if obj.kind == "Workload":
            if not isinstance(obj.data.get("spec"), dict):
                return
            yield from self._workload(obj)
        for group in groups_of(obj):
            yield from self._policy_union(obj, group)

    def _workload(self, obj: KObject) -> Iterator[Hit]:
        spec = obj.spec
        lists = template_lists(obj)
        names = [name for name, _ in lists]
        flat = as_list(spec.get(names[0]))
        composite = as_list(spec.get(names[1])) if len(names) > 1 else []
        if flat and composite:
            yield self.hit(
                obj,
                ("spec", names[1]),
                f"spec sets both {names[0]} and {names[1]}; a Workload takes"
                " exactly one: flat PodGroup templates, or a tree of composite templates (move the"
                f" flat templates into a composite template's {names[0]})",
            )
        elif not flat and not composite and LEGACY_LIST not in spec:
            empty = next((name for name in names if name in spec), None)
            yield self.hit(
                obj,
                ("spec", empty) if empty else ("spec",),
                (f"spec.{empty} is empty" if empty else "spec has no templates")
                + ": set exactly one of podGroupTemplates or compositePodGroupTemplates, with at"
                " least one template",
            )
        yield from self._list_sizes(obj, ("spec",), spec, names)
        templates = workload_templates(obj)
        seen: dict[str, GroupTemplate] = {}
        deepest = max((t.depth for t in templates), default=0)
        reported_depth = False
        for template in templates:
            if template.composite:
                yield from self._list_sizes(obj, template.path, template.data, names)
                if not any(as_list(template.data.get(name)) for name in names):
                    yield self.hit(
                        obj,
                        (*template.path, "name") if "name" in template.data else template.path,
                        f"composite template {_name(template)!r} has no child template: give it"
                        " podGroupTemplates or compositePodGroupTemplates (at least one template)",
                    )
            if template.depth > MAX_TREE_DEPTH and not reported_depth:
                reported_depth = True
                depth_text = f"{deepest}" if deepest <= 16 else "more than 16"
                yield self.hit(
                    obj,
                    template.path,
                    f"the template tree is {depth_text} levels deep (template {_name(template)!r} is"
                    f" at level {template.depth}); a Workload allows at most {MAX_TREE_DEPTH} levels:"
                    " flatten the tree",
                )
            name = as_str(template.data.get("name"))
            if name is None:
                continue
            first = seen.get(name)
            if first is None:
                seen[name] = template
                continue
            yield self.hit(
                obj,
                (*template.path, "name"),
                f"template name {name!r} is used twice in this Workload (also at"
                f" {render_path(first.path)}); names must be unique across the whole template tree,"
                " since PodGroups refer to their template by name alone",
                point_at_key=False,
            )

    def _list_sizes(self, obj: KObject, path: Path, holder: dict[str, Any], names: list[str]) -> Iterator[Hit]:
        for list_name in names:
            items = as_list(holder.get(list_name))
            if len(items) > MAX_TEMPLATES:
                yield self.hit(
                    obj,
                    (*path, list_name, MAX_TEMPLATES),
                    f"{render_path((*path, list_name))} has {len(items)} templates; at most"
                    f" {MAX_TEMPLATES} per list: merge templates that share a policy, or split the"
                    " Workload",
                )

    def _policy_union(self, obj: KObject, group: Group) -> Iterator[Hit]:
        policy = group.policy.raw
        key = group.policy.key
        if not isinstance(policy, dict):
            return  # missing (required: WAS002; optional for a Job: basic) or not a mapping
        gang_name = "gang"
        basic_set = policy.get("basic") is not None
        gang_set = policy.get(gang_name) is not None
        label = holder_label(group)
        if basic_set and gang_set:
            yield self.hit(
                obj,
                (*group.policy.path, gang_name),
                f"{label}: {key} sets both basic and gang; choose one: gang for all-or-nothing"
                " admission, basic for pod-by-pod scheduling",
            )
        elif not basic_set and not gang_set:
            nulls = [name for name in ("basic", gang_name) if name in policy]
            note = (
                f" (`{nulls[0]}:` with no value is null, which the API reads as unset: write"
                f" `{nulls[0]}: {{}}`{' with its fields' if nulls[0] == 'gang' else ''})"
                if nulls
                else ""
            )
            yield self.hit(
                obj,
                group.policy.path,
                f"{label}: {key} sets neither basic nor gang; set exactly one{note}",
            )


def _name(template: GroupTemplate) -> str:
    return as_str(template.data.get("name")) or f"#{template.path[-1]}"


# --------------------------------------------------------------------------- WAS603


@register
class TopologyKeyUnknown(Rule):
    code = "WAS603"
    name = "topology-key-unknown"
    severity = Severity.WARNING
    summary = "With --snapshot: a topology key no node carries, or whose domains are too small for the gang."
    what = (
        "With `--snapshot`, checks every `schedulingConstraints.topology` key (Workload templates,"
        " PodGroup, CompositePodGroup, Job / CronJob `spec.scheduling`) against the snapshot's"
        " Nodes. Fires when no node carries the label, and, for a gang, when even the largest"
        " domain (the schedulable nodes that share one value of the key) cannot hold `minCount`"
        " pods (for a Job gang without `minCount`: `parallelism`). When the member pods' requests"
        " are known (a Job's own template, or the Pods of a PodGroup in the set), a node holds as"
        " many pods as its allocatable resources allow; otherwise one pod per node is assumed, the"
        " shape of whole-node GPU workers, and the message says so. Cordoned (unschedulable) nodes"
        " do not count. `waslint feasibility` does the full placement check."
    )
    why = (
        "A topology constraint puts the whole group in one domain. If no node has the label the"
        " group can never be placed, and the scheduler only says the pods are unschedulable: a"
        " typo in the key (`topology.kubernetes.io/zones`) or a label the cluster's nodes do not"
        " carry yet (a rack label set by a node-labelling daemon) strands the job silently."
    )
    example = """\
# waslint lint --snapshot cluster.yaml  (nodes labelled topology.kubernetes.io/zone)
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  schedulingConstraints:
    topology:
    - key: topology.kubernetes.io/zones
"""
    use_instead = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    gang:
      minCount: 2
  schedulingConstraints:
    topology:
    - key: topology.kubernetes.io/zone
"""
    kinds = POLICY_KINDS
    text_trigger = "topology"

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        snapshot = ctx.snapshot
        if snapshot is None or not snapshot.nodes:
            return
        nodes = snapshot.nodes
        for group in groups_of(obj):
            for constraint in group.topology:
                key = constraint.key
                if key is None or label_key_problem(key) is not None:
                    continue  # WAS601 reports invalid keys
                message = self._key_problem(group, ctx, key, nodes, snapshot)
                if message is not None:
                    yield self.hit(obj, constraint.key_path, message, point_at_key=False)

    def _key_problem(
        self, group: Group, ctx: Context, key: str, nodes: list[KObject], snapshot: Snapshot
    ) -> str | None:
        where = f"the snapshot {snapshot.path}".rstrip()
        carriers = [node for node in nodes if key in as_map(node.metadata.get("labels"))]
        if not carriers:
            known = sorted({k for node in nodes for k in as_map(node.metadata.get("labels"))})
            close = difflib.get_close_matches(key, known, n=2, cutoff=0.75)
            hint = (
                f"; did you mean {' or '.join(close)}?"
                if close
                else (f": label the nodes with {key}=<domain>, or use a key they carry")
            )
            return (
                f"no node in {where} ({len(nodes)} nodes) carries the label {key}, so the group can never be"
                f" placed{hint}"
            )
        need = _gang_size(group)
        if need is None or need <= 1:
            return None
        requests = _member_requests(group.obj, ctx)
        domains: Counter[str] = Counter()
        for node in carriers:
            if as_map(node.data.get("spec")).get("unschedulable") is True:
                continue
            value = str(as_map(node.metadata.get("labels")).get(key))
            domains[value] += _pods_per_node(node, requests) if requests else 1
        best_value, best = max(domains.items(), key=lambda item: item[1], default=("", 0))
        if best >= need:
            return None
        if not domains:
            return (
                f"every node in {where} that carries {key} is cordoned (unschedulable); the gang"
                f" of {need} pods cannot be placed"
            )
        if requests:
            return (
                f"the largest {key} domain ({key}={best_value}) has room for {best} of the {need}"
                f" pods the gang needs at once (by the pods' requests and the nodes' allocatable"
                f" in {where}); the gang can never be placed in one domain: lower minCount, use a"
                " wider topology level, or add nodes"
            )
        return (
            f"the largest {key} domain ({key}={best_value}) has {best} schedulable node(s) in"
            f" {where}, fewer than the {need} pods the gang needs at once; it fits only if"
            " several pods share a node: check with `waslint feasibility`, or use a wider"
            " topology level"
        )


def _gang_size(group: Group) -> int | None:
    """The Pods a gang needs at once: its minCount (a Job gang without one: parallelism); None
    for a composite (its size is in groups) or a group that is no gang."""
    gang = group.policy.gang
    if group.composite:
        return None  # a composite's size is in groups, not pods
    count = group.policy.minimum.value
    if group.role == "job":
        if gang is None:
            return None
        job = job_spec(group.obj)
        return count if count is not None else max(job_parallelism(job[1] if job else {}), 1)
    return count


def _member_requests(obj: KObject, ctx: Context) -> Resources:
    """The request of one member pod (objects/pods.py, milli-units), when the members are known:
    a Job's template, or the first Pod/template in the set whose schedulingGroup names this
    PodGroup."""
    if obj.group == "batch":
        templates = pod_templates(obj)
    elif obj.kind == "PodGroup" and obj.name:
        templates = ctx.index.pod_group_members(obj.namespace, obj.name)
    else:
        return {}
    for template in templates:
        requests = {name: amount for name, amount in pod_request(template.spec).items() if amount > 0}
        if requests:
            return requests
    return {}


def _pods_per_node(node: KObject, requests: Resources) -> int:
    allocatable = as_map(dig(node.data, "status", "allocatable"))
    fits: list[int] = []
    for name, wanted in requests.items():
        capacity = milli(allocatable.get(name), round_up=False)
        if capacity is None:
            if name in ("cpu", "memory", "ephemeral-storage"):
                continue  # not recorded in the snapshot: do not guess
            return 0  # an extended resource the node does not have
        fits.append(capacity // wanted)
    pods = milli(allocatable.get("pods"), round_up=False)
    if pods is not None:
        fits.append(pods // MILLI)
    return min(fits) if fits else 1


# --------------------------------------------------------------------------- WAS604


_DEFAULTS = {"disruptionMode": {"single": {}}, "preemptionPolicy": "PreemptLowerPriority"}
_SAME_SCHEMA = frozenset({"v1alpha3", "v1beta1"})
_NO_ADD = " (templates cannot be added or removed after the Workload is created)"


@register
class ImmutableFieldChanged(Rule):
    code = "WAS604"
    name = "immutable-field-changed"
    severity = Severity.ERROR
    summary = "With --base GIT_REF: an object changed a field the API makes immutable."
    what = (
        "With `--base GIT_REF`, reads the linted files as they were at that revision (straight"
        " from git, no checkout), matches objects by API group, kind, namespace and name, and"
        " compares the immutable fields. Workload: templates added or removed (at any level of the"
        " tree), `controllerRef`, and per template the `basic`/`gang` variant,"
        " `schedulingConstraints` (topology), `resourceClaims`, `disruptionMode`,"
        " `priorityClassName`, `priority` and `preemptionPolicy` (in v1alpha1/v1alpha2 the whole"
        " template list). PodGroup: every `spec` field except `schedulingPolicy.gang.minCount`"
        " (every field in v1alpha2). CompositePodGroup: every `spec` field. Job:"
        " `spec.scheduling` except `schedulingPolicy.gang.minCount`, including adding or removing"
        " it. API defaults are applied before comparing (an unset PodGroup `disruptionMode` equals"
        " `{single: {}}`). An object whose apiVersion moved across a removed version (v1alpha2 to"
        " v1beta1) is not compared: it has to be recreated anyway (WAS101). Beyond these comparisons,"
        " every `+k8s:immutable` and `+k8s:update=NoSet/NoUnset/NoAddItem/NoRemoveItem` marker of the"
        " upstream types (the generated validation data of WAS003) is applied to the two revisions."
    )
    why = (
        "`kubectl apply` or a GitOps sync of such a change is rejected by the API server (or, for"
        " a controller-owned object, retried forever), usually long after review. Workload"
        " templates and group policies are fixed when the object is created: the change needs a"
        " new Workload revision (a new name) that new PodGroups and pods point to, not an edit."
    )
    # The object as it was at the --base revision: documented examples are linted against it.
    example_base = """\
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
    disruptionMode:
      single: {}
"""
    example = """\
# waslint lint --base origin/main   (at origin/main the template had disruptionMode {single: {}})
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
    disruptionMode:
      all: {}
"""
    use_instead = """\
# a new revision: a new Workload (and new PodGroups) instead of editing the old one
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: training-v2
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang:
        minCount: 4
    disruptionMode:
      all: {}
"""
    kinds = frozenset(
        {(SCHEDULING, "Workload"), (SCHEDULING, "PodGroup"), (SCHEDULING, "CompositePodGroup"), ("batch", "Job")}
    )

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        base = ctx.base
        name = as_str(obj.metadata.get("name"))
        if base is None or name is None:
            return
        old = base.index.get(obj.group, obj.kind, obj.namespace, name)
        if old is None or not (old.version == obj.version or {old.version, obj.version} <= _SAME_SCHEMA):
            return
        if obj.kind == "Workload":
            changes = _workload_changes(old, obj)
            advice = (
                "the API server rejects this update: create a new Workload revision (a new name)"
                " and point new PodGroups and pods at it, instead of editing this one"
            )
        elif obj.kind == "Job":
            changes = _job_changes(old, obj)
            advice = "spec.scheduling is immutable: delete and recreate the Job (or create it under a new name)"
        else:
            changes = _group_changes(old, obj)
            what = "apart from gang.minCount " if obj.kind == "PodGroup" and obj.version in _SAME_SCHEMA else ""
            advice = (
                f"a {obj.kind} is immutable {what}once created: create a new one (a new name, from a"
                " new Workload revision when it comes from a template) instead of editing this one"
            )
        changes.extend(_marker_changes(obj, old, ctx.target, [path for path, _ in changes]))
        for path, change in changes:
            yield self.hit(obj, path, f"{change} since {old.file.path}; {advice}")


def _related(path: Path, other: Path) -> bool:
    shorter = min(len(path), len(other))
    return path[:shorter] == other[:shorter]


def _marker_changes(
    obj: KObject, old: KObject, target: validation.ReleaseName, reported: list[Path]
) -> list[tuple[Path, str]]:
    """Changes upstream's `+k8s:immutable` / `update=` markers reject that the comparisons above do
    not already report (at the same field, or above or below it)."""
    api_version = obj.api_version if obj.group == SCHEDULING else "batch/v1"
    new_data, old_data = obj.data, old.data
    if obj.kind in ("PodGroup", "CompositePodGroup"):  # admission defaults, as _group_changes applies them
        new_data = {**new_data, "spec": {**_DEFAULTS, **{k: v for k, v in obj.spec.items() if v is not None}}}
        old_data = {**old_data, "spec": {**_DEFAULTS, **{k: v for k, v in old.spec.items() if v is not None}}}
    issues = validation.validate_update(target, api_version, obj.kind, new_data, old_data)
    found: list[tuple[Path, str]] = []
    for issue in issues:
        if not any(_related(issue.path, path) for path in reported + [p for p, _ in found]):
            found.append((issue.path, f"{render_path(issue.path)}: {issue.detail} ({issue.origin})"))
    return found


def _show(value: Any) -> str:
    if value is None:
        return "unset"
    text = json.dumps(value, sort_keys=True, separators=(",", ": "))
    return text if len(text) <= 60 else text[:57] + "..."


def _policy_change(path: Path, old: Any, new: Any, key: str, keep_count: bool) -> Iterator[tuple[Path, str]]:
    """schedulingPolicy: the basic/gang variant is fixed; gang.minCount may change when keep_count."""
    old_variant, new_variant = policy_variant(old), policy_variant(new)
    if old_variant != new_variant:
        yield (
            (*path, key),
            f"{key} changed from {old_variant or 'unset'} to {new_variant or 'unset'}"
            " (the policy kind is fixed at creation)",
        )
        return
    strip = ("gang", MIN_COUNT) if keep_count else None
    if _without(old, strip) != _without(new, strip):
        yield (*path, key), f"{key} changed from {_show(old)} to {_show(new)}"


def _without(policy: Any, strip: tuple[str, str] | None) -> Any:
    if strip is None or not isinstance(policy, dict) or not isinstance(policy.get(strip[0]), dict):
        return policy
    copy = dict(policy)
    inner = dict(copy[strip[0]])
    inner.pop(strip[1], None)
    copy[strip[0]] = inner
    return copy


def _field_path(path: Path, field: str, holder: dict[str, Any]) -> Path:
    return (*path, field) if field in holder else path


def _workload_changes(old: KObject, new: KObject) -> list[tuple[Path, str]]:
    changes: list[tuple[Path, str]] = []
    if old.spec.get("controllerRef") != new.spec.get("controllerRef"):
        changes.append(
            (
                _field_path(("spec",), "controllerRef", new.spec),
                f"spec.controllerRef changed from {_show(old.spec.get('controllerRef'))} to"
                f" {_show(new.spec.get('controllerRef'))}",
            )
        )
    if new.version not in _SAME_SCHEMA:  # v1alpha1/v1alpha2: the whole list is immutable
        for list_name in ("podGroups", "podGroupTemplates"):
            if old.spec.get(list_name) != new.spec.get(list_name):
                changes.append(
                    (
                        _field_path(("spec",), list_name, new.spec),
                        f"spec.{list_name} changed (in {new.version} the whole template list is immutable,"
                        " minCount included)",
                    )
                )
        return changes
    old_templates = _by_name(workload_templates(old))
    new_templates = _by_name(workload_templates(new))
    for name, template in new_templates.items():
        before = old_templates.get(name)
        if before is None:
            changes.append(
                (
                    (*template.path, "name"),
                    f"template {name!r} was added{_NO_ADD}",
                )
            )
            continue
        if _place(before) != _place(template):
            changes.append(
                (
                    (*template.path, "name"),
                    f"template {name!r} moved from {_place_text(before)} to {_place_text(template)}{_NO_ADD}",
                )
            )
            continue
        changes.extend(_template_changes(before, template))
    for name, template in old_templates.items():
        if name in new_templates:
            continue
        parent_path = _surviving_parent(template, new_templates)
        changes.append(
            (
                parent_path,
                f"template {name!r} was removed from {_place_text(template)}{_NO_ADD}",
            )
        )
    return changes


def _by_name(templates: list[GroupTemplate]) -> dict[str, GroupTemplate]:
    found: dict[str, GroupTemplate] = {}
    for template in templates:
        name = as_str(template.data.get("name"))
        if name is not None and name not in found:
            found[name] = template
    return found


def _place(template: GroupTemplate) -> tuple[str | None, Any]:
    parent = as_str(template.parent.data.get("name")) if template.parent is not None else None
    return parent, template.path[-2]


def _place_text(template: GroupTemplate) -> str:
    parent, list_name = _place(template)
    return f"{parent!r}.{list_name}" if parent else f"spec.{list_name}"


def _surviving_parent(template: GroupTemplate, new_templates: dict[str, GroupTemplate]) -> Path:
    parent = template.parent
    while parent is not None:
        name = as_str(parent.data.get("name"))
        if name is not None and name in new_templates:
            return new_templates[name].path
        parent = parent.parent
    return ("spec",)


def _template_changes(old: GroupTemplate, new: GroupTemplate) -> list[tuple[Path, str]]:
    name = as_str(new.data.get("name"))
    changes: list[tuple[Path, str]] = []
    old_variant = policy_variant(old.data.get("schedulingPolicy"))
    new_variant = policy_variant(new.data.get("schedulingPolicy"))
    if old_variant != new_variant:  # gang.minCount / minGroupCount may change, the variant not
        changes.append(
            (
                _field_path(new.path, "schedulingPolicy", new.data),
                f"template {name!r}: schedulingPolicy changed from {old_variant or 'unset'} to"
                f" {new_variant or 'unset'} (the policy kind is fixed at creation)",
            )
        )
    for field in TEMPLATE_COPIED_FIELDS:
        before, after = old.data.get(field), new.data.get(field)
        if before != after:
            changes.append(
                (
                    _field_path(new.path, field, new.data),
                    f"template {name!r}: {field} changed from {_show(before)} to {_show(after)}",
                )
            )
    return changes


def _group_changes(old: KObject, new: KObject) -> list[tuple[Path, str]]:
    """PodGroup (all but gang.minCount) and CompositePodGroup (everything): spec with defaults."""
    defaults = _DEFAULTS if new.version in _SAME_SCHEMA else {"disruptionMode": "Pod"}
    keep_count = new.kind == "PodGroup" and new.version in _SAME_SCHEMA
    old_spec = {**defaults, **{k: v for k, v in old.spec.items() if v is not None}}
    new_spec = {**defaults, **{k: v for k, v in new.spec.items() if v is not None}}
    changes: list[tuple[Path, str]] = []
    for field in sorted(set(old_spec) | set(new_spec), key=lambda f: (f != "schedulingPolicy", f)):
        before, after = old_spec.get(field), new_spec.get(field)
        if field == "schedulingPolicy":
            changes.extend(_policy_change(("spec",), before, after, field, keep_count))
        elif before != after:
            changes.append(
                (
                    _field_path(("spec",), field, new.spec),
                    f"spec.{field} changed from {_show(before)} to {_show(after)}",
                )
            )
    return changes


def _job_changes(old: KObject, new: KObject) -> list[tuple[Path, str]]:
    before, after = old.spec.get("scheduling"), new.spec.get("scheduling")
    if before is None and after is None:
        return []
    if before is None or after is None:
        verb = "added" if before is None else "removed"
        path: Path = ("spec", "scheduling") if after is not None else ("spec",)
        return [(path, f"spec.scheduling was {verb} (whether a Job has spec.scheduling is fixed at creation)")]
    old_s, new_s = as_map(before), as_map(after)
    changes: list[tuple[Path, str]] = []
    for field in sorted(set(old_s) | set(new_s), key=lambda f: (f != "schedulingPolicy", f)):
        if field == "schedulingPolicy":
            changes.extend(_policy_change(("spec", "scheduling"), old_s.get(field), new_s.get(field), field, True))
        elif old_s.get(field) != new_s.get(field):
            changes.append(
                (
                    _field_path(("spec", "scheduling"), field, new_s),
                    f"spec.scheduling.{field} changed from {_show(old_s.get(field))} to {_show(new_s.get(field))}",
                )
            )
    return changes


# --------------------------------------------------------------------------- WAS605


@register
class DisruptionModeConflict(Rule):
    code = "WAS605"
    name = "disruption-mode-conflict"
    severity = Severity.WARNING
    other_severities = (Severity.ERROR,)  # a Job: upstream Job validation rejects it
    summary = "disruptionMode `all` with a basic policy, or a composite `all` parent with a `single` child."
    what = (
        "Fires on `disruptionMode: {all: {}}` (1.36: `PodGroup`) in a Workload template,"
        " PodGroup, CompositePodGroup or Job `spec.scheduling` whose scheduling policy is `basic`"
        " (a Job without `schedulingPolicy` is basic); on a composite template with `all` that has"
        " a child template with `single`; and on a PodGroup or CompositePodGroup whose"
        " `parentCompositePodGroupName` names a CompositePodGroup of the set with `all` while the"
        " child is `single` (an unset `disruptionMode` on these objects defaults to `single`)."
    )
    why = (
        "`all` means the group is disrupted (preempted, evicted) only as a whole. A basic group is"
        " scheduled pod by pod and has no all-or-nothing admission to protect, so KEP-5710 forbids"
        " the combination; and an `all` parent promises that its children go together, which a"
        " `single` child breaks by losing pods one at a time (KEP-6012). The API server may not"
        " reject these yet (1.37), so they silently behave unlike what the manifest says. A Job"
        " `spec.scheduling` with `all` and a basic (or no) policy is rejected by the API server's Job"
        " validation: that case is an error (see WAS003)."
    )
    example = """\
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: workers
spec:
  schedulingPolicy:
    basic: {}
  disruptionMode:
    all: {}
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
  disruptionMode:
    all: {}
"""
    kinds = POLICY_KINDS

    def check(self, obj: KObject, ctx: Context) -> Iterable[Hit]:
        for group in groups_of(obj):
            if group.disruption.mode != "all":
                continue
            defaulted = obj.group == "batch" and not group.policy.present
            if group.policy.variant == "basic" or defaulted:
                label = holder_label(group)
                basic = "no schedulingPolicy (a Job's default is basic)" if defaulted else "a basic policy"
                yield self.hit(
                    obj,
                    group.disruption.path,
                    f"{label}: disruptionMode all (disrupt the whole group together) with {basic}:"
                    " a basic group is scheduled pod by pod, so there is no gang to keep whole;"
                    " use a gang policy, or disruptionMode {single: {}}"
                    + (" (the API server rejects this Job)" if obj.group == "batch" else ""),
                    # upstream's Job validation rejects it: an error; elsewhere KEP-5710 only
                    severity=Severity.ERROR if obj.group == "batch" else None,
                )
        if obj.kind == "Workload":
            yield from self._composite_children(obj)
        elif obj.kind in ("PodGroup", "CompositePodGroup"):
            yield from self._parent_object(obj, ctx)

    def _composite_children(self, obj: KObject) -> Iterator[Hit]:
        groups = groups_of(obj)
        mode_of = {group.template.path: group.disruption.mode for group in groups if group.template is not None}
        for group in groups:
            template = group.template
            parent = template.parent if template is not None else None
            if template is None or parent is None or mode_of.get(parent.path) != "all":
                continue
            if group.disruption.mode == "single":
                yield self.hit(
                    obj,
                    group.disruption.path,
                    f"template {_name(template)!r} is single (pods disrupted one by one) under"
                    f" composite template {_name(parent)!r}, which is all (children disrupted"
                    " together): make the child all too, or the parent single",
                )

    def _parent_object(self, obj: KObject, ctx: Context) -> Iterator[Hit]:
        group = object_group(obj)
        if group is None or group.parent is None:
            return
        parent_name = group.parent.value
        parent = ctx.index.get(*COMPOSITE, obj.namespace, parent_name)
        parent_group = object_group(parent) if parent is not None else None
        if parent_group is None or parent_group.disruption.mode != "all":
            return
        own = group.disruption
        if own.raw is None:
            yield self.hit(
                obj,
                group.parent.path,
                f"this {obj.kind} has no disruptionMode, which defaults to single, but its parent"
                f" CompositePodGroup {parent_name!r} is all (children disrupted together): set"
                " disruptionMode {all: {}} here",
            )
        elif own.mode == "single":
            yield self.hit(
                obj,
                own.path,
                f"disruptionMode single under parent CompositePodGroup {parent_name!r}, which is"
                " all (children disrupted together): make this one all too, or the parent single",
            )
