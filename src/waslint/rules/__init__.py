"""Rule families (one module each) and the Kubernetes data tables they read (`*.yaml`)."""
