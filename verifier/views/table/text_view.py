"""Plain text: the verification status first, then one block per case (or one case in depth).

Each line goes through :func:`verifier.views.inert.visible`: a newline or a control sequence
in a record value is an escape, never a line or a terminal command of its own.
"""

from __future__ import annotations

from verifier.table.build import CaseRow, OutcomeTable
from verifier.views.inert import visible
from verifier.views.table import TableView
from verifier.views.table.columns import HEADERS, described, problem_lines, row_values
from verifier.views.table.columns import groups as columns_groups


def render_table(table: OutcomeTable) -> str:
    lines = [table.status_line()]
    lines.extend(f"catalogue problem: {p}" for p in table.problems)
    width = max(len(h) for h in HEADERS[2:])
    for row in table.cases:
        values = row_values(row)
        lines.append("")
        lines.append(f"{values[0]}  [{row.id}; {values[1]}]")
        for header, value in zip(HEADERS[2:], values[2:], strict=True):
            lines.append(f"  {header.lower():<{width}}  {value}")
    problems = [line for row in table.cases for line in problem_lines(row)]
    if problems:
        lines.append("")
        lines.append("Unverified cells:")
        lines.extend(f"  {p}" for p in problems)
    return "\n".join(visible(line) for line in lines) + "\n"


def render_case(table: OutcomeTable, row: CaseRow) -> str:
    lines = [
        table.status_line(),
        "",
        described(row, f"{row.title}  [{row.id}; {row.kind}]"),
        "  evidence: " + described(row, ", ".join(row.evidence)),
    ]
    if not row.described:
        lines.append(f"  from {row.catalogue}: " + "; ".join(row.problems + row.accepted))
    groups = columns_groups(row, plural=True)
    for name, cells in groups:
        lines.append(f"  {name}:")
        if not cells:
            lines.append("    not recorded")
        for cell in cells:
            state = "verified" if cell.verified else "UNVERIFIED: " + "; ".join(cell.reasons)
            lines.append(f"    {cell.shown()}  ({state})")
            lines.append(f"      from {cell.path}#{cell.pointer} ({cell.how})")
            lines.append(f"      sha256 {cell.sha256 or '(none: not a manifested file)'}")
            for aid, status in cell.assertions:
                lines.append(f"      established by {aid}: {status}")
    lines.append("  limits: " + described(row, "; ".join(row.limits) or "none stated"))
    lines.append("  assertions covering the case:")
    lines.extend(f"    {aid}: {status}" for aid, status in row.assertions)
    lines.append("  files:")
    lines.extend(f"    {digest or '(no digest)'}  {path}" for path, digest in row.files)
    return "\n".join(visible(line) for line in lines) + "\n"


def render(view: TableView) -> str:
    return view.pick(render_table, render_case)
