"""The rich view of the check report for a terminal (``--format auto`` on a terminal). Only
the CLI imports this module (and with it, rich); see :mod:`verifier.views.terminal` for how every
string reaches rich: as :class:`rich.text.Text`, archive text through
:func:`verifier.views.inert.visible`."""

from __future__ import annotations

from types import MappingProxyType

from rich.console import Console
from rich.text import Text

from verifier.findings import Finding, Severity
from verifier.report import Report, StageResult, StageStatus
from verifier.views.check.text import (
    acceptance_line,
    advice_line,
    authenticity_detail,
    manifest_details,
    stage_detail,
    unchecked_line,
)
from verifier.views.findings import (
    blocked_by,
    blocked_listed,
    blocked_summary,
    cascade,
    cascade_line,
    count_line,
    entry_note,
    location,
    verdict_text,
)
from verifier.views.inert import visible
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings
from verifier.views.terminal import SEVERITY_STYLE, grid, plain, stacked

_STYLE = MappingProxyType(
    {
        StageStatus.PASSED: "bold green",
        StageStatus.FAILED: "bold red",
        StageStatus.NOTHING_TO_CHECK: "yellow",
        StageStatus.SKIPPED: "dim",
    }
)


def _status(report: Report, stage: StageResult, fail_on: Severity) -> Text:
    status = report.stage_status(stage, fail_on)
    return Text(status.value, style=_STYLE[status])


def show(report: Report, out: Console, settings: RenderSettings = DEFAULT_SETTINGS) -> None:
    fail_on = settings.fail_on
    scope = ", ".join(s if s == "." else s + "/" for s in report.scope) or "(none)"
    out.print(
        Text.assemble(
            ("verify-evidence ", "bold"),
            report.tool_version,
            ": ",
            (visible(report.manifest), "cyan"),
            f"  (unlisted files looked for in: {visible(scope)})",
        )
    )
    table = grid(("stage", "status", "checked"), box=None, pad_edge=False)
    table.add_row(
        Text("authenticity"),
        _status(report, report.authenticity, fail_on),
        Text(visible(authenticity_detail(report))),
    )
    for stage in report.stages:
        detail = Text(stage_detail(stage))
        if stage.note:
            detail.append("\n" + visible(stage.note))
        for name, counts in manifest_details(stage):
            detail.append(f"\n{visible(name)}: {counts}")
        table.add_row(Text(stage.stage.value), _status(report, stage, fail_on), detail)
    out.print(table)
    out.print(Text(report.summary_line, style="bold"))
    verdict = f"Verdict: {verdict_text(report, fail_on)}."
    out.print(Text(verdict, style="bold red" if report.fails(fail_on) else "bold green"))
    unchecked = unchecked_line(report)
    if unchecked:
        out.print(Text(unchecked, style="yellow"))
    for extra in (acceptance_line(report), advice_line(report)):
        if extra:
            out.print(Text(extra, style="yellow"))
    findings = report.findings
    if not findings:
        out.print(Text("No findings.", style="green"))
        return
    groups = cascade(findings)
    chained = cascade_line(groups)
    title = count_line(findings) + (f"; {chained}" if chained else "")
    every = settings.all_blocked
    if stacked(out):
        _stacked_findings(groups, title, out, every)
        return
    ftable = grid(("severity", "where", "code", "message"), title=Text(title))
    for finding, blocked in groups:
        message = _message(finding, blocked, "")
        ftable.add_row(
            Text(finding.severity.value, style=SEVERITY_STYLE[finding.severity]),
            Text(location(finding)),
            Text(finding.code, style="red"),
            message,
        )
        listed, more = blocked_listed(blocked, every)
        for b in listed:  # under their cause, indented
            ftable.add_row(
                Text(b.severity.value, style=SEVERITY_STYLE[b.severity]),
                Text("  " + location(b)),
                Text("  " + b.code, style="yellow"),
                plain(b.message + entry_note(b, str)),
            )
        if more:
            ftable.add_row(Text(""), Text(""), Text(""), Text(more, style="yellow"))
    out.print(ftable)


def _message(finding: Finding, blocked: list[Finding], indent: str) -> Text:
    """A finding's message, its hint, the cause it is blocked by (shown alone), and how many
    findings it blocks."""
    message = plain(indent + finding.message + blocked_by(finding) + entry_note(finding, str))
    if finding.hint:
        message.append(f"\n{indent}hint: " + visible(finding.hint))
    if blocked:
        message.append(f"\n{indent}{blocked_summary(blocked)}", style="yellow")
    return message


def _stacked_findings(
    groups: list[tuple[Finding, list[Finding]]], title: str, out: Console, every: bool
) -> None:
    """Each finding as a block (severity and code, then where, then the message, indented):
    no column is narrowed, so a path or a digest wraps only where the terminal ends."""
    out.print(Text(title, style="bold"))
    for finding, blocked in groups:
        out.print(
            Text.assemble(
                (finding.severity.value, SEVERITY_STYLE[finding.severity]),
                " ",
                (finding.code, "red"),
            )
        )
        out.print(Text("  " + location(finding), overflow="fold"))
        out.print(_message(finding, blocked, "  "))
        listed, more = blocked_listed(blocked, every)
        for b in listed:  # under their cause, indented
            out.print(
                Text.assemble(
                    "    ", (b.severity.value, SEVERITY_STYLE[b.severity]), " ", (b.code, "yellow")
                )
            )
            out.print(Text("      " + location(b), overflow="fold"))
            out.print(plain("      " + b.message + entry_note(b, str)))
        if more:
            out.print(Text("    " + more, style="yellow"))
