"""The rich view of the table for a terminal. Only the CLI imports this module."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from verifier.table.columns import HEADERS, problem_lines, row_values
from verifier.table.model import OutcomeTable


def show(table: OutcomeTable, console: Console) -> None:
    console.print(table.status_line(), style="bold green" if table.ok else "bold red")
    for problem in table.problems:
        console.print(f"catalogue problem: {problem}", style="red")
    grid = Table(show_header=True, header_style="bold", show_lines=True)
    for header in HEADERS:
        grid.add_column(header, overflow="fold")
    for row in table.cases:
        values = row_values(row, lambda t: f"\u26a0 {t}")
        grid.add_row(*(Text(v, style="red" if "\u26a0" in v else "") for v in values))
    console.print(grid)
    for line in (p for row in table.cases for p in problem_lines(row)):
        console.print(f"unverified: {line}", style="red")
