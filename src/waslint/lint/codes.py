"""The codes table: every rule code, in catalog order, with its name and the module that defines
it (`waslint.lint.rules.<family>.<module>`): ruff's `codes.rs`, yamllint's registry dict. It is the
one list the registry loads rules from; a rule module is imported only when its rule is asked for
(`--select WAS3` imports the sizing rules only). A shipped code never changes meaning: retire a
code by leaving its row out, never by giving it to another rule."""

from __future__ import annotations

RULES: dict[str, tuple[str, str]] = {
    # WAS0xx input
    "WAS000": ("unused-suppression", "input.unused_suppression"),
    "WAS001": ("parse-error", "input.parse_error"),
    "WAS002": ("schema-violation", "input.schema_violation"),
    "WAS003": ("api-validation", "input.api_validation"),
    "WAS004": ("quantity-out-of-range", "input.quantity_out_of_range"),
    "WAS005": ("kustomize-build-failed", "input.kustomize_build_failed"),
    # WAS1xx migration to 1.37
    "WAS101": ("api-version-not-served", "migration.api_version_not_served"),
    "WAS102": ("alpha-api-in-use", "migration.alpha_api_in_use"),
    "WAS103": ("legacy-disruption-mode", "migration.legacy_disruption_mode"),
    "WAS104": ("legacy-template-ref", "migration.legacy_template_ref"),
    "WAS105": ("legacy-pod-workload-ref", "migration.legacy_pod_workload_ref"),
    "WAS106": ("status-condition-renamed", "migration.status_condition_renamed"),
    # WAS2xx shared DRA claims
    "WAS201": ("claim-triple-mismatch", "claims.claim_triple_mismatch"),
    "WAS202": ("group-claim-unconsumed", "claims.group_claim_unconsumed"),
    "WAS203": ("claim-source-invalid", "claims.claim_source_invalid"),
    "WAS204": ("claim-reference-missing", "claims.claim_reference_missing"),
    # WAS3xx gang sizing
    "WAS301": ("mincount-exceeds-parallelism", "sizing.mincount_exceeds_parallelism"),
    "WAS302": ("elastic-gang", "sizing.elastic_gang"),
    "WAS303": ("mincount-exceeds-members", "sizing.mincount_exceeds_members"),
    "WAS304": ("template-drift", "sizing.template_drift"),
    "WAS305": ("min-member-drift", "sizing.min_member_drift"),
    "WAS306": ("gang-size-invalid", "sizing.gang_size_invalid"),
    # WAS4xx references and ownership
    "WAS401": ("dangling-podgroup-ref", "references.dangling_podgroup_ref"),
    "WAS402": ("dangling-workload-ref", "references.dangling_workload_ref"),
    "WAS403": ("duplicate-group-ownership", "references.duplicate_group_ownership"),
    "WAS404": ("competing-gang-schedulers", "references.competing_gang_schedulers"),
    "WAS405": ("unknown-priority-class", "references.unknown_priority_class"),
    # WAS5xx limits and quotas
    "WAS501": ("queue-limit-unset", "quotas.queue_limit_unset"),
    "WAS502": ("extended-resource-limits", "quotas.extended_resource_limits"),
    "WAS503": ("nonpreemptible-over-quota", "quotas.nonpreemptible_over_quota"),
    # WAS6xx structure and topology
    "WAS601": ("multiple-topology-constraints", "structure.multiple_topology_constraints"),
    "WAS602": ("template-limits", "structure.template_limits"),
    "WAS603": ("topology-key-unknown", "structure.topology_key_unknown"),
    "WAS604": ("immutable-field-changed", "structure.immutable_field_changed"),
    "WAS605": ("disruption-mode-conflict", "structure.disruption_mode_conflict"),
    "WAS606": ("gang-unplaceable", "structure.gang_unplaceable"),
    "WAS607": ("composite-hierarchy-invalid", "structure.composite_hierarchy_invalid"),
    # WAS7xx feature gates
    "WAS701": ("gate-inconsistent", "gates.gate_inconsistent"),
    "WAS702": ("gate-prerequisite-missing", "gates.gate_prerequisite_missing"),
    "WAS703": ("removed-feature-gate", "gates.removed_feature_gate"),
    # WAS8xx runtime (stored objects)
    "WAS801": ("orphan-podgroup", "runtime.orphan_podgroup"),
    "WAS802": ("orphan-claim", "runtime.orphan_claim"),
    "WAS803": ("degraded-gang", "runtime.degraded_gang"),
    "WAS804": ("stuck-deletion", "runtime.stuck_deletion"),
    "WAS805": ("unschedulable-gang", "runtime.unschedulable_gang"),
}

RULES_PACKAGE = "waslint.lint.rules"


def module_of(code: str) -> str:
    """The full name of the module that defines a rule."""
    return f"{RULES_PACKAGE}.{RULES[code][1]}"
