"""Plain text: the header, the totals, a line per file, every uncovered leaf, the excuses,
the files not audited, the mutation results when ``--mutate`` ran, and the findings.

Deterministic: no colour, no width, no timestamps. Archive text is shown through
:func:`verifier.views.inert.visible`: a newline or a control sequence in a name or a value
is an escape, never a second line.
"""

from __future__ import annotations

from verifier.coverage.report import CoverageReport
from verifier.views.coverage import summary as s
from verifier.views.findings import count_line, finding_line
from verifier.views.inert import visible


def _header(report: CoverageReport) -> list[str]:
    catalogue = visible(report.catalogue) if report.catalogue else "(none)"
    lines = [
        f"verify-evidence coverage {report.tool_version}: {visible(report.source)}: "
        f"{s.verdict(report)}",
        f"  manifest   {visible(report.manifest)}",
        f"  spec       {visible(report.spec)}",
        f"  catalogue  {catalogue}",
        f"  total      {s.counts_line(report.counts, report.percent)}",
    ]
    if report.fail_under is not None:
        lines.append(f"  fail-under {report.fail_under:g}%")
    if report.check_findings:
        lines.append(f"  check      {report.check_findings} error(s): run verify-evidence check")
    return lines


def _files(report: CoverageReport) -> list[str]:
    lines = [f"files ({len(report.files)}): covered excused uncovered percent"]
    for f in report.files:
        c = f.counts
        share = s.percent(s.file_percent(f))
        lines.append(
            f"  {c['covered']:>7} {c['excused']:>7} {c['uncovered']:>9} {share:>7}  "
            f"{visible(f.path)}"
        )
    return lines


def _uncovered(report: CoverageReport) -> list[str]:
    items = s.uncovered(report)
    lines = [f"uncovered ({len(items)}):"]
    lines += [f"  {visible(u.path)}#{visible(u.pointer)} ({u.type})" for u in items]
    return lines


def excused_lines(report: CoverageReport) -> list[str]:
    reasons = s.excused_by_reason(report)
    lines = [f"excused, by reason ({sum(n for _, n in reasons)}):"]
    lines += [f"  {n:>7}  {visible(reason)}" for reason, n in reasons]
    if report.excuses:
        lines.append(f"unasserted entries ({len(report.excuses)}):")
        for e in report.excuses:
            lines.append(
                f"  {e.at}: {visible(e.file)} {visible(e.pointer)}: {e.matched} leaf(s): "
                f"{visible(e.reason)}"
            )
    return lines


def not_audited_lines(report: CoverageReport) -> list[str]:
    lines = [f"not audited ({len(report.not_audited)}):"]
    lines += [f"  {visible(path)}: {visible(why)}" for path, why in report.not_audited]
    return lines


def _mutation(report: CoverageReport) -> list[str]:
    m = report.mutation
    if m is None:
        return []
    c = m.counts()
    lines = [
        f"mutation: score {s.mutation_score(m)} ({c['killed']} killed, {c['survived']} "
        f"survived, {c['skipped']} skipped, {m.not_run} not run; seed {m.seed})",
    ]
    for path in sorted({x.path for x in m.mutants}):
        fc = m.counts(path)
        lines.append(
            f"  {s.percent(m.score(path)):>7}  {fc['killed']} killed, {fc['survived']} "
            f"survived, {fc['skipped']} skipped  {visible(path)}"
        )
    survivors = s.survivors(report)
    lines.append(f"survivors ({len(survivors)}):")
    for x in survivors:
        lines.append(
            f"  {visible(x.path)}#{visible(x.pointer)}: {visible(s.value(x.original))} -> "
            f"{visible(s.value(x.tried))}; allowed by {visible(x.rule) or '(no rule given)'}"
        )
    return lines


def _findings(report: CoverageReport) -> list[str]:
    if not report.findings:
        return ["No findings."]
    lines = [count_line(report.findings) + ":"]
    others = s.other_findings(report)
    lines += [finding_line(f) for f in others]
    notes = len(report.findings) - len(others)
    if notes:
        lines.append(f"(and {notes} {s.UNCOVERED} note(s): the uncovered values listed above)")
    return lines


def render(report: CoverageReport) -> str:
    lines = _header(report)
    for part in (_files, _uncovered, excused_lines, not_audited_lines, _mutation, _findings):
        lines += part(report)
    return "\n".join(lines) + "\n"
