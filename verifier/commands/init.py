"""``verify-evidence init``: scaffold a new archive."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import EXIT_OK


def init(
    directory: Annotated[
        Path,
        typer.Argument(help="The new archive's folder: new, empty, or holding only dotfiles."),
    ],
    ci: Annotated[
        str | None,
        typer.Option(
            "--ci",
            metavar="github",
            help="Also write a CI workflow: github (.github/workflows/verify-evidence.yml).",
        ),
    ] = None,
    pre_commit: Annotated[
        bool,
        typer.Option(
            "--pre-commit",
            help="Also write .pre-commit-config.yaml: a local hook that runs the "
            "verify-evidence on PATH.",
        ),
    ] = False,
    install: Annotated[
        str | None,
        typer.Option(
            "--install",
            metavar="REQUIREMENT",
            help="With --ci: what the verify-evidence action pip-installs, e.g. "
            "verify-evidence==X (its package input; default: the version the action's ref names).",
        ),
    ] = None,
) -> int:
    """Start a new archive: an example record, its schema, assertions, a case, a manifest.

    Example: verify-evidence init my-archive && verify-evidence check my-archive
    """
    from verifier.authoring.scaffold import scaffold

    written = scaffold(directory, ci, pre_commit, install)
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
