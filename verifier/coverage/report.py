"""The coverage report's data types: what ``verify-evidence coverage`` returns. Every output
format is a view of a :class:`CoverageReport`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from verifier.findings import Finding, Severity
from verifier.report import AssertionResult, AssertionStatus


class LeafStatus(StrEnum):
    """Whether something compares a leaf: an assertion or a catalogue cell (``covered``); the
    spec or the format excuses it (``excused``: provenance, ``$schema``, an ``unasserted``
    entry); or nothing does (``uncovered``: it can change and the check still passes)."""

    COVERED = "covered"
    EXCUSED = "excused"
    UNCOVERED = "uncovered"


@dataclass(frozen=True, slots=True)
class Leaf:
    """One leaf value of a record: a string, number, boolean, null, or an empty object or
    array. ``by`` names what covers it (assertion ids, ``catalogue <pointer>``) or, when
    excused, why; ``asserted`` is true when an assertion (not only a catalogue cell) reads it."""

    pointer: str
    status: LeafStatus
    type: str  # the JSON type: string, number, integer, boolean, null, object, array
    by: tuple[str, ...] = ()
    asserted: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer, "status": self.status.value}
        out["type"] = self.type
        if self.status is LeafStatus.EXCUSED:
            out["reason"] = self.by[0] if self.by else ""
        elif self.by:
            out["by"] = list(self.by)
            out["asserted"] = self.asserted
        return out


def _counts(leaves: list[Leaf]) -> dict[str, int]:
    out = {status.value: 0 for status in LeafStatus}
    for leaf in leaves:
        out[leaf.status.value] += 1
    return out


def percent(covered: int, uncovered: int) -> float | None:
    """Covered leaves as a share of the leaves that need covering (excused ones do not);
    ``None`` when there are none."""
    total = covered + uncovered
    return None if total == 0 else round(100.0 * covered / total, 2)


@dataclass(slots=True)
class FileCoverage:
    """One record's leaves, in document order."""

    path: str
    leaves: list[Leaf] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return _counts(self.leaves)

    def to_dict(self) -> dict[str, Any]:
        counts = self.counts
        return {
            "path": self.path,
            "counts": counts,
            "percent": percent(counts["covered"], counts["uncovered"]),
            "leaves": [leaf.to_dict() for leaf in self.leaves],
        }


@dataclass(frozen=True, slots=True)
class Excuse:
    """One entry of the spec's ``unasserted`` list, and how many leaves it excused."""

    file: str
    pointer: str
    reason: str
    at: str  # its JSON pointer in the spec
    matched: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "pointer": self.pointer,
            "reason": self.reason,
            "at": self.at,
            "matched": self.matched,
        }


class MutantOutcome(StrEnum):
    KILLED = "killed"  # some assertion, catalogue cell or transcript check failed
    SURVIVED = "survived"  # the check still passed: nothing compares this value closely
    SKIPPED = "skipped"  # no schema-valid alternative value, or not run within the bounds


@dataclass(frozen=True, slots=True)
class Mutant:
    """One mutant: the value at ``pointer`` in ``path`` replaced by ``tried``."""

    path: str
    pointer: str
    outcome: MutantOutcome
    original: Any = None
    tried: Any = None
    rule: str = ""  # the schema rule that accepted ``tried`` (survivors), or why skipped
    killed_by: tuple[str, ...] = ()  # finding codes and assertion ids that failed

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "pointer": self.pointer,
            "outcome": self.outcome.value,
            "original": self.original,
        }
        if self.outcome is not MutantOutcome.SKIPPED:
            out["tried"] = self.tried
        if self.rule:
            out["rule"] = self.rule
        if self.killed_by:
            out["killedBy"] = list(self.killed_by)
        return out


