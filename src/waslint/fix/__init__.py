"""`waslint fix`: rewrite 1.35/1.36 Workload-Aware Scheduling manifests for Kubernetes 1.37.

Technique: minimal text edits at libyaml node positions. The lint pipeline (loader, index, WAS1xx
rules) finds what to change; the planners of `lint/fixers/` (`migration`, `podgroups`) turn
findings into operations on the data (`lint/fixers/ops`); `edits` writes each operation as text
edits inside the nodes it changes; `run` applies them per file and verifies the result (it
parses, reads back as the original data with the operations applied, and the changed objects pass
the 1.37 strict schema) before `writer` replaces the file atomically. Bytes outside the changed nodes are never touched.
"""

from waslint.fix.run import FileState, FixOptions, FixResult, Remaining, fix_paths, fix_texts

__all__ = ["FileState", "FixOptions", "FixResult", "Remaining", "fix_paths", "fix_texts"]
