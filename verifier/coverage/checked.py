"""The check a coverage audit runs: the archive's own check with every record kept whole."""

from __future__ import annotations

import os
from dataclasses import replace

from verifier.pipeline import Options, Run, run


def audit_options(options: Options) -> Options:
    """``options`` for the check a coverage audit runs: every record kept whole."""
    pattern = options.records_dir.strip("/") + "/**"
    return replace(options, whole=(*options.whole, pattern), hints=False)


def audit_run(location: str | os.PathLike[str], options: Options | None = None) -> Run:
    return run(location, audit_options(options or Options()))


__all__ = ["audit_options", "audit_run"]
