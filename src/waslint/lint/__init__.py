"""The lint pipeline: engine, rule registry, context, suppressions, the rule families, and the fix
planners registered against the rule codes they fix."""
