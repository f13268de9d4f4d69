"""Where rendered reports go: ``--format``/``--output`` pairs, several in one run.

The i-th ``--output`` receives the i-th ``--format``; one format at most may be left without
an output, and it goes to standard output. Files are written whole (via a temporary file and a
rename, :mod:`verifier.atomicwrite`), never partially.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from verifier.atomicwrite import write_atomic
from verifier.errors import UsageError


def plan(formats: list[str], outputs: list[Path]) -> list[tuple[str, Path | None]]:
    """Pair formats with outputs; raises :class:`UsageError` when they cannot be paired."""
    if len(outputs) > len(formats):
        raise UsageError("more --output than --format values; give one --format per --output")
    pairs = [(fmt, outputs[i] if i < len(outputs) else None) for i, fmt in enumerate(formats)]
    if sum(1 for _, out in pairs if out is None) > 1:
        raise UsageError(
            "several --format values without an --output each; only one may go to standard output"
        )
    return pairs


def write(path: Path | None, text: str) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    target = os.fspath(path)
    try:
        write_atomic(target, text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
