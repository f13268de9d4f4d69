"""The report with acceptance applied: findings of codes ``--ignore`` names or ``--select``
leaves out, and findings a baseline entry matches, move from a stage's counted findings to its
``accepted`` list, each marked with why (``ignored``, ``not-selected``, ``baseline``). They
are still in the JSON report and counted in its ``acceptance`` summary; they no longer fail a
stage or the run. A baseline entry that matches no finding of a stage that ran is itself a
finding (``baseline.unmatched``), so a fixed finding's entry cannot silently accept its
return, and a stale baseline is visible.

An entry for a finding about a file's bytes matches only while the bytes have the SHA-256 it
records (:class:`~verifier.accept.baseline.Subjects`): changed bytes make the finding count
again and the entry unmatched. An entry that records no digest for such a finding (a baseline
written before digests) accepts nothing: the finding counts, and the entry is a
``baseline.no-digest`` finding saying to re-accept it."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from verifier.accept.baseline import Baseline, Entry, Key, Subjects
from verifier.findings import CODES, Finding, Stage, a_or_an
from verifier.report import Acceptance, Accepted, Report
from verifier.values.selection import Selection

UNMATCHED = "baseline.unmatched"
NO_DIGEST = "baseline.no-digest"
#: the codes about the baseline itself (never written into one)
ABOUT_BASELINE = frozenset({UNMATCHED, NO_DIGEST})


def _about(entry: Entry, code: str, name: str, why: str) -> Finding:
    """A finding about a baseline entry: ``why`` follows what it accepts."""
    return Finding(
        code,
        entry.path,
        f"the baseline {name} accepts {a_or_an(entry.code)} finding ({entry.fingerprint}) {why}",
        pointer=entry.pointer,
    )


_UNMATCHED_WHY = (
    "that this run did not report: it was fixed or it changed; remove the entry, or rewrite the "
    "baseline with --write-baseline"
)
_NO_DIGEST_WHY = (
    "about this file's bytes without the SHA-256 of the bytes it was accepted for (an older "
    "baseline), so it no longer accepts it: check the file, then re-accept it with check "
    "--write-baseline"
)


def accept(report: Report, selection: Selection, baseline: Baseline | None) -> Report:
    """``report`` with ``selection`` and ``baseline`` applied (a new report; the stages'
    counts are the judges' own, unchanged)."""
    if not selection.active and baseline is None:
        return report
    remaining: Counter[Key] = Counter(e.key for e in (baseline.entries if baseline else ()))
    subjects = Subjects(report) if remaining else None
    undigested: list[Entry] = []  # entries without the digest their finding's bytes need
    ran = {s.stage for s in report.stages if not s.skipped}
    by_stage: dict[Stage, tuple[list[Finding], list[Accepted]]] = {}
    for stage in report.stages:
        kept: list[Finding] = []
        taken: list[Accepted] = list(stage.accepted)
        for finding in sorted(stage.findings, key=Finding.sort_key):
            why = selection.why_not(finding.code)
            if why is None and subjects is not None:
                entry = subjects.entry(finding)
                key = entry.key
                old = (*key[:4], None)  # an older baseline's entry for it: no digest
                if remaining[key] > 0:
                    remaining[key] -= 1
                    why = "baseline"
                elif entry.sha256 is not None and remaining[old] > 0:
                    remaining[old] -= 1
                    undigested.append(entry)
            if why is None:
                kept.append(finding)
            else:
                taken.append(Accepted(finding, why))
        by_stage[stage.stage] = (kept, taken)
    unmatched = unchecked = 0
    if baseline is not None:
        left = Counter(remaining)
        stale: list[Finding] = []
        for entry in baseline.entries:
            if left[entry.key] <= 0:
                continue
            left[entry.key] -= 1
            if CODES[entry.code][0] not in ran or selection.why_not(entry.code) is not None:
                unchecked += 1  # its code was not looked for in this run
                continue
            stale.append(_about(entry, UNMATCHED, baseline.name, _UNMATCHED_WHY))
        stale += (_about(e, NO_DIGEST, baseline.name, _NO_DIGEST_WHY) for e in undigested)
        for finding in stale:
            why = selection.why_not(finding.code)
            kept, taken = by_stage[finding.stage]
            if why is None:
                unmatched += finding.code == UNMATCHED  # (a no-digest entry is its own finding)
                kept.append(finding)
            else:
                taken.append(Accepted(finding, why))
    stages = [
        replace(s, findings=by_stage[s.stage][0], accepted=by_stage[s.stage][1])
        for s in report.stages
    ]
    counts = Counter(a.by for s in stages for a in s.accepted)
    acceptance = Acceptance(
        baseline=baseline.name if baseline else None,
        ignore=tuple(sorted(selection.ignore)),
        select=None if selection.select is None else tuple(sorted(selection.select)),
        accepted={k: counts.get(k, 0) for k in ("baseline", "ignored", "not-selected")},
        unmatched=unmatched,
        unchecked=unchecked,
    )
    integrity, validity, consistency = stages
    return replace(
        report,
        integrity=integrity,
        validity=validity,
        consistency=consistency,
        acceptance=acceptance,
    )
