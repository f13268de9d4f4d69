"""``verify-evidence coverage``: which recorded values does the assertion spec compare, and
would it notice if they changed (``--mutate``)?

:func:`audit` runs the check once, keeping every record whole, and measures which leaf of
each record an assertion or a catalogue cell compares (:mod:`verifier.coverage.measure`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from verifier.coverage.checked import audit_options, audit_run
from verifier.coverage.measure import measure
from verifier.coverage.report import CoverageReport, LeafStatus, MutantOutcome
from verifier.pipeline import Options

#: mutants tried unless asked otherwise: a mutant costs about a check of the records it
#: touches (75 ms each at 800 asserted values, seconds each with ``full``), so an archive
#: asserting thousands of values would run for many minutes; the rest are reported untried
#: (``coverage.mutation-incomplete``), never cut silently. ``None``: every covered value.
DEFAULT_MAX_MUTANTS = 200


@dataclass(frozen=True, slots=True)
class MutationOptions:
    """How ``--mutate`` runs (:func:`verifier.coverage.mutate.mutate`): the seed that picks
    leaves under ``max_mutants`` (:data:`DEFAULT_MAX_MUTANTS`; ``None``: all), the time
    budget in seconds, the worker processes (``None``: one per available core) and ``full``:
    the whole check on a scratch copy per mutant."""

    seed: int = 0
    max_mutants: int | None = DEFAULT_MAX_MUTANTS
    time_budget: float | None = None
    workers: int | None = None
    full: bool = False


def audit(
    location: str | os.PathLike[str] = ".",
    options: Options | None = None,
    fail_under: float | None = None,
    mutation: MutationOptions | None = None,
) -> CoverageReport:
    """The coverage of the archive at ``location``'s assertion spec and catalogue, and with
    ``mutation`` its mutants. Raises :class:`verifier.errors.UsageError` if the check cannot
    run at all."""
    options = options or Options()
    checked = audit_run(location, options)
    report = measure(
        checked.report,
        checked.records,
        os.fspath(location),
        options.assertions,
        options.records_dir,
        options.schemas_dir,
        options.documents,
        fail_under,
    )
    if mutation is not None:
        from verifier.coverage.mutate import mutate

        mutate(
            location,
            replace(options, progress=None),
            report,
            checked=checked,
            seed=mutation.seed,
            max_mutants=mutation.max_mutants,
            time_budget=mutation.time_budget,
            workers=mutation.workers,
            full=mutation.full,
        )
    return report


__all__ = [
    "DEFAULT_MAX_MUTANTS",
    "CoverageReport",
    "LeafStatus",
    "MutantOutcome",
    "MutationOptions",
    "audit",
    "audit_options",
    "audit_run",
]
