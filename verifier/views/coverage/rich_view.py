"""The rich terminal view of a coverage report: the ``auto`` format on a terminal. Only the
CLI imports this module (and with it, rich).

Every string goes to rich as a :class:`rich.text.Text` built through
:func:`verifier.views.terminal.plain` or :func:`verifier.views.inert.visible`: ``[/bold]`` in a
pointer is shown as written, a control sequence in a value is an escape.
"""

from __future__ import annotations

from io import StringIO

from rich.console import Console
from rich.text import Text

from verifier.coverage.report import CoverageReport
from verifier.views.coverage import summary as s
from verifier.views.coverage.text_view import excused_lines, not_audited_lines
from verifier.views.findings import count_line, location
from verifier.views.inert import visible
from verifier.views.terminal import SEVERITY_STYLE, plain, rows_or_stack


def _header(report: CoverageReport, out: Console) -> None:
    out.print(
        Text.assemble(
            ("verify-evidence coverage ", "bold"),
            report.tool_version,
            ": ",
            (visible(report.source), "cyan"),
            ": ",
            (s.verdict(report), "bold green" if report.passed else "bold red"),
        )
    )
    catalogue = visible(report.catalogue) if report.catalogue else "(none)"
    out.print(plain(f"manifest {report.manifest}, spec {report.spec}, catalogue ") + catalogue)
    out.print(Text("total: " + s.counts_line(report.counts, report.percent), style="bold"))
    if report.fail_under is not None:
        out.print(Text(f"fail-under: {report.fail_under:g}%"))


def _files(report: CoverageReport, out: Console) -> None:
    rows = [
        [
            plain(f.path),
            Text(str(f.counts["covered"]), style="green"),
            Text(str(f.counts["excused"])),
            Text(str(f.counts["uncovered"]), style="yellow" if f.counts["uncovered"] else ""),
            Text(s.percent(s.file_percent(f))),
        ]
        for f in report.files
    ]
    rows_or_stack(out, ("file", "covered", "excused", "uncovered", "percent"), rows)


def _uncovered(report: CoverageReport, out: Console) -> None:
    items = s.uncovered(report)
    out.print(Text(f"uncovered ({len(items)}):", style="bold yellow" if items else "bold"))
    for u in items:
        out.print(Text("  ") + plain(f"{u.path}#{u.pointer}") + Text(f" ({u.type})", style="dim"))


def _lines(lines: list[str], out: Console) -> None:
    # the text view's lines: already through visible(), so no control code or markup
    for line in lines:
        out.print(Text(line, style="" if line.startswith(" ") else "bold"))


def _mutation(report: CoverageReport, out: Console) -> None:
    m = report.mutation
    if m is None:
        return
    c = m.counts()
    out.print(
        Text(
            f"mutation: score {s.mutation_score(m)} ({c['killed']} killed, {c['survived']} "
            f"survived, {c['skipped']} skipped, {m.not_run} not run; seed {m.seed})",
            style="bold",
        )
    )
    rows = []
    for path in sorted({x.path for x in m.mutants}):
        fc = m.counts(path)
        rows.append(
            [
                plain(path),
                Text(s.percent(m.score(path))),
                Text(str(fc["killed"]), style="green"),
                Text(str(fc["survived"]), style="red" if fc["survived"] else ""),
                Text(str(fc["skipped"])),
            ]
        )
    rows_or_stack(out, ("file", "score", "killed", "survived", "skipped"), rows)
    survivors = s.survivors(report)
    if survivors:
        found = [
            [
                plain(f"{x.path}#{x.pointer}"),
                plain(s.value(x.original)),
                plain(s.value(x.tried), "red"),
                plain(x.rule),
            ]
            for x in survivors
        ]
        headers = ("survivor", "original", "tried", "allowed by")
        rows_or_stack(out, headers, found, title=Text("survivors"))


def _findings(report: CoverageReport, out: Console) -> None:
    if not report.findings:
        out.print(Text("No findings.", style="green"))
        return
    others = s.other_findings(report)
    notes = len(report.findings) - len(others)
    if others:
        rows = [
            [
                Text(f.severity.value, style=SEVERITY_STYLE[f.severity]),
                Text(location(f)),
                Text(f.code, style="red"),
                plain(f.message),
            ]
            for f in others
        ]
        headers = ("severity", "where", "code", "message")
        rows_or_stack(out, headers, rows, title=Text(count_line(others)))
    if notes:
        out.print(Text(f"{notes} {s.UNCOVERED} note(s): the uncovered values listed above"))


def show(report: CoverageReport, out: Console) -> None:
    _header(report, out)
    _files(report, out)
    _uncovered(report, out)
    _lines(excused_lines(report) + not_audited_lines(report), out)
    _mutation(report, out)
    _findings(report, out)


def render(report: CoverageReport, width: int = 100) -> str:
    """The view as a terminal would receive it (colour codes included), for tests."""
    buffer = StringIO()
    out = Console(
        file=buffer,
        force_terminal=True,
        color_system="truecolor",
        width=width,
        markup=False,
        emoji=False,
        highlight=False,
    )
    show(report, out)
    return buffer.getvalue()
