"""The rich view of a :class:`~verifier.transcripts.check.TranscriptReport` for a terminal
(``--format auto`` on a terminal). Only the CLI imports this module (and with it, rich)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from verifier.transcripts.check import TranscriptReport
from verifier.views.findings import count_line, location
from verifier.views.terminal import SEVERITY_STYLE, grid, plain
from verifier.views.transcript.text_view import (
    file_detail,
    located,
    transcript_detail,
    verdict_line,
)


def show(report: TranscriptReport, out: Console) -> None:
    table = grid(("transcript", "status", "read as"), box=None, pad_edge=False)
    for f in report.files:
        word = report.file_verdict(f)
        status = Text(word, "bold green" if word == "passed" else "bold red")
        table.add_row(plain(f.path), status, plain(file_detail(f)))
        for t in f.transcripts:
            table.add_row("", "", plain("- " + transcript_detail(t)))
    out.print(table)
    out.print(Text(report.summary_line, style="bold"))
    out.print(Text(verdict_line(report), style="bold green" if report.passed else "bold red"))
    findings = located(report)
    if not findings:
        out.print(Text("No findings.", style="green"))
        return
    shown = grid(("severity", "where", "code", "message"), title=Text(count_line(findings)))
    for x in findings:
        shown.add_row(
            Text(x.severity.value, style=SEVERITY_STYLE[x.severity]),
            Text(location(x)),
            Text(x.code, style="red"),
            plain(x.message),
        )
    out.print(shown)
