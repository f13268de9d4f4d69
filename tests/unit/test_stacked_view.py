"""Below 120 columns the rich check view stacks each finding (#16): no table column is
narrowed, so a digest never wraps inside itself; at 120 and more the table stays."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console

from tests.tampered import tamper
from verifier import verify
from verifier.views.check.rich_view import show

DIGEST = re.compile(r"\b[0-9a-f]{64}\b")


def _render(width: int, root: Path) -> str:
    console = Console(record=True, width=width, force_terminal=False, color_system=None)
    show(verify(root), console)
    return console.export_text()


def test_at_80_columns_findings_are_stacked_and_digests_whole(archive: Path) -> None:
    tamper(archive)
    narrow = _render(80, archive)
    assert max(len(line) for line in narrow.splitlines()) <= 80
    mismatch = narrow[narrow.index("manifest.mismatch") :]
    assert len(DIGEST.findall(mismatch[:600])) == 2  # computed and listed, each on one line
    assert "│" not in mismatch[:600]  # not a table row
    assert "  evidence/e6-webhook-control/deliveries.json (manifest.sha256:" in narrow


def test_at_120_columns_the_findings_table_stays(archive: Path) -> None:
    tamper(archive)
    wide = _render(120, archive)
    assert "│" in wide[wide.index("manifest.mismatch") - 200 :][:400]
