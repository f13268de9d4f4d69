"""The rich view of the table for a terminal. Only the CLI imports this module.

Cells are :class:`rich.text.Text` built from :func:`verifier.views.inert.visible`, never
markup: a record value such as ``[/bold]`` is shown as written.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from verifier.table.build import CaseRow, OutcomeTable
from verifier.views.inert import visible
from verifier.views.table.columns import HEADERS, problem_lines, row_values
from verifier.views.terminal import rows_or_stack

_MARK = "\u26a0 "


def _marked(text: str) -> str:
    return _MARK + text


def _red(row: CaseRow, value: str) -> bool:
    """A marked cell, or the row's own text from an unverified catalogue."""
    return _MARK in value or bool(row.catalogue_note and row.catalogue_note in value)


def show(table: OutcomeTable, out: Console) -> None:
    out.print(Text(visible(table.status_line()), style="bold green" if table.ok else "bold red"))
    for problem in table.problems:
        out.print(Text(f"catalogue problem: {visible(problem)}", style="red"))
    rows = [
        [Text(visible(v), style="red" if _red(r, v) else "") for v in row_values(r, _marked)]
        for r in table.cases
    ]
    rows_or_stack(out, HEADERS, rows, show_lines=True)  # stacked below 120 columns
    for line in (p for row in table.cases for p in problem_lines(row)):
        out.print(Text(f"unverified: {visible(line)}", style="red"))
