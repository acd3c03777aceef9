"""Rule families, one module each; every rule is one object registered with `@register`."""
