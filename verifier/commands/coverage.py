"""``verify-evidence coverage``: which recorded values the assertion spec and the case
catalogue compare, which are excused, and which nothing compares.

Thin: the options become :class:`~verifier.pipeline.Options`, :func:`verifier.coverage.audit`
returns a :class:`~verifier.coverage.report.CoverageReport`, a view renders it. Exit 0 unless
the report has a finding at or above --fail-on (uncovered values are notes: coverage alone
exits 0 unless --fail-under), 1 when it has, 2 when the audit cannot run.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from verifier.commands import (
    EXIT_FINDINGS,
    EXIT_OK,
    FailOn,
    FailOnOpt,
    ManifestOpt,
    NoColorOpt,
    QuietOpt,
    ScopeOpt,
    optional_path,
    optional_tuple,
    threshold,
    use_rich,
)
from verifier.commands.configopts import ConfigOpt, NoConfigOpt, ShowConfigOpt
from verifier.commands.output import (
    ORDER_KEY,
    OrderedOptionsCommand,
    format_choices,
    format_help,
)
from verifier.commands.sourceopts import (
    BaseOpt,
    ExecutorOpt,
    GitOpt,
    MaxBytesOpt,
    MaxRatioOpt,
    RevOpt,
    SchedulerOpt,
    SourceArg,
    executor_options,
    source_options,
)
from verifier.views.coverage import COVERAGE

if TYPE_CHECKING:
    from verifier.coverage import MutationOptions
    from verifier.coverage.report import CoverageReport

    class CoverageFormat(StrEnum):  # what mypy sees; at run time, every name in the registry
        AUTO = "auto"

else:
    CoverageFormat = format_choices("CoverageFormat", COVERAGE)  # auto, then COVERAGE's names


FormatOpt = Annotated[
    list[CoverageFormat] | None,
    typer.Option(
        "--format",
        "-f",
        help=format_help(
            COVERAGE,
            " Repeatable; each goes to the --output given right after it, or to standard "
            "output (one at most).",
        ),
        case_sensitive=False,
    ),
]
OutputOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--output",
        "-o",
        help="FORMAT=PATH, or PATH for the --format given just before it: write that format "
        "to PATH instead of standard output. Repeatable.",
    ),
]
FailUnderOpt = Annotated[
    str | None,
    typer.Option(
        "--fail-under",
        metavar="PCT",
        help="Exit 1 when covered values are under PCT percent (0 to 100) of the values that "
        "need covering (covered + uncovered; excused ones do not count).",
    ),
]


ALL = "all"  # --max-mutants all: every covered value

MutateOpt = Annotated[
    bool,
    typer.Option(
        "--mutate",
        help="Mutation testing of the spec: change each covered value to another value its "
        "schema accepts, check a copy, and report every change nothing noticed (a survivor: "
        "exit 1). The source is never written.",
    ),
]
MaxMutantsOpt = Annotated[
    str | None,
    typer.Option(
        "--max-mutants",
        metavar="N",
        help="With --mutate: try at most N covered values, picked by --seed (default: 200; "
        "'all' for every one). Values left untried are reported (coverage.mutation-incomplete).",
    ),
]
TimeBudgetOpt = Annotated[
    str | None,
    typer.Option(
        "--time-budget",
        metavar="SECONDS",
        help="With --mutate: start no mutant after SECONDS; the untried are reported.",
    ),
]
SeedOpt = Annotated[
    str | None,
    typer.Option(
        "--seed",
        metavar="N",
        help="With --mutate: the seed that picks values under --max-mutants (default 0).",
    ),
]
FullOpt = Annotated[
    bool,
    typer.Option(
        "--full",
        help="With --mutate: judge each mutant by the whole check on a scratch copy (the "
        "reference; slower) instead of re-running only what the changed record can change.",
    ),
]
JobsOpt = Annotated[
    str | None,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Worker processes, 1 to 1024 (default: one per available core).",
    ),
]
MAX_SEED = (1 << 63) - 1
MAX_MUTANTS = 1_000_000_000
MAX_BUDGET = 1_000_000.0  # seconds: over eleven days


def mutation_options(
    mutate: bool,
    max_mutants: str | None,
    time_budget: str | None,
    seed: str | None,
    full: bool,
    workers: int | None,
) -> MutationOptions | None:
    """The --mutate options, strictly parsed (a bad value is a UsageError: exit 2)."""
    from verifier.coverage import DEFAULT_MAX_MUTANTS, MutationOptions
    from verifier.errors import UsageError
    from verifier.plan.option_values import parse_count, parse_seconds

    if not mutate:
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


#: the configuration keys coverage takes from a file (not acceptance: coverage reports on
#: the spec, --ignore and --baseline set check's findings aside; not format: its own choices)
COVERAGE_KEYS = frozenset(
    {
        "manifest",
        "scope",
        "base",
        "max-bytes",
        "max-ratio",
        "fail-on",
        "no-color",
        "quiet",
        "jobs",
        "executor",
    }
)


def coverage(
    ctx: typer.Context,
    root: SourceArg = Path("."),
    fmt: FormatOpt = None,
    output: OutputOpt = None,
    manifest: ManifestOpt = None,
    scope: ScopeOpt = None,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
    fail_on: FailOnOpt = FailOn.ERROR,
    fail_under: FailUnderOpt = None,
    git: GitOpt = None,
    rev: RevOpt = None,
    base: BaseOpt = None,
    max_bytes: MaxBytesOpt = None,
    max_ratio: MaxRatioOpt = None,
    mutate: MutateOpt = False,
    max_mutants: MaxMutantsOpt = None,
    time_budget: TimeBudgetOpt = None,
    seed: SeedOpt = None,
    full: FullOpt = False,
    jobs: JobsOpt = None,
    executor: ExecutorOpt = None,
    scheduler: SchedulerOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
    show_config: ShowConfigOpt = False,
) -> int:
    """Show which recorded values the assertion spec and the case catalogue compare.

    Every leaf value of every record is covered (an assertion or a catalogue cell compares
    it or a whole subtree holding it), excused (provenance, $schema, or the spec's
    'unasserted' list, with its reason) or uncovered (it can change and check still passes).

    With --mutate, each covered value is changed to another value its schema accepts and
    the check re-run on a copy: killed (something noticed), survived (nothing did: a
    finding) or skipped (no schema-valid alternative, with the reason).

    Example: verify-evidence coverage . --fail-under 90 --format markdown -o coverage.md
    """
    from verifier.commands.configopts import configure, converters, show_config_text
    from verifier.commands.output import plan, tokens, write
    from verifier.commands.progress import progress_bar

    configured = configure(
        ctx,
        "coverage",
        os.fspath(root),
        git,
        config,
        no_config,
        converters(FailOn, FailOn),  # (its --format choices are its own: not taken)
        COVERAGE_KEYS,
        rev=rev,
    )
    if show_config:
        write(None, show_config_text(configured, ctx, "coverage"))
        return EXIT_OK
    settings = configured.applied
    manifest = settings.get("manifest", manifest)
    scope = settings.get("scope", scope)
    base = settings.get("base", base)
    max_bytes = settings.get("max-bytes", max_bytes)
    max_ratio = settings.get("max-ratio", max_ratio)
    fail_on = settings.get("fail-on", fail_on)
    no_color = settings.get("no-color", no_color)
    quiet = settings.get("quiet", quiet)
    jobs = settings.get("jobs", jobs)
    executor = settings.get("executor", executor)
    from verifier.coverage import audit
    from verifier.pipeline import Options
    from verifier.plan.option_values import parse_percent

    given = tokens(ctx.meta.get(ORDER_KEY), [f.value for f in fmt or []], list(output or []))
    pairs = plan(given, (f.value for f in CoverageFormat), default=CoverageFormat.AUTO.value)
    location, more = source_options(root, git, rev, base, max_bytes, max_ratio)
    under = None if fail_under is None else parse_percent(fail_under)
    from verifier.plan.option_values import MAX_JOBS, parse_count

    workers = None if jobs is None else parse_count(jobs, "--jobs", 1, MAX_JOBS)
    where = executor_options(executor, scheduler)
    mutation = mutation_options(mutate, max_mutants, time_budget, seed, full, workers)
    with progress_bar(enabled=not quiet) as progress:
        options = Options(
            manifest=optional_path(manifest),
            scope=optional_tuple(scope),
            progress=progress,
            workers=workers,
            **more,
            **where,
        )
        report = audit(location, options, under, mutation)
    report.fail_on = threshold(fail_on)  # the verdict's rule, for the views and the exit code
    emit(report, pairs, quiet, no_color)
    return EXIT_OK if report.passed else EXIT_FINDINGS


def register(app: typer.Typer) -> None:
    app.command(cls=OrderedOptionsCommand)(coverage)
