"""What to verify and how (:class:`Options`), checked before anything is read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifier.authenticity.interface import Trust
from verifier.errors import UsageError
from verifier.execute.registry import EXECUTORS
from verifier.plan.spec import DEFAULT_SPEC
from verifier.sources import Limits
from verifier.values.needs import CATALOGUE
from verifier.values.selection import CHECK_CODES, parse_codes
from verifier.values.witness import WitnessSettings

STAGES = ("integrity", "validity", "consistency")


@dataclass(frozen=True, slots=True)
class Options:
    """What to verify and how. The CLI fills this; the library API takes it directly."""

    manifest: str | None = None  # a path (or a name inside an archive); default manifest.sha256
    scope: tuple[str, ...] | None = None  # folders looked in for unlisted files
    schemas_dir: str = "schemas"
    records_dir: str = "evidence"
    assertions: str = DEFAULT_SPEC
    base: str | None = None  # the folder the manifest's names are relative to
    rev: str | None = None  # read this commit of the git repository at the location
    limits: Limits = field(default_factory=Limits)
    hints: bool = True
    workers: int | None = None  # processes for per-file work; None: one per available core
    # where each file is inspected: "auto" (processes when the archive is large enough),
    # or a name of verifier.execute.EXECUTORS; ``scheduler``: a Dask scheduler address
    executor: str = "auto"
    scheduler: str | None = None
    stages: frozenset[str] = frozenset({"integrity", "validity", "consistency"})
    progress: Any = None  # called with (stage, done, total); the CLI draws a progress bar
    # Records kept whole (besides the assertion spec), for views: the case catalogue.
    # Every other record keeps only the values the assertions and these documents select.
    documents: tuple[str, ...] = (CATALOGUE,)
    # Glob patterns of records kept whole all the same (``verify-evidence coverage`` walks
    # every leaf of every record); they are read where they are read, like any record.
    whole: tuple[str, ...] = ()
    # which findings count (verifier.accept): codes --ignore names, the codes --select keeps
    # (None: all), and a baseline read before the run (verifier.accept.baseline.Baseline)
    ignore: frozenset[str] = frozenset()
    select: frozenset[str] | None = None
    baseline: Any = None
    # Authenticity: the signature (or where to look for one) and the trust to check it with.
    trust: Trust = field(default_factory=Trust)
    # Witness logs: the gateway's keys and the checkpoints kept outside the archive.
    witness: WitnessSettings = field(default_factory=WitnessSettings)
    # A folder holding files the publisher withheld (by their manifest names): read from
    # there, checked against the digests the manifest committed to.
    withheld_dir: str | None = None

    def worker_count(self, tasks: int | None = None) -> int:
        """The workers to start: ``workers`` as given (the command line or the user's own
        configuration may ask for more than the cores), else one per available core; never
        more than ``tasks``, the work there is for them (when known)."""
        from verifier.execute.registry import default_workers

        count = self.workers if self.workers is not None else default_workers()
        return max(1, count if tasks is None else min(count, tasks))


def check_options(options: Options) -> None:
    """Refuse options that cannot run (:class:`UsageError`), before anything is read."""
    unknown = options.stages - set(STAGES)
    if unknown or "integrity" not in options.stages:
        raise UsageError(
            "--stages takes integrity, validity and consistency, and always includes "
            "integrity (it is the one read of every file)"
        )
    if options.executor != "auto" and options.executor not in EXECUTORS:
        choices = ", ".join(("auto", *EXECUTORS))
        raise UsageError(f"--executor {options.executor}: not one of {choices}")
    parse_codes(sorted(options.ignore), "--ignore", CHECK_CODES)  # raises for an unknown code
    parse_codes(sorted(options.select or ()), "--select", CHECK_CODES)


__all__ = ["STAGES", "Options", "check_options"]
