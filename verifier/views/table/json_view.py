"""JSON (``verifier/schemas/table.schema.json``): every cell with its source file, pointer
and digest."""

from __future__ import annotations

from verifier.table.build import CaseRow, OutcomeTable
from verifier.views.clean import dumps_clean
from verifier.views.table import TableView


def _dump(data: object) -> str:
    return dumps_clean(data) + "\n"


def render_table(table: OutcomeTable) -> str:
    return _dump(table.to_dict())


def render_case(table: OutcomeTable, row: CaseRow) -> str:
    data = table.to_dict()
    data["cases"] = [row.to_dict()]
    return _dump(data)


def render(view: TableView) -> str:
    return view.pick(render_table, render_case)
