"""CSV: one row per case (or, for one case, one row per value with its source).

Every cell goes through :func:`verifier.views.inert.csv_cell`: a value a spreadsheet would
run as a formula (``=``, ``+``, ``-``, ``@``, tab, CR first) starts with ``'``.
"""

from __future__ import annotations

import csv
import io

from verifier.table.build import CaseRow, OutcomeTable
from verifier.views.inert import csv_cell
from verifier.views.table import TableView
from verifier.views.table.columns import HEADERS, row_values
from verifier.views.table.columns import groups as columns_groups


def _write(rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows([csv_cell(cell) for cell in row] for row in rows)
    return buffer.getvalue()


def render_table(table: OutcomeTable) -> str:
    rows = [["Verification", table.status_line()], ["Case id", *HEADERS]]
    rows.extend([row.id, *row_values(row)] for row in table.cases)
    return _write(rows)


def render_case(table: OutcomeTable, row: CaseRow) -> str:
    rows = [
        ["Case id", "Group", "Label", "Value", "File", "Pointer", "SHA-256", "Verified", "Problems"]
    ]
    groups = columns_groups(row)
    for name, cells in groups:
        for cell in cells:
            rows.append(
                [
                    row.id,
                    name,
                    cell.label,
                    cell.text,
                    cell.path,
                    cell.pointer,
                    cell.sha256 or "",
                    "yes" if cell.verified else "no",
                    "; ".join(cell.problems),
                ]
            )
    return _write(rows)


def render(view: TableView) -> str:
    return view.pick(render_table, render_case)
