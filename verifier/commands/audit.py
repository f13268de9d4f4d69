"""``verify-evidence audit``: verify a published snapshot and write an audit record."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.commands import (
    EXIT_FINDINGS,
    EXIT_OK,
    ManifestOpt,
    ScopeOpt,
    optional_path,
    optional_tuple,
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


def audit(
    source: SourceArg = Path("."),
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the audit record (JSON, schemas/audit.schema.json) here; the text "
            "report then goes to standard output. Default: the record to standard output.",
        ),
    ] = None,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
    git: GitOpt = None,
    rev: RevOpt = None,
    base: BaseOpt = None,
    max_bytes: MaxBytesOpt = None,
    max_ratio: MaxRatioOpt = None,
) -> int:
    """Verify SOURCE and write an audit record: the source's identity (the SHA-256 of a zip
    or tarball, or the commit id), the verifier's version, counts per stage, every finding
    and every file's digest. Deterministic apart from createdAt (SOURCE_DATE_EPOCH fixes it).

    Example: verify-evidence audit release-1.0.zip -o audit.json
    """
    from verifier.audit import audit_record, render, timestamp
    from verifier.commands.output import write
    from verifier.formats import FORMATS
    from verifier.pipeline import Options, UsageError, _relative_inside, run

    location, more = source_options(source, git, rev, base, max_bytes, max_ratio)
    to_stdout = output is None or os.fspath(output) == "-"
    inside = (
        not to_stdout
        and more["rev"] is None
        and os.path.isdir(location)
        and _relative_inside(os.fspath(output or ""), location) is not None
    )
    if inside:
        raise UsageError("refusing to write the audit record inside the folder it audits")
    options = Options(manifest=optional_path(manifest), scope=optional_tuple(scope), **more)
    result = run(location, options)
    record = render(audit_record(result, location, options.limits, timestamp()))
    if to_stdout:
        sys.stdout.write(record)
    else:
        write(output, record)
        sys.stdout.write(FORMATS["text"](result.report))
    return EXIT_OK if result.report.ok else EXIT_FINDINGS


def register(app: typer.Typer) -> None:
    app.command()(audit)
