"""The CLI's subcommands, one module each, each with ``register(app)``.

Shared here: exit codes and the option types several commands take. Modules import the core
lazily inside their command functions, so ``verify-evidence --version`` stays fast.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from verifier.findings import Severity

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3

RootArg = Annotated[Path, typer.Argument(help="The archive's root folder.")]
ManifestOpt = Annotated[
    Path | None,
    typer.Option("--manifest", help="The manifest to check, if not ROOT/manifest.sha256."),
]
ScopeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--scope",
        help="A folder (relative to ROOT) to look in for unlisted files; repeatable. "
        "'.' means the files directly in ROOT. Default: every top-level folder the manifest lists "
        "files in, plus ROOT's own files if it lists any at ROOT.",
    ),
]
NoColorOpt = Annotated[bool, typer.Option("--no-color", help="Plain text, no colour.")]
QuietOpt = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="Print nothing on standard output; the exit code tells."),
]


class FailOn(StrEnum):
    """The choices of --fail-on: the lowest severity that makes the exit code 1."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


FailOnOpt = Annotated[
    FailOn,
    typer.Option(
        "--fail-on",
        help="The lowest finding severity that makes the exit code 1: error (the default), "
        "warning (errors and warnings) or note (any finding).",
        case_sensitive=False,
    ),
]


def threshold(fail_on: FailOn) -> Severity:
    from verifier.findings import Severity

    return Severity(fail_on.value)


def use_rich(auto: bool, no_color: bool) -> bool:
    """A rich view only on a terminal, never with --no-color or NO_COLOR."""
    return auto and not no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()


def optional_path(path: Path | None) -> str | None:
    return os.fspath(path) if path else None


def optional_tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(values) if values else None
