"""The rich view for a terminal. Only the CLI imports this module (and with it, rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from verifier.formats.clean import clean_str
from verifier.formats.text import location, stage_detail
from verifier.model import Report, StageStatus

_STYLE = {
    StageStatus.PASSED: "bold green",
    StageStatus.FAILED: "bold red",
    StageStatus.NOTHING_TO_CHECK: "yellow",
    StageStatus.SKIPPED: "dim",
}


def show(report: Report, console: Console) -> None:
    scope = ", ".join(s if s == "." else s + "/" for s in report.scope) or "(none)"
    console.print(
        Text.assemble(
            ("verify-evidence ", "bold"),
            report.tool_version,
            ": ",
            (clean_str(report.manifest), "cyan"),
            f"  (unlisted files looked for in: {scope})",
        )
    )
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("stage")
    table.add_column("status")
    table.add_column("checked")
    for stage in report.stages:
        detail = stage_detail(stage) + (f"\n{stage.note}" if stage.note else "")
        table.add_row(
            stage.stage.value, Text(stage.status.value, style=_STYLE[stage.status]), detail
        )
    console.print(table)
    console.print(report.summary_line, style="bold")
    findings = report.findings
    if not findings:
        console.print("No findings.", style="green")
        return
    ftable = Table(title=f"{len(findings)} finding(s)", show_header=True, header_style="bold")
    ftable.add_column("where", overflow="fold")
    ftable.add_column("code", style="red", no_wrap=True)
    ftable.add_column("message", overflow="fold")
    for finding in findings:
        message = clean_str(finding.message)
        if finding.hint:
            message += f"\nhint: {clean_str(finding.hint)}"
        ftable.add_row(location(finding), finding.code, message)
    console.print(ftable)
