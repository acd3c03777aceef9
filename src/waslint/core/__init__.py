"""The core value types every layer shares (no waslint imports)."""
