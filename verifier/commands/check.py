"""``verify-evidence check``: all three stages, a summary per stage."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import (
    EXIT_FINDINGS,
    EXIT_OK,
    ManifestOpt,
    NoColorOpt,
    RootArg,
    ScopeOpt,
    optional_path,
    optional_tuple,
    use_rich,
)


class Format(StrEnum):
    AUTO = "auto"
    TEXT = "text"
    JSON = "json"


def check(
    root: RootArg = Path("."),
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            help="auto (rich on a terminal, text otherwise), text or json.",
            case_sensitive=False,
        ),
    ] = Format.AUTO,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
    no_color: NoColorOpt = False,
) -> int:
    """Run all three stages and print a summary per stage.

    Example: verify-evidence check . --format json > report.json
    """
    from verifier.pipeline import Options, verify

    report = verify(root, Options(manifest=optional_path(manifest), scope=optional_tuple(scope)))
    if use_rich(fmt is Format.AUTO, no_color):
        from rich.console import Console

        from verifier.terminal import show

        show(report, Console())
    else:
        from verifier.formats import FORMATS

        sys.stdout.write(FORMATS["text" if fmt is Format.AUTO else fmt.value](report))
    return EXIT_OK if report.ok else EXIT_FINDINGS


def register(app: typer.Typer) -> None:
    app.command()(check)
