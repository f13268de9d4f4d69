"""The ``verify-evidence`` command: parse options, call the core, render, map to an exit code.

Exit codes: 0 no findings; 1 at least one finding; 2 the command could not run (bad
arguments, ROOT missing, no manifest); 3 an unexpected internal error (one line, no traceback).
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from verifier import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class Format(StrEnum):
    AUTO = "auto"
    TEXT = "text"
    JSON = "json"


app = typer.Typer(
    name="verify-evidence",
    help="Verify an evidence archive offline: integrity (SHA-256 manifest), validity (JSON "
    "Schema) and consistency (cross-file assertions).",
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"verify-evidence {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Verify an evidence archive offline."""


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


def _options(manifest: Path | None, scope: list[str] | None) -> object:
    from verifier.pipeline import Options

    return Options(
        manifest=os.fspath(manifest) if manifest else None, scope=tuple(scope) if scope else None
    )


def _use_rich(fmt: Format, no_color: bool) -> bool:
    return (
        fmt is Format.AUTO and not no_color and "NO_COLOR" not in os.environ and sys.stdout.isatty()
    )


@app.command()
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
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text, no colour.")] = False,
) -> int:
    """Run all three stages and print a summary per stage.

    Example: verify-evidence check . --format json > report.json
    """
    from verifier.pipeline import Options, verify

    options = _options(manifest, scope)
    assert isinstance(options, Options)
    report = verify(root, options)
    if _use_rich(fmt, no_color):
        from rich.console import Console

        from verifier.terminal import show

        show(report, Console())
    else:
        from verifier.formats import FORMATS

        sys.stdout.write(FORMATS["text" if fmt is Format.AUTO else fmt.value](report))
    return EXIT_OK if report.ok else EXIT_FINDINGS


@app.command("manifest")
def manifest_cmd(
    root: RootArg = Path("."),
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Write ROOT/manifest.sha256 (or --manifest) instead of printing it."
        ),
    ] = False,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
) -> int:
    """Compute a manifest (sorted, LF, names escaped as sha256sum writes them).

    Covers every regular file in the scope: the --scope folders, else the folders the existing
    manifest covers, else evidence/ and schemas/. Never lists itself or anything under .git/.

    Example: verify-evidence manifest . --write
    """
    from verifier.writer import write_manifest

    target, text = write_manifest(
        root, os.fspath(manifest) if manifest else None, tuple(scope) if scope else None, write
    )
    if write:
        print(f"wrote {target}", file=sys.stderr)
    else:
        sys.stdout.buffer.write(text)
    return EXIT_OK


def _fail(message: str) -> NoReturn:
    print(f"verify-evidence: error: {message}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def main(argv: list[str] | None = None) -> None:
    """Entry point: one line and exit 2 for bad usage; never a traceback."""
    from verifier.pipeline import UsageError

    try:
        code = app(args=argv, prog_name="verify-evidence", standalone_mode=False)
    except UsageError as exc:
        _fail(str(exc))
    except typer.Abort:
        print("verify-evidence: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(EXIT_FINDINGS)
    except Exception as exc:
        # click's UsageError family (typer may vendor click, so match by shape, not by class)
        if getattr(exc, "exit_code", None) == EXIT_USAGE and hasattr(exc, "format_message"):
            if type(exc).__name__ == "NoArgsIsHelpError":
                _fail("missing command (check, manifest); see 'verify-evidence --help'")
            _fail(exc.format_message())
        print(f"verify-evidence: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else EXIT_OK)
