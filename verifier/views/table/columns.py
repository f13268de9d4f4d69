"""The table's columns, shared by every view, so that all formats say the same thing."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from verifier.table.build import NOT_RECORDED, CaseRow, Cell

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
Escape = Callable[[str], str]


def _same(text: str) -> str:
    return text


def plain_mark(text: str) -> str:
    return f"UNVERIFIED {text}"


def shown(cell: Cell, mark: Marker, as_count: bool = False, esc: Escape = _same) -> str:
    text = cell.shown(as_count)
    if cell.accepted and not cell.problems:
        text = f"(accepted) {text}"
    if cell.evidence:
        text += f" [{cell.evidence}]"
    return esc(text) if cell.verified else mark(esc(text))


def joined(
    cells: Iterable[Cell],
    mark: Marker,
    empty: str = "none",
    as_count: bool = False,
    esc: Escape = _same,
) -> str:
    parts = [shown(c, mark, as_count, esc) for c in cells]
    return "; ".join(parts) if parts else empty


def described(row: CaseRow, text: str) -> str:
    """``text`` (already inert), a piece of the row's own text (title, kind, limits,
    evidence: the catalogue's), with :attr:`CaseRow.catalogue_note` beside it when the
    catalogue is unverified."""
    return f"{text} ({row.catalogue_note})" if row.catalogue_note else text


def row_values(row: CaseRow, mark: Marker = plain_mark, esc: Escape = _same) -> tuple[str, ...]:
    """The row's cells as text. ``esc`` makes archive text inert for a view whose ``mark``
    adds markup of its own (it is applied to the text before ``mark``, never to the mark).
    The title, kind, limits and evidence say so when the catalogue is unverified."""
    limits = "; ".join(esc(limit) for limit in row.limits) or "none stated"
    return (
        described(row, esc(row.title)),
        described(row, esc(row.kind)),
        joined(row.counts, mark, as_count=True, esc=esc),
        joined(row.outcomes, mark, esc=esc),
        shown(row.acceptance, mark, esc=esc) if row.acceptance else NOT_RECORDED,
        joined(row.readbacks, mark, esc=esc),
        described(row, limits),
        described(row, ", ".join(esc(e) for e in row.evidence)),
    )


def problem_lines(row: CaseRow) -> list[str]:
    """One line per unverified cell, and one for the row's own text (title, kind, limits,
    evidence) when its catalogue is unverified: what is wrong with it."""
    lines = []
    if not row.described:
        reasons = "; ".join(row.problems + row.accepted)
        lines.append(f"{row.id}: title, kind, limits and evidence ({row.catalogue}): {reasons}")
    lines += [
        f"{row.id}: {cell.label} ({cell.path}#{cell.pointer}): {'; '.join(cell.reasons)}"
        for cell in row.cells
        if not cell.verified
    ]
    return lines


def groups(row: CaseRow, plural: bool = False) -> tuple[tuple[str, tuple[Cell, ...]], ...]:
    """A case's cells by group, in the order every in-depth view shows them."""
    acceptance = (row.acceptance,) if row.acceptance else ()
    return (
        ("counts" if plural else "count", row.counts),
        ("recorded outcome", row.outcomes),
        ("original acceptance", acceptance),
        ("later readbacks" if plural else "later readback", row.readbacks),
    )
