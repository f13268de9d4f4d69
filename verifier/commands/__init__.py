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
    from rich.console import Console

    from verifier.findings import Severity
    from verifier.report import Report

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

RootArg = Annotated[Path, typer.Argument(help="The archive's root folder.")]
ManifestOpt = Annotated[
    str | None,  # a str, not a Path: './NAME' (as given) differs from 'NAME' (inside ROOT)
    typer.Option(
        "--manifest",
        help="The manifest, if not ROOT/manifest.sha256: a name inside ROOT (SHA256SUMS, "
        "release/SHA256SUMS), or an absolute or ./ path, taken as given.",
    ),
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


class Color(StrEnum):
    """The choices of --color."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


ColorOpt = Annotated[
    Color,
    typer.Option(
        "--color",
        help="auto (the default): the rich view on a terminal, unless NO_COLOR is set, and "
        "also off a terminal when FORCE_COLOR is; always; never (plain text, as --no-color).",
        case_sensitive=False,
    ),
]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Say on standard error which settings differ from the defaults and where each "
        "came from.",
    ),
]
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


def exit_code(report: Report) -> int:
    """A check report's exit code: its verdict (:attr:`Report.passed`, the one rule every
    view's verdict follows too), set its ``fail_on`` first."""
    return EXIT_OK if report.passed else EXIT_FINDINGS


def forced_color() -> bool:
    """``FORCE_COLOR`` set to anything but empty, ``0`` or ``false`` (force-color.org)."""
    return os.environ.get("FORCE_COLOR", "").strip().lower() not in ("", "0", "false", "no")


def use_rich(auto: bool, no_color: bool, color: Color = Color.AUTO) -> bool:
    """A rich view where the format is auto: with --color always; never with --color never,
    --no-color or NO_COLOR (which wins over FORCE_COLOR); with FORCE_COLOR; else on a
    terminal only."""
    if not auto or no_color or color is Color.NEVER:
        return False
    if color is Color.ALWAYS:
        return True
    if "NO_COLOR" in os.environ:
        return False
    return forced_color() or sys.stdout.isatty()


def rich_console(color: Color = Color.AUTO) -> Console:
    """The terminal console, forced to colour when --color always or FORCE_COLOR asked."""
    from verifier.views.terminal import console

    force = color is Color.ALWAYS or (color is Color.AUTO and forced_color())
    return console(force_terminal=True) if force else console()


def optional_path(path: str | Path | None) -> str | None:
    return os.fspath(path) if path else None


def optional_tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(values) if values else None
