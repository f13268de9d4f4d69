"""``verify-evidence table``: the per-case outcome table, after verifying the archive."""

from __future__ import annotations

import sys
from dataclasses import replace
from enum import StrEnum
from typing import TYPE_CHECKING

import typer

from verifier.commands import EXIT_FINDINGS, EXIT_OK, rich_console, threshold, use_rich
from verifier.commands.options import Request, command, format_option
from verifier.commands.output import format_choices
from verifier.views.table import TABLE

if TYPE_CHECKING:

    class TableFormat(StrEnum):  # what mypy sees; at run time, every name in the registry
        AUTO = "auto"

else:
    TableFormat = format_choices("TableFormat", TABLE)  # auto, then TABLE's names


def table(request: Request) -> int:
    """Verify the archive, then print one row per case of its case catalogue.

    Counts are per case, never combined; the original acceptance result and later readbacks
    have columns of their own. If verification finds anything, the output says so first,
    marks the affected cells, and the exit code is 1.

    Example: verify-evidence table . --format markdown >> "$GITHUB_STEP_SUMMARY"
    """
    from verifier.audit import timestamp
    from verifier.commands.progress import progress_bar
    from verifier.pipeline import UsageError, verify
    from verifier.table import DEFAULT_CATALOGUE, build_table
    from verifier.views.table import TableView

    fmt, case, fail_on = request.fmt[0], request.case, request.fail_on
    generated_at = timestamp()  # SOURCE_DATE_EPOCH fixes it; malformed: exit 2 before reading
    location = request.location
    options = request.options(documents=(request.catalogue or DEFAULT_CATALOGUE,))
    with progress_bar() as progress:  # on a terminal's stderr only: stdout is the table
        report = verify(location, replace(options, progress=progress))
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
    if use_rich(fmt == TableFormat.AUTO and row is None, request.no_color, request.color):
        from verifier.views.table.rich_view import show

        show(outcome, rich_console(request.color))
    else:
        render = TABLE["text" if fmt == TableFormat.AUTO else fmt]
        sys.stdout.write(render(TableView(outcome, row)))
    return EXIT_OK if outcome.ok else EXIT_FINDINGS


def register(app: typer.Typer) -> None:
    command(
        app,
        table,
        "source fmt case catalogue manifest no_color fail_on git rev base max_bytes max_ratio "
        "color signature require_signature allowed_signers identity namespace verify_time "
        "minisign_key allow_legacy_minisign keyring witness_key checkpoint withheld_dir scope "
        "ignore select baseline config no_config show_config",
        leaves=frozenset({"format"}),  # a file's format is check's
        fmt=format_option(TableFormat, TABLE, many=False),
    )
