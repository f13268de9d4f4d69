"""The rich views for a terminal. Only the CLI imports this module (and with it, rich).

Every string goes to rich as a :class:`rich.text.Text`, never as a ``str`` (which rich would
read as console markup, emoji codes and highlighting), and archive text first goes through
:func:`verifier.formats.inert.visible`: ``[/bold]`` in a file name is shown as written, and a
control sequence in a record value is an escape, never sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from verifier.formats.inert import visible
from verifier.formats.text import count_line, location, stage_detail, unchecked_line
from verifier.model import Report, Severity, StageStatus

_STYLE = {
    StageStatus.PASSED: "bold green",
    StageStatus.FAILED: "bold red",
    StageStatus.NOTHING_TO_CHECK: "yellow",
    StageStatus.SKIPPED: "dim",
}

SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}


def plain(text: str, style: str = "") -> Text:
    """Archive text (or any text) as rich text: no markup, no emoji, no control codes."""
    return Text(visible(text), style=style, no_wrap=False)


def console() -> Console:
    """The terminal console: no markup, emoji or highlighting for anything printed as str."""
    return Console(markup=False, emoji=False, highlight=False)


def grid(headers: Sequence[str], **options: object) -> Table:
    table = Table(show_header=True, header_style="bold", **options)  # type: ignore[arg-type]
    for header in headers:
        table.add_column(Text(header), overflow="fold")
    return table


def show(report: Report, out: Console) -> None:
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
    for stage in report.stages:
        detail = Text(stage_detail(stage))
        if stage.note:
            detail.append("\n" + visible(stage.note))
        table.add_row(
            Text(stage.stage.value), Text(stage.status.value, style=_STYLE[stage.status]), detail
        )
    out.print(table)
    out.print(Text(report.summary_line, style="bold"))
    unchecked = unchecked_line(report)
    if unchecked:
        out.print(Text(unchecked, style="yellow"))
    findings = report.findings
    if not findings:
        out.print(Text("No findings.", style="green"))
        return
    ftable = grid(("severity", "where", "code", "message"), title=Text(count_line(findings)))
    for finding in findings:
        message = plain(finding.message)
        if finding.hint:
            message.append("\nhint: " + visible(finding.hint))
        ftable.add_row(
            Text(finding.severity.value, style=SEVERITY_STYLE[finding.severity]),
            Text(location(finding)),
            Text(finding.code, style="red"),
            message,
        )
    out.print(ftable)
