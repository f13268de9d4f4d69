"""What every view of a coverage report shows, computed once: the excused leaves grouped by
reason, the uncovered leaves, the survivors, the findings other than the uncovered notes,
and values shown as compact JSON. Plain data; each view escapes it its own way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verifier.coverage.report import (
    CoverageReport,
    FileCoverage,
    LeafStatus,
    Mutant,
    MutantOutcome,
    Mutation,
)
from verifier.coverage.report import percent as share
from verifier.findings import Finding, Severity
from verifier.json.write import dumps
from verifier.views.findings import by_severity

UNCOVERED = "coverage.uncovered"
MAX_VALUE = 80  # characters of a tried or original value shown in a view for people


def value(raw: Any) -> str:
    """A JSON value as compact JSON text, cut to :data:`MAX_VALUE` characters."""
    try:
        text = dumps(raw)
    except (TypeError, ValueError):
        text = repr(raw)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."


def percent(share: float | None) -> str:
    return "n/a" if share is None else f"{share:g}%"


def mutation_score(mutation: Mutation) -> str:
    """The total mutation score, and when a bound left covered values untried, that it is
    the score of those tried only (never a bare 100% for an incomplete run)."""
    shown = percent(mutation.score())
    if not mutation.not_run:
        return shown
    return f"{shown} of the {len(mutation.mutants)} tried, incomplete"


def counts_line(counts: dict[str, int], share: float | None) -> str:
    need = counts["covered"] + counts["uncovered"]
    return (
        f"{counts['covered']} covered, {counts['excused']} excused, {counts['uncovered']} "
        f"uncovered ({percent(share)} of {need} value(s) that need covering)"
    )


@dataclass(frozen=True, slots=True)
class Uncovered:
    path: str
    pointer: str
    type: str


def uncovered(report: CoverageReport) -> list[Uncovered]:
    return [
        Uncovered(f.path, leaf.pointer, leaf.type)
        for f in report.files
        for leaf in f.leaves
        if leaf.status is LeafStatus.UNCOVERED
    ]


def excused_by_reason(report: CoverageReport) -> list[tuple[str, int]]:
    """``(reason, leaves)`` for every reason an excused leaf has, most leaves first."""
    tally: dict[str, int] = {}
    for f in report.files:
        for leaf in f.leaves:
            if leaf.status is LeafStatus.EXCUSED:
                reason = leaf.by[0] if leaf.by else ""
                tally[reason] = tally.get(reason, 0) + 1
    return sorted(tally.items(), key=lambda item: (-item[1], item[0]))


def file_percent(f: FileCoverage) -> float | None:
    counts = f.counts
    return share(counts["covered"], counts["uncovered"])


def survivors(report: CoverageReport) -> list[Mutant]:
    if report.mutation is None:
        return []
    return [m for m in report.mutation.mutants if m.outcome is MutantOutcome.SURVIVED]


def other_findings(report: CoverageReport) -> list[Finding]:
    """The findings, in report order, without the uncovered notes (each view lists the
    uncovered leaves themselves)."""
    ordered = sorted(report.findings, key=Finding.sort_key)
    return [f for _, group in by_severity(ordered) for f in group if f.code != UNCOVERED]


def verdict(report: CoverageReport) -> str:
    """The verdict every view shows: :attr:`CoverageReport.passed`, the exit code's rule
    (``--fail-on`` included)."""
    if report.passed:
        return "passed"
    failing = report.failing
    errors = sum(1 for f in failing if f.severity is Severity.ERROR)
    if errors == len(failing):
        return f"FAILED ({errors} error(s))"
    return f"FAILED ({len(failing)} finding(s) at --fail-on {report.fail_on.value} or above)"
