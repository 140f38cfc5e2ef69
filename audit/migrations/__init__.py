"""Reading older results.json versions: each module turns one version into the next."""
