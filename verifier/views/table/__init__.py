"""The outcome table's formats (``verify-evidence table --format``): one module per format,
each with ``render(view: TableView) -> str``; :data:`TABLE` feeds the CLI's choices and
construction. The table itself is built outside the views (:func:`verifier.table.build_table`);
:mod:`.columns` holds the columns every view shows. The rich terminal view (:mod:`.rich_view`)
is the ``auto`` choice on a terminal; only the CLI imports it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from verifier.views.interface import Format, Registry

if TYPE_CHECKING:
    from verifier.table.build import CaseRow, OutcomeTable


@dataclass(frozen=True, slots=True)
class TableView:
    """What a table renderer renders: the whole table, or one case of it in depth (``--case``)."""

    table: OutcomeTable
    case: CaseRow | None = None

    def pick(
        self,
        whole: Callable[[OutcomeTable], str],
        one: Callable[[OutcomeTable, CaseRow], str],
    ) -> str:
        """``whole(table)``, or ``one(table, case)`` when a case is in focus."""
        return whole(self.table) if self.case is None else one(self.table, self.case)


TABLE: Registry[TableView] = Registry(
    "table",
    Format("text", "verifier.views.table.text_view:render", ".txt"),
    Format("markdown", "verifier.views.table.markdown_view:render", ".md"),
    Format("json", "verifier.views.table.json_view:render", ".json"),
    Format("csv", "verifier.views.table.csv_view:render", ".csv"),
    Format("html", "verifier.views.table.html_view:render", ".html"),
)

__all__ = ["TABLE", "TableView"]
