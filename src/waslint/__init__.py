"""waslint: lint, fix and check feasibility of Kubernetes Workload-Aware Scheduling manifests."""

__version__ = "0.1.0"
