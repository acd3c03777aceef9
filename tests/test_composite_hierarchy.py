"""WAS607 beyond its fixture pair: hierarchies kube-scheduler marks Invalid, read as its
hierarchy walk reads them (kubernetes/kubernetes pkg/scheduler/backend/cache/hierarchy.go
findRootKey: at most WorkloadMaxTreeDepth steps up, then "deeper than the maximum of 4, or
contains a cycle"; its test TestHierarchyWrapper_FindRootKeyForGroup)."""

from __future__ import annotations

from conftest import lint_text, lint_texts


def composite(name: str, parent: str | None = None, workload: str = "training") -> str:
    parent_line = f"  parentCompositePodGroupName: {parent}\n" if parent else ""
    return (
        "apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"
        f"metadata: {{name: {name}}}\nspec:\n{parent_line}"
        f"  workloadRef: {{workloadName: {workload}, templateName: {name}}}\n"
        "  schedulingPolicy: {gang: {minGroupCount: 1}}\n"
    )


def pod_group(name: str, parent: str, workload: str = "training") -> str:
    return (
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n"
        f"metadata: {{name: {name}}}\nspec:\n  parentCompositePodGroupName: {parent}\n"
        f"  workloadRef: {{workloadName: {workload}, templateName: {name}}}\n"
        "  schedulingPolicy: {gang: {minCount: 1}}\n"
    )


def was607(*documents: str) -> list[str]:
    found = lint_text("---\n".join(documents), select=["WAS607"])
    return [f"{f.object_id.name if f.object_id else '?'}: {f.message.split(':')[0]}" for f in found]


def test_a_longer_cycle_is_reported_on_each_composite_and_a_pod_group_below_it_is_not() -> None:
    found = was607(composite("a", "c"), composite("b", "a"), composite("c", "b"), pod_group("workers", "a"))
    assert sorted(found) == [
        "a: CompositePodGroup default/a is on a cycle of parents (a -> c -> b -> a)",
        "b: CompositePodGroup default/b is on a cycle of parents (b -> a -> c -> b)",
        "c: CompositePodGroup default/c is on a cycle of parents (c -> b -> a -> c)",
    ]


def test_a_composite_that_names_itself_is_a_cycle() -> None:
    assert was607(composite("self", "self")) == [
        "self: CompositePodGroup default/self is on a cycle of parents (self -> self)"
    ]


def test_four_levels_are_allowed_five_are_not() -> None:
    chain = [composite("l1"), composite("l2", "l1"), composite("l3", "l2")]
    assert was607(*chain, pod_group("leaf", "l3")) == []
    found = was607(*chain, composite("l4", "l3"), pod_group("leaf", "l4"), pod_group("other", "l4"))
    assert sorted(found) == [
        "leaf: PodGroup default/leaf is level 5 of its hierarchy (leaf -> l4 -> l3 -> l2 -> l1); kube-scheduler walks at most 4 levels to the root and marks a deeper hierarchy Invalid, so none of its pods is scheduled. Flatten the hierarchy (at most 4 levels, the root included)",
        "other: PodGroup default/other is level 5 of its hierarchy (other -> l4 -> l3 -> l2 -> l1); kube-scheduler walks at most 4 levels to the root and marks a deeper hierarchy Invalid, so none of its pods is scheduled. Flatten the hierarchy (at most 4 levels, the root included)",
    ]


def test_a_parent_outside_the_set_counts_as_one_more_level() -> None:
    chain = [composite("l2", "not-in-the-set"), composite("l3", "l2"), composite("l4", "l3")]
    assert was607(*chain[:2], pod_group("leaf", "l3")) == []
    (found,) = was607(*chain, pod_group("leaf", "l4"))
    assert found.startswith("leaf: PodGroup default/leaf is level 5 of its hierarchy (leaf -> l4 -> l3 -> l2)")
    assert (
        "its top's parent is not in the set"
        in lint_text("---\n".join([*chain, pod_group("leaf", "l4")]), select=["WAS607"])[0].message
    )


def test_several_workloads_are_reported_against_the_roots() -> None:
    found = was607(composite("job"), pod_group("workers", "job"), pod_group("evaluator", "job", workload="evaluation"))
    assert found == [
        "evaluator: PodGroup default/evaluator names Workload 'evaluation', but its hierarchy (root CompositePodGroup default/job) belongs to Workload 'training'"
    ]


def test_copies_of_one_object_in_several_files_are_one_group() -> None:
    files = {"a.yaml": composite("x", "y"), "b.yaml": composite("y", "x"), "copy.yaml": composite("x", "y")}
    found = [f for f in lint_texts(files, select=["WAS607"]).findings]
    assert sorted(f.path for f in found) == ["a.yaml", "b.yaml"]


def test_namespaces_are_separate_hierarchies() -> None:
    other = composite("b", "a").replace("metadata: {name: b}", "metadata: {name: b, namespace: other}")
    assert was607(composite("a", "b"), other) == []
