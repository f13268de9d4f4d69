"""Below 120 columns the table and coverage rich views stack each row as the check view does
(#16): no column is narrowed into a wrap inside a word, a path or a digest; at 120 columns
and more the tables stay."""

from __future__ import annotations

import re

from rich.console import Console
from rich.text import Text

from tests.conftest import REPO
from tests.unit.test_coverage_views import hand_built
from verifier import verify
from verifier.table import build_table
from verifier.views.coverage.rich_view import render as render_coverage
from verifier.views.table.rich_view import show as show_table
from verifier.views.terminal import STACK_BELOW, rows_or_stack

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _console(width: int) -> Console:
    return Console(record=True, width=width, force_terminal=False, color_system=None)


def test_the_table_is_stacked_at_80_columns() -> None:
    out = _console(80)
    show_table(build_table(verify(REPO)), out)
    text = out.export_text()
    assert "│" not in text and "┃" not in text  # no table
    assert max(len(line) for line in text.splitlines()) <= 80
    lines = text.splitlines()
    head = lines.index("Local Stripe test API")
    assert lines[head + 1] == "  Kind: provider-backed run"
    assert "  Evidence: E1, E7" in lines


def test_the_table_stays_a_table_at_120_columns() -> None:
    out = _console(STACK_BELOW)
    show_table(build_table(verify(REPO)), out)
    assert "│" in out.export_text()


def test_the_coverage_view_is_stacked_below_120_columns() -> None:
    narrow = ANSI.sub("", render_coverage(hand_built(), width=80))
    assert "│" not in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 80
    lines = narrow.splitlines()
    at = lines.index("evidence/plain.json")
    assert lines[at + 1 : at + 4] == ["  covered: 2", "  excused: 2", "  uncovered: 1"]
    assert lines[at + 4].startswith("  percent: ")
    assert "  allowed by: rule plain" in lines  # the survivors' table, stacked
    wide = ANSI.sub("", render_coverage(hand_built(), width=160))
    assert "│" in wide


def test_stacked_cells_of_several_lines_stay_under_their_header() -> None:
    out = _console(60)
    rows = [[Text("row"), Text("first\nsecond")]]
    rows_or_stack(out, ("name", "value"), rows)
    assert out.export_text().splitlines() == ["row", "  value: first", "    second"]


def test_archive_text_stays_inert_when_stacked() -> None:
    out = _console(60)
    rows_or_stack(out, ("name", "value"), [[Text("[/bold]"), Text("[red]x")]])
    assert out.export_text().splitlines() == ["[/bold]", "  value: [red]x"]
