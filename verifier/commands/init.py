"""``verify-evidence init``: scaffold a new archive."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import EXIT_OK


def init(
    directory: Annotated[Path, typer.Argument(help="The new archive's folder (empty or new).")],
) -> int:
    """Start a new archive: an example record, its schema, assertions, a case, a manifest.

    Example: verify-evidence init my-archive && verify-evidence check my-archive
    """
    from verifier.authoring.scaffold import scaffold

    written = scaffold(directory)
    for name in written:
        print(f"created {directory / name}", file=sys.stderr)
    print(
        f"next: add records under {directory / 'evidence'}, then run "
        f"'verify-evidence manifest {directory} --write' and 'verify-evidence check {directory}'",
        file=sys.stderr,
    )
    return EXIT_OK


def register(app: typer.Typer) -> None:
    app.command()(init)
