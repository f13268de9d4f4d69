"""``verify-evidence table``: the per-case outcome table, after verifying the archive."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.commands import (
    EXIT_FINDINGS,
    EXIT_OK,
    Color,
    ColorOpt,
    FailOn,
    FailOnOpt,
    ManifestOpt,
    NoColorOpt,
    ScopeOpt,
    optional_path,
    optional_tuple,
    rich_console,
    threshold,
    use_rich,
)
from verifier.commands.acceptopts import BaselineOpt, IgnoreOpt, SelectOpt, acceptance_options
from verifier.commands.configopts import ConfigOpt, NoConfigOpt, ShowConfigOpt
from verifier.commands.output import format_choices, format_help
from verifier.commands.signopts import (
    AllowedSignersOpt,
    AllowLegacyOpt,
    IdentityOpt,
    KeyringOpt,
    MinisignKeyOpt,
    NamespaceOpt,
    RequireSignatureOpt,
    SignatureOpt,
    VerifyTimeOpt,
    trust_options,
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
from verifier.views.table import TABLE

if TYPE_CHECKING:

    class TableFormat(StrEnum):  # what mypy sees; at run time, every name in the registry
        AUTO = "auto"

else:
    TableFormat = format_choices("TableFormat", TABLE)  # auto, then TABLE's names


#: the configuration keys table takes from a file (the rest are other commands')
TABLE_KEYS = frozenset(
    {
        "manifest",
        "scope",
        "base",
        "max-bytes",
        "max-ratio",
        "fail-on",
        "color",
        "no-color",
        "ignore",
        "select",
        "baseline",
    }
)


def table(
    ctx: typer.Context,
    root: SourceArg = Path("."),
    fmt: Annotated[
        TableFormat,
        typer.Option(
            "--format",
            "-f",
            help=format_help(TABLE),
            case_sensitive=False,
        ),
    ] = TableFormat.AUTO,
    case: Annotated[
        str | None,
        typer.Option(
            "--case",
            help="Show one case in depth: every value with its file, "
            "pointer and digest, and the assertions that cover the case.",
        ),
    ] = None,
    catalogue: Annotated[
        str | None,
        typer.Option(
            "--catalogue",
            help="The case catalogue, relative to ROOT (default evidence/cases.json).",
        ),
    ] = None,
    manifest: ManifestOpt = None,
    no_color: NoColorOpt = False,
    fail_on: FailOnOpt = FailOn.ERROR,
    git: GitOpt = None,
    rev: RevOpt = None,
    base: BaseOpt = None,
    max_bytes: MaxBytesOpt = None,
    max_ratio: MaxRatioOpt = None,
    color: ColorOpt = Color.AUTO,
    signature: SignatureOpt = None,
    require_signature: RequireSignatureOpt = False,
    allowed_signers: AllowedSignersOpt = None,
    identity: IdentityOpt = None,
    namespace: NamespaceOpt = "file",
    verify_time: VerifyTimeOpt = None,
    minisign_key: MinisignKeyOpt = None,
    allow_legacy_minisign: AllowLegacyOpt = False,
    keyring: KeyringOpt = None,
    scope: ScopeOpt = None,
    ignore: IgnoreOpt = None,
    select: SelectOpt = None,
    baseline: BaselineOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
    show_config: ShowConfigOpt = False,
) -> int:
    """Verify the archive, then print one row per case of its case catalogue.

    Counts are per case, never combined; the original acceptance result and later readbacks
    have columns of their own. If verification finds anything, the output says so first,
    marks the affected cells, and the exit code is 1.

    Example: verify-evidence table . --format markdown >> "$GITHUB_STEP_SUMMARY"
    """
    import os

    from verifier.audit import timestamp
    from verifier.commands.configopts import configure, converters, show_config_text
    from verifier.commands.output import write
    from verifier.pipeline import Options, UsageError, verify
    from verifier.table import DEFAULT_CATALOGUE, build_table
    from verifier.views.table import TableView

    configured = configure(
        ctx,
        "table",
        os.fspath(root),
        git,
        config,
        no_config,
        converters(TableFormat, FailOn, Color),
        TABLE_KEYS,
        rev=rev,
    )
    if show_config:
        write(None, show_config_text(configured, ctx, "table"))
        return EXIT_OK
    settings = configured.applied
    manifest = settings.get("manifest", manifest)
    scope = settings.get("scope", scope)
    base = settings.get("base", base)
    max_bytes = settings.get("max-bytes", max_bytes)
    max_ratio = settings.get("max-ratio", max_ratio)
    fail_on = settings.get("fail-on", fail_on)
    color = settings.get("color", color)
    no_color = settings.get("no-color", no_color)
    ignore = settings.get("ignore", ignore)
    select = settings.get("select", select)
    baseline = settings.get("baseline", baseline)
    accepting = acceptance_options(ignore, select, baseline, None)
    catalogue = catalogue or DEFAULT_CATALOGUE
    generated_at = timestamp()  # SOURCE_DATE_EPOCH fixes it; malformed: exit 2 before reading
    location, more = source_options(root, git, rev, base, max_bytes, max_ratio)
    trust = trust_options(  # read (and refused) before the archive is
        signature,
        require_signature,
        allowed_signers,
        identity,
        namespace,
        verify_time,
        minisign_key,
        allow_legacy_minisign,
        keyring,
    )
    from verifier.commands.progress import progress_bar

    with progress_bar() as progress:  # on a terminal's stderr only: stdout is the table
        options = Options(
            manifest=optional_path(manifest),
            scope=optional_tuple(scope),
            documents=(catalogue,),
            trust=trust,
            progress=progress,
            **more,
            **accepting,
        )
        report = verify(location, options)
    outcome = build_table(report, threshold(fail_on))  # the catalogue and spec the run judged
    outcome.generated_at = generated_at
    if outcome.problems and not outcome.cases:
        raise UsageError(outcome.problems[0])
    row = None
    if case is not None:
        matches = [r for r in outcome.cases if r.id == case]
        if not matches:
            known = ", ".join(r.id for r in outcome.cases)
            raise UsageError(f"no case {case!r} in the catalogue (cases: {known})")
        row = matches[0]
    if use_rich(fmt is TableFormat.AUTO and row is None, no_color, color):
        from verifier.views.table.rich_view import show

        show(outcome, rich_console(color))
    else:
        render = TABLE["text" if fmt is TableFormat.AUTO else fmt.value]
        sys.stdout.write(render(TableView(outcome, row)))
    return EXIT_OK if outcome.ok else EXIT_FINDINGS


def register(app: typer.Typer) -> None:
    app.command()(table)
