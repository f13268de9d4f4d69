"""What the rich terminal views share (each family's own is ``verifier.views.<family>.rich_view``).
Only the CLI and those views import this module (and with it, rich).

Every string goes to rich as a :class:`rich.text.Text`, never as a ``str`` (which rich would
read as console markup, emoji codes and highlighting), and archive text first goes through
:func:`verifier.views.inert.visible`: ``[/bold]`` in a file name is shown as written, and a
control sequence in a record value is an escape, never sent to the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from rich.console import Console
from rich.table import Table
from rich.text import Text

from verifier.findings import Severity
from verifier.views.inert import visible

SEVERITY_STYLE = MappingProxyType(
    {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}
)


def plain(text: str, style: str = "") -> Text:
    """Archive text (or any text) as rich text: no markup, no emoji, no control codes."""
    return Text(visible(text), style=style, no_wrap=False)


def console(force_terminal: bool | None = None) -> Console:
    """The terminal console: no markup, emoji or highlighting for anything printed as str
    (``force_terminal``: colour even when standard output is not a terminal)."""
    return Console(markup=False, emoji=False, highlight=False, force_terminal=force_terminal)


#: below this many columns the rich views stack each row instead of a table whose columns
#: would wrap inside words and digests
STACK_BELOW = 120


def stacked(out: Console) -> bool:
    """Whether ``out`` is too narrow for the wide tables (:data:`STACK_BELOW`)."""
    return out.width < STACK_BELOW


def grid(headers: Sequence[str], **options: object) -> Table:
    table = Table(show_header=True, header_style="bold", **options)  # type: ignore[arg-type]
    for header in headers:
        table.add_column(Text(header), overflow="fold")
    return table


def rows_or_stack(
    out: Console,
    headers: Sequence[str],
    rows: Sequence[Sequence[Text]],
    title: Text | None = None,
    **options: object,
) -> None:
    """``rows`` as a :func:`grid` table, or, on a console narrower than :data:`STACK_BELOW`,
    stacked (the check view's layout): each row a block, its first cell as the heading and
    every other cell under it as ``header: value``, indented and folded only where the
    terminal ends, so no column is narrowed into a wrap inside a word or a digest."""
    if not stacked(out):
        table = grid(headers, title=title, **options)
        for row in rows:
            table.add_row(*row)
        out.print(table)
        return
    if title is not None:
        out.print(Text.assemble(title), style="bold")
    for row in rows:
        head, *rest = row
        out.print(Text.assemble(head, style="bold"), overflow="fold")
        for header, cell in zip(headers[1:], rest, strict=False):
            first, *more = cell.split("\n") if cell.plain else [cell]
            line = Text(f"  {header}: ")
            line.append_text(first)
            out.print(line, overflow="fold")
            for extra in more:  # a cell's further lines, under its first
                out.print(Text("    ") + extra, overflow="fold")
