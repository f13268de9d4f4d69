"""Making archives: the `init` scaffold and the manifest writer (`manifest --write`)."""
