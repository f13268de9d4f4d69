"""A Markdown summary of a coverage report, fit for ``$GITHUB_STEP_SUMMARY``.

Archive text (paths, pointers, values, reasons, messages) goes through
:func:`verifier.views.inert.markdown` and never into a code span: no raw HTML, link,
emphasis or table-cell separator from a record survives.
"""

from __future__ import annotations

from verifier.coverage.report import CoverageReport
from verifier.views.coverage import summary as s
from verifier.views.findings import count_line
from verifier.views.inert import markdown as esc


def _where(path: str, pointer: str | None) -> str:
    return esc(path + (f"#{pointer}" if pointer else ""))


def _header(report: CoverageReport) -> list[str]:
    catalogue = esc(report.catalogue) if report.catalogue else "none"
    lines = [
        f"## verify-evidence coverage: {s.verdict(report)}",
        "",
        f"Source {esc(report.source)}, manifest {esc(report.manifest)}, spec "
        f"{esc(report.spec)}, catalogue {catalogue}.",
        "",
        f"Total: {s.counts_line(report.counts, report.percent)}.",
    ]
    if report.fail_under is not None:
        lines.append(f"Required (--fail-under): {report.fail_under:g}%.")
    lines += ["", "| File | Covered | Excused | Uncovered | Percent |", "|---|---|---|---|---|"]
    for f in report.files:
        c = f.counts
        lines.append(
            f"| {esc(f.path)} | {c['covered']} | {c['excused']} | {c['uncovered']} | "
            f"{s.percent(s.file_percent(f))} |"
        )
    return lines


def _uncovered(report: CoverageReport) -> list[str]:
    items = s.uncovered(report)
    lines = ["", f"### Uncovered values ({len(items)})", ""]
    if not items:
        return [*lines, "None."]
    lines += ["| Where | Type |", "|---|---|"]
    lines += [f"| {_where(u.path, u.pointer)} | {u.type} |" for u in items]
    return lines


def _excused(report: CoverageReport) -> list[str]:
    reasons = s.excused_by_reason(report)
    lines = ["", f"### Excused values ({sum(n for _, n in reasons)})", ""]
    if reasons:
        lines += ["| Values | Reason |", "|---|---|"]
        lines += [f"| {n} | {esc(reason)} |" for reason, n in reasons]
    else:
        lines.append("None.")
    if report.excuses:
        lines += [
            "",
            "| Entry | File | Pointer | Values | Reason |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {esc(e.at)} | {esc(e.file)} | {esc(e.pointer)} | {e.matched} | {esc(e.reason)} |"
            for e in report.excuses
        ]
    return lines


def _not_audited(report: CoverageReport) -> list[str]:
    lines = ["", f"### Not audited ({len(report.not_audited)})", ""]
    if not report.not_audited:
        return [*lines, "None."]
    lines += ["| File | Why |", "|---|---|"]
    lines += [f"| {esc(path)} | {esc(why)} |" for path, why in report.not_audited]
    return lines


def _mutation(report: CoverageReport) -> list[str]:
    m = report.mutation
    if m is None:
        return []
    c = m.counts()
    lines = [
        "",
        "### Mutation",
        "",
        f"Score {s.mutation_score(m)}: {c['killed']} killed, {c['survived']} survived, "
        f"{c['skipped']} skipped, {m.not_run} not run (seed {m.seed}).",
        "",
        "| File | Score | Killed | Survived | Skipped |",
        "|---|---|---|---|---|",
    ]
    for path in sorted({x.path for x in m.mutants}):
        fc = m.counts(path)
        lines.append(
            f"| {esc(path)} | {s.percent(m.score(path))} | {fc['killed']} | "
            f"{fc['survived']} | {fc['skipped']} |"
        )
    survivors = s.survivors(report)
    lines += ["", f"#### Survivors ({len(survivors)})", ""]
    if not survivors:
        return [*lines, "None."]
    lines += ["| Where | Original | Tried | Allowed by |", "|---|---|---|---|"]
    lines += [
        f"| {_where(x.path, x.pointer)} | {esc(s.value(x.original))} | {esc(s.value(x.tried))} "
        f"| {esc(x.rule)} |"
        for x in survivors
    ]
    return lines


def _findings(report: CoverageReport) -> list[str]:
    lines = ["", "### Findings", ""]
    if not report.findings:
        return [*lines, "No findings."]
    others = s.other_findings(report)
    notes = len(report.findings) - len(others)
    lines.append(count_line(report.findings) + ".")
    if notes:
        lines.append(f"The {notes} `{s.UNCOVERED}` notes are the uncovered values above.")
    if others:
        lines += ["", "| Severity | Code | Where | Message |", "|---|---|---|---|"]
        lines += [
            f"| {f.severity.value} | `{f.code}` | {_where(f.path, f.pointer)} | {esc(f.message)} |"
            for f in others
        ]
    return lines


def render(report: CoverageReport) -> str:
    lines = _header(report)
    for part in (_uncovered, _excused, _not_audited, _mutation, _findings):
        lines += part(report)
    return "\n".join(lines) + "\n"
