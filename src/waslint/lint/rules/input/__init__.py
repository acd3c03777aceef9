"""WAS0xx: input. Unused suppressions, parse errors, schema violations of WAS objects.

WAS003: upstream API validation. What a Kubernetes API server of the target release rejects
(declarative ``+k8s:`` markers and the hand-written checks), at the field upstream names.

WAS004: a resource quantity larger than Kubernetes can count (`objects/quantity.py`).

WAS005: a kustomize build root that does not build (reported by `lint/gitops.py`).

One module per rule (named after the rule), listed in the codes table `lint/codes.py`; WAS003's
reading of upstream validation is in `upstream.py`."""
