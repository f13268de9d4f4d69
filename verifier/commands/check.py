"""``verify-evidence check``: all three stages, a summary per stage."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import (
    EXIT_FINDINGS,
    EXIT_OK,
    ManifestOpt,
    NoColorOpt,
    QuietOpt,
    ScopeOpt,
    optional_path,
    optional_tuple,
    use_rich,
)
from verifier.commands.sourceopts import (
    BaseOpt,
    GitOpt,
    MaxBytesOpt,
    MaxRatioOpt,
    RevOpt,
    SourceArg,
    source_options,
)


class Format(StrEnum):
    """The choices of --format: every format registered in verifier.formats, plus auto (rich
    on a terminal). Kept here, not imported from the registry, so start-up stays light; a test
    checks that the two agree."""

    AUTO = "auto"
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"
    JUNIT = "junit"
    SARIF = "sarif"
    GITHUB = "github"


def check(
    root: SourceArg = Path("."),
    fmt: Annotated[
        list[Format] | None,
        typer.Option(
            "--format",
            "-f",
            help="auto (rich on a terminal, text otherwise), text, json, markdown, junit, sarif "
            "or github. Repeatable, paired in order with --output.",
            case_sensitive=False,
        ),
    ] = None,
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the matching --format here instead of standard output. Repeatable.",
        ),
    ] = None,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
    git: GitOpt = None,
    rev: RevOpt = None,
    base: BaseOpt = None,
    max_bytes: MaxBytesOpt = None,
    max_ratio: MaxRatioOpt = None,
    stages: Annotated[
        str,
        typer.Option(
            "--stages",
            help="Comma-separated stages to run: integrity (always: it is the one read of "
            "every file), validity, consistency. Skipped stages are reported as skipped.",
        ),
    ] = "integrity,validity,consistency",
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Worker processes for hashing large files (default: one per available core).",
        ),
    ] = None,
) -> int:
    """Run all three stages and print a summary per stage.

    SOURCE is a folder, a zip, a tarball, REPO@REV or a BagIt bag; nothing is extracted.

    Example: verify-evidence check . --format json -o report.json --format junit -o junit.xml
    """
    from verifier.commands.output import plan, write
    from verifier.formats import FORMATS
    from verifier.pipeline import Options, verify

    pairs = plan([f.value for f in fmt or [Format.AUTO]], list(output or []))
    location, more = source_options(root, git, rev, base, max_bytes, max_ratio)
    from verifier.commands.progress import progress_bar

    with progress_bar(enabled=not quiet) as progress:
        report = verify(
            location,
            Options(
                manifest=optional_path(manifest),
                scope=optional_tuple(scope),
                stages=frozenset(s.strip() for s in stages.split(",") if s.strip()),
                workers=jobs,
                progress=progress,
                **more,
            ),
        )
    for name, path in pairs:
        if quiet and path is None:
            continue
        if name == Format.AUTO and path is None and use_rich(True, no_color):
            from rich.console import Console

            from verifier.terminal import show

            show(report, Console())
            continue
        write(path, FORMATS["text" if name == Format.AUTO else name](report))
    return EXIT_OK if report.ok else EXIT_FINDINGS


def register(app: typer.Typer) -> None:
    app.command()(check)
