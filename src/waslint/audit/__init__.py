"""Live-cluster audit (`waslint audit`): reads through sources.cluster, lints with the lint engine."""
