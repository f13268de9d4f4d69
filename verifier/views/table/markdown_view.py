"""Markdown, fit for a CI step summary (``$GITHUB_STEP_SUMMARY``).

Every string from the archive goes through :func:`verifier.views.inert.markdown` and is
never put in a code span (a code span cannot escape a backtick): no raw HTML, comment opener,
link, emphasis or cell separator of a record survives.
"""

from __future__ import annotations

from verifier.table.build import CaseRow, OutcomeTable
from verifier.views.inert import markdown as _esc
from verifier.views.table import TableView
from verifier.views.table.columns import HEADERS, described, problem_lines, row_values
from verifier.views.table.columns import groups as columns_groups


def _mark(text: str) -> str:
    return f"⚠ **unverified** {text}"


def _status(table: OutcomeTable) -> list[str]:
    lines = [f"**{_esc(table.status_line())}**", ""]
    lines.extend(f"- catalogue problem: {_esc(p)}" for p in table.problems)
    return lines


def render_table(table: OutcomeTable) -> str:
    lines = _status(table)
    lines.append("| " + " | ".join(HEADERS) + " |")
    lines.append("|" + "---|" * len(HEADERS))
    for row in table.cases:
        lines.append("| " + " | ".join(row_values(row, _mark, _esc)) + " |")
    lines.append("")
    lines.append(
        "Counts are per case and are not combined across cases. The original acceptance "
        "result and later readbacks are separate observations; neither replaces the "
        "other. A terminal status or a stored marker is not an external effect."
    )
    problems = [p for row in table.cases for p in problem_lines(row)]
    if problems:
        lines.append("")
        lines.append("Unverified cells:")
        lines.append("")
        lines.extend(f"- {_esc(p)}" for p in problems)
    return "\n".join(lines) + "\n"


def render_case(table: OutcomeTable, row: CaseRow) -> str:
    lines = _status(table)
    lines.append(described(row, f"### {_esc(row.title)} ({_esc(row.id)}, {_esc(row.kind)})"))
    lines.append("")
    if not row.described:
        why = "; ".join(row.problems + row.accepted)
        lines += [f"From {_esc(row.catalogue)}: {_esc(why)}", ""]
    lines.append("| Group | Value | Source | SHA-256 | Established by | Verified |")
    lines.append("|---|---|---|---|---|---|")
    groups = columns_groups(row)
    for name, cells in groups:
        for cell in cells:
            by = ", ".join(f"{aid} ({status})" for aid, status in cell.assertions) or "none"
            ok = "yes" if cell.verified else "NO: " + "; ".join(cell.reasons)
            lines.append(
                f"| {name} | {_esc(cell.shown())} | {_esc(cell.path)}#{_esc(cell.pointer)}"
                f" | `{cell.sha256 or 'none'}` | {_esc(by)} | {_esc(ok)} |"
            )
    lines.append("")
    lines.append("Limits: " + described(row, _esc("; ".join(row.limits) or "none stated")))
    lines.append("")
    lines.append("Assertions covering the case:")
    lines.append("")
    lines.extend(f"- {_esc(aid)}: {_esc(status)}" for aid, status in row.assertions)
    return "\n".join(lines) + "\n"


def render(view: TableView) -> str:
    return view.pick(render_table, render_case)
