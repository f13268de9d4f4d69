"""The one exception that ends a run: kept in a module of its own so that the command line
can catch it without importing the pipeline (and with it jsonschema) at start-up."""

from __future__ import annotations


class UsageError(Exception):
    """The run cannot go on (no manifest, root missing, bad option): exit 2, one line."""
