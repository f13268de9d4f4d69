"""A Markdown summary fit for ``$GITHUB_STEP_SUMMARY``: stages, manifest, schemas,
assertions, findings and, when the archive has a case catalogue, the outcome table.

Archive text (names, messages, assertion ids) goes through
:func:`verifier.views.inert.markdown` and never into a code span: no raw HTML (``<!--``
would hide the rest of a step summary), link, emphasis or cell separator survives.
"""

from __future__ import annotations

from verifier.report import AssertionStatus, Report
from verifier.views.check.text import (
    authenticity_detail,
    manifest_details,
    stage_detail,
    unchecked_line,
)
from verifier.views.findings import (
    blocked_by,
    blocked_summary,
    cascade,
    cascade_line,
    count_line,
    entry_note,
    location,
    sentences,
    verdict_text,
)
from verifier.views.inert import markdown as _esc
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings

MAX_FINDINGS = 200


def render(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> str:
    fail_on = settings.fail_on
    verdict = verdict_text(report, fail_on)
    scope = ", ".join(_esc(s) for s in report.scope) or "none"
    lines = [
        f"## verify-evidence: {verdict}",
        "",
        f"Manifest {_esc(report.manifest)}, {report.integrity.counts.get('listed', 0)} files "
        f"listed; unlisted files looked for in {scope}. {report.summary_line}.",
        "",
        "| Stage | Status | Checked |",
        "|---|---|---|",
        f"| authenticity | {report.stage_status(report.authenticity, fail_on).value} | "
        f"{_esc(authenticity_detail(report))} |",
    ]
    for stage in report.stages:
        detail = stage_detail(stage) + (f" ({stage.note})" if stage.note else "")
        per = "; ".join(f"{name}: {counts}" for name, counts in manifest_details(stage))
        detail += f"; per manifest: {per}" if per else ""
        status = report.stage_status(stage, fail_on).value
        lines.append(f"| {stage.stage.value} | {status} | {_esc(detail)} |")
    unchecked = unchecked_line(report)
    if unchecked:
        lines += ["", unchecked]
    not_passed = [a for a in report.assertions if a.status is not AssertionStatus.PASSED]
    if not_passed:
        lines += [
            "",
            "### Assertions that did not pass",
            "",
            "| Assertion | Status | Message |",
            "|---|---|---|",
        ]
        lines += [f"| {_esc(a.id)} | {a.status.value} | {_esc(a.message)} |" for a in not_passed]
    findings = report.findings
    if findings:
        groups = cascade(findings)
        chained = cascade_line(groups)
        lines += [
            "",
            "### Findings",
            "",
            count_line(findings) + (f"; {chained}" if chained else "") + ".",
            "",
            "| Severity | Code | Where | Message |",
            "|---|---|---|---|",
        ]
        for f, blocked in groups[:MAX_FINDINGS]:
            where = location(f, str)
            message = f.message + entry_note(f, str) + blocked_by(f)
            message += f" (hint: {f.hint})" if f.hint else ""
            if blocked:
                message = sentences(message, blocked_summary(blocked))
            lines.append(f"| {f.severity.value} | `{f.code}` | {_esc(where)} | {_esc(message)} |")
        if len(groups) > MAX_FINDINGS:
            lines.append(f"\n{len(groups) - MAX_FINDINGS} more findings: see the JSON report.")
    from verifier.table import build_table
    from verifier.views.table.markdown_view import render_table

    # the catalogue and the spec the run judged (Report.catalogue, Report.spec), never a
    # default of the view's own
    if report.catalogue and report.selected.catalogue is not None:
        lines += ["", "### Per-case outcomes", ""]
        body = render_table(build_table(report, fail_on)).split("\n", 2)[2]  # no status line
        lines.append(body.rstrip("\n"))
    return "\n".join(lines) + "\n"
