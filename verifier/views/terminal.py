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
