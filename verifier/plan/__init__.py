"""Plan: a source and the options turned into one small, picklable task per file (manifest
entries, scope, schema bundle, the spec's needs), before any record is read."""
