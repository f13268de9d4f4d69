"""The table's columns, shared by every view, so that all formats say the same thing."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from verifier.table.model import NOT_RECORDED, CaseRow, Cell

HEADERS = (
    "Case",
    "Kind",
    "Counts",
    "Recorded outcome",
    "Original acceptance",
    "Later readbacks",
    "Limits",
    "Evidence",
)

Marker = Callable[[str], str]


def plain_mark(text: str) -> str:
    return f"UNVERIFIED {text}"


def shown(cell: Cell, mark: Marker, as_count: bool = False) -> str:
    text = cell.shown(as_count)
    if cell.evidence:
        text += f" [{cell.evidence}]"
    return text if cell.verified else mark(text)


def joined(cells: Iterable[Cell], mark: Marker, empty: str = "none", as_count: bool = False) -> str:
    parts = [shown(c, mark, as_count) for c in cells]
    return "; ".join(parts) if parts else empty


def row_values(row: CaseRow, mark: Marker = plain_mark) -> tuple[str, ...]:
    return (
        row.title,
        row.kind,
        joined(row.counts, mark, as_count=True),
        joined(row.outcomes, mark),
        shown(row.acceptance, mark) if row.acceptance else NOT_RECORDED,
        joined(row.readbacks, mark),
        "; ".join(row.limits) or "none stated",
        ", ".join(row.evidence),
    )


def problem_lines(row: CaseRow) -> list[str]:
    """One line per unverified cell: what is wrong with it."""
    return [
        f"{row.id}: {cell.label} ({cell.path}#{cell.pointer}): {'; '.join(cell.problems)}"
        for cell in row.cells
        if not cell.verified
    ]


def groups(row: CaseRow, plural: bool = False) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
    """A case's cells by group, in the order every in-depth view shows them."""
    acceptance = (row.acceptance,) if row.acceptance else ()
    return (
        ("counts" if plural else "count", row.counts),
        ("recorded outcome", row.outcomes),
        ("original acceptance", acceptance),
        ("later readbacks" if plural else "later readback", row.readbacks),
    )
