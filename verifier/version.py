"""The version of verifier (read by the package, the report and the CLI without importing
either)."""

__version__ = "0.1.0"
