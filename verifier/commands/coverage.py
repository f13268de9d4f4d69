"""``verify-evidence coverage``: which recorded values the assertion spec and the case
catalogue compare, which are excused, and which nothing compares.

Thin: the options become :class:`~verifier.pipeline.Options`, :func:`verifier.coverage.audit`
returns a :class:`~verifier.coverage.report.CoverageReport`, a view renders it. Exit 0 unless
the report has a finding at or above --fail-on (uncovered values are notes: coverage alone
exits 0 unless --fail-under), 1 when it has, 2 when the audit cannot run.
"""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.commands import EXIT_FINDINGS, EXIT_OK, threshold, use_rich
from verifier.commands.options import Request, command, format_option
from verifier.commands.output import format_choices
from verifier.views.coverage import COVERAGE

if TYPE_CHECKING:
    from verifier.coverage import MutationOptions
    from verifier.coverage.report import CoverageReport

    class CoverageFormat(StrEnum):  # what mypy sees; at run time, every name in the registry
        AUTO = "auto"

else:
    CoverageFormat = format_choices("CoverageFormat", COVERAGE)  # auto, then COVERAGE's names


ALL = "all"  # --max-mutants all: every covered value

MAX_SEED = (1 << 63) - 1
MAX_MUTANTS = 1_000_000_000
MAX_BUDGET = 1_000_000.0  # seconds: over eleven days


def mutation_options(request: Request, workers: int | None) -> MutationOptions | None:
    """The --mutate options, strictly parsed (a bad value is a UsageError: exit 2)."""
    from verifier.coverage import DEFAULT_MAX_MUTANTS, MutationOptions
    from verifier.errors import UsageError
    from verifier.plan.option_values import parse_count, parse_seconds

    max_mutants, time_budget, seed, full = (
        request.max_mutants,
        request.time_budget,
        request.seed,
        request.full,
    )

    if not request.mutate:
        given = [
            name
            for name, value in (
                ("--max-mutants", max_mutants),
                ("--time-budget", time_budget),
                ("--seed", seed),
                ("--full", full or None),
            )
            if value is not None
        ]
        if given:
            raise UsageError(f"{given[0]} is an option of --mutate; add --mutate")
        return None
    return MutationOptions(
        seed=0 if seed is None else parse_count(seed, "--seed", 0, MAX_SEED),
        max_mutants=DEFAULT_MAX_MUTANTS
        if max_mutants is None
        else None
        if max_mutants.strip().lower() == ALL
        else parse_count(max_mutants, "--max-mutants", 1, MAX_MUTANTS),
        time_budget=None
        if time_budget is None
        else parse_seconds(time_budget, "--time-budget", MAX_BUDGET),
        workers=workers,
        full=full,
    )


def emit(
    report: CoverageReport,
    pairs: list[tuple[str, Path | None]],
    quiet: bool,
    no_color: bool,
) -> None:
    """Write each requested view to its destination."""
    from verifier.commands.output import write

    for name, path in pairs:
        if quiet and path is None:
            continue
        if name == CoverageFormat.AUTO and path is None and use_rich(True, no_color):
            from verifier.views.coverage.rich_view import show
            from verifier.views.terminal import console

            show(report, console())
            continue
        write(path, COVERAGE["text" if name == CoverageFormat.AUTO else name](report))


def coverage(request: Request) -> int:
    """Show which recorded values the assertion spec and the case catalogue compare.

    Every leaf value of every record is covered (an assertion or a catalogue cell compares
    it or a whole subtree holding it), excused (provenance, $schema, or the spec's
    'unasserted' list, with its reason) or uncovered (it can change and check still passes).

    With --mutate, each covered value is changed to another value its schema accepts and
    the check re-run on a copy: killed (something noticed), survived (nothing did: a
    finding) or skipped (no schema-valid alternative, with the reason).

    Example: verify-evidence coverage . --fail-under 90 --format markdown -o coverage.md
    """
    from verifier.commands.output import plan, tokens
    from verifier.commands.progress import progress_bar
    from verifier.coverage import audit
    from verifier.plan.option_values import parse_percent

    given = tokens(request.order, request.fmt, request.output)
    pairs = plan(given, (f.value for f in CoverageFormat), default=CoverageFormat.AUTO.value)
    location, options = request.location, request.options()
    under = None if request.fail_under is None else parse_percent(request.fail_under)
    mutation = mutation_options(request, options.workers)
    with progress_bar(enabled=not request.quiet) as progress:
        report = audit(location, replace(options, progress=progress), under, mutation)
    report.fail_on = threshold(request.fail_on)  # the verdict's rule, for views and exit code
    emit(report, pairs, request.quiet, request.no_color)
    return EXIT_OK if report.passed else EXIT_FINDINGS


JOBS = Annotated[
    str | None,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Worker processes, 1 to 1024 (default: one per available core).",
    ),
]
FORMAT_MORE = (
    " Repeatable; each goes to the --output given right after it, or to standard output (one "
    "at most)."
)


def register(app: typer.Typer) -> None:
    # not acceptance: coverage reports on the spec, --ignore and --baseline set check's
    # findings aside; not a file's format: its choices are check's
    command(
        app,
        coverage,
        "source fmt output manifest scope no_color quiet fail_on fail_under git rev base "
        "max_bytes max_ratio mutate max_mutants time_budget seed full jobs executor scheduler "
        "config no_config show_config",
        leaves=frozenset({"format"}),
        fmt=format_option(CoverageFormat, COVERAGE, FORMAT_MORE),
        jobs=(JOBS, None),
    )
