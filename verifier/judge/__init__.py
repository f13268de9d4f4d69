"""Judge: the facts of every file reduced into the stages' results (integrity, validity,
consistency, the catalogue) and hints, which ask for more tasks and never read."""
