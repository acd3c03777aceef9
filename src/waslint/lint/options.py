"""What one lint run is asked: the options every pipeline that lints (lint, fix, audit) fills in."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from waslint.core.model import Severity
from waslint.core.records import dataclass
from waslint.io.config import Config
from waslint.knowledge.releases import Release, default_target
from waslint.lint.context import RuntimeInputs

if TYPE_CHECKING:
    from waslint.sources.gates import GatesFile


@dataclass
class LintOptions:
    """The lint command's options, as the rules and the engine read them."""

    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, Severity] = field(default_factory=dict)
    target: Release = field(default_factory=default_target)
    namespace: str = "default"
    inline_ignores: bool = True
    # What the run reads beside manifests (--snapshot, --gates, --base), loaded by prepare_context.
    snapshot_path: str | None = None
    gates_path: str | None = None
    base_ref: str | None = None
    stdin_filename: str | None = None  # the path stdin's findings carry (--stdin-filename)
    # A gate inventory already read (a live audit reads it from the components' metrics).
    gates: GatesFile | None = None
    runtime: RuntimeInputs = field(default_factory=RuntimeInputs)
    jobs: int = 1  # worker processes for parsing and per-object rules (--jobs)
    # A streamed run: files left unparsed are checked one by one against an index of the files
    # that may hold what cross-object rules look up (lint_paths reads this way).
    stream: bool = False
    # The command that renders a kustomize build root (`--kustomize-cmd`; default: `kustomize
    # build`, else `kubectl kustomize`).
    kustomize_cmd: str | None = None

    @classmethod
    def from_config(cls, config: Config) -> LintOptions:
        return cls(
            select=config.select,
            ignore=list(config.ignore),
            severity=dict(config.severity),
            target=config.target_version or default_target(),
            namespace=config.namespace or "default",
            inline_ignores=config.inline_ignores,
            runtime=RuntimeInputs(thresholds=dict(config.runtime_thresholds)),
            kustomize_cmd=config.kustomize_cmd,
        )
