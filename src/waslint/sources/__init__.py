"""What a run reads beside manifests: a cluster snapshot, a --base git revision, a --gates file."""
