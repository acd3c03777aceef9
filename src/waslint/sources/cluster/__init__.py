"""Live, read-only cluster access: the only package besides audit/ that imports the kubernetes client."""
