"""CSV: one row per case (or, for one case, one row per value with its source).

The first row is the header and nothing comes before it (``csv.DictReader``, ``pandas.read_csv``
read it as is). The verification status is columns, repeated on every row: ``Verification``
(passed, failed or incomplete), ``Verification detail`` (the status line the other views
print first) and one column per stage (``Integrity``, ``Validity``, ``Consistency``).

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


STATUS_HEADERS = ("Verification", "Verification detail", "Integrity", "Validity", "Consistency")


def _status(table: OutcomeTable) -> list[str]:
    line = table.status_line()
    verdict = "passed" if table.ok else "incomplete" if "INCOMPLETE" in line else "failed"
    return [verdict, line, *(s.status.value for s in table.report.stages)]


def render_table(table: OutcomeTable) -> str:
    status = _status(table)
    rows = [["Case id", *HEADERS, *STATUS_HEADERS]]
    rows.extend([row.id, *row_values(row), *status] for row in table.cases)
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
                    "; ".join(cell.reasons),
                ]
            )
    return _write(rows)


def render(view: TableView) -> str:
    return view.pick(render_table, render_case)