@dataclass(slots=True)
class Mutation:
    """What ``--mutate`` did: every mutant, in a deterministic order, and how it was bounded."""

    seed: int
    max_mutants: int | None
    time_budget: float | None
    mutants: list[Mutant] = field(default_factory=list)
    not_run: int = 0  # covered leaves left untried by --max-mutants or the time budget
    workers: int = 1

    def score(self, path: str | None = None) -> float | None:
        """Killed mutants as a share of those run (killed + survived), for one file or all."""
        run = [
            m
            for m in self.mutants
            if (path is None or m.path == path) and m.outcome is not MutantOutcome.SKIPPED
        ]
        if not run:
            return None
        killed = sum(1 for m in run if m.outcome is MutantOutcome.KILLED)
        return round(100.0 * killed / len(run), 2)

    def counts(self, path: str | None = None) -> dict[str, int]:
        out = {outcome.value: 0 for outcome in MutantOutcome}
        for m in self.mutants:
            if path is None or m.path == path:
                out[m.outcome.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        paths = sorted({m.path for m in self.mutants})
        return {
            "seed": self.seed,
            "maxMutants": self.max_mutants,
            "timeBudget": self.time_budget,
            "counts": self.counts(),
            "notRun": self.not_run,
            "score": self.score(),
            "files": [{"path": p, "counts": self.counts(p), "score": self.score(p)} for p in paths],
            "mutants": [m.to_dict() for m in self.mutants],
        }


@dataclass(slots=True)
class CoverageReport:
    """Which recorded values the spec and the catalogue compare, per record and in total."""

    tool_version: str
    source: str
    manifest: str
    spec: str
    catalogue: str | None
    files: list[FileCoverage] = field(default_factory=list)
    excuses: list[Excuse] = field(default_factory=list)
    not_audited: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    findings: list[Finding] = field(default_factory=list)
    check_findings: int = 0  # findings of severity error in the check this audit ran
    mutation: Mutation | None = None
    fail_under: float | None = None
    #: the lowest severity that fails the run (``--fail-on``): the exit code and every view's
    #: verdict follow it (:attr:`passed`)
    fail_on: Severity = field(default=Severity.ERROR, repr=False)

    @property
    def counts(self) -> dict[str, int]:
        return _counts([leaf for f in self.files for leaf in f.leaves])

    @property
    def passed(self) -> bool:
        """The verdict, the one rule the exit code and every view follow: no finding reaches
        :attr:`fail_on`."""
        return not self.fails(self.fail_on)

    @property
    def failing(self) -> list[Finding]:
        """The findings that fail the run (they reach :attr:`fail_on`)."""
        return [f for f in self.findings if f.severity.reaches(self.fail_on)]

    @property
    def percent(self) -> float | None:
        counts = self.counts
        return percent(counts["covered"], counts["uncovered"])

    def fails(self, threshold: Severity = Severity.ERROR) -> bool:
        return any(f.severity.reaches(threshold) for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        counts = self.counts
        return {
            "toolVersion": self.tool_version,
            "source": self.source,
            "manifest": self.manifest,
            "spec": self.spec,
            "catalogue": self.catalogue,
            "passed": self.passed,
            "failOn": self.fail_on.value,
            "counts": counts,
            "percent": self.percent,
            "failUnder": self.fail_under,
            "checkErrors": self.check_findings,
            "findings": [f.to_dict() for f in sorted(self.findings, key=Finding.sort_key)],
            "excuses": [e.to_dict() for e in self.excuses],
            "notAudited": [{"path": p, "why": why} for p, why in self.not_audited],
            "files": [f.to_dict() for f in self.files],
            "mutation": None if self.mutation is None else self.mutation.to_dict(),
        }


__all__ = [
    "CoverageReport",
    "Excuse",
    "FileCoverage",
    "Leaf",
    "LeafStatus",
    "Mutant",
    "MutantOutcome",
    "Mutation",
    "percent",
]


def killed_by(
    before: list[AssertionResult],
    after: list[AssertionResult],
    gained_from: Iterable[Finding],
    baseline: Iterable[Finding],
) -> tuple[str, ...]:
    """What noticed a mutant: the ids of assertions that passed before and do not after, then
    the codes of findings (other than the assertions') the mutant gained."""
    ids = [
        a.id
        for b, a in zip(before, after, strict=False)
        if b.status is AssertionStatus.PASSED and a.status is not AssertionStatus.PASSED
    ]
    had = Counter((f.code, f.path, f.pointer) for f in baseline)
    now = Counter((f.code, f.path, f.pointer) for f in gained_from)
    codes = sorted({key[0] for key in now - had if not key[0].startswith("assertion.")})
    return (*dict.fromkeys(ids), *codes)
