"""The bundled archive's spec kills every mutant of every value it covers (issue 13): no
``coverage.survived`` finding, through the real CLI. It depends on the bundled spec's
assertions (branch bundled-spec adds those this test reveals are missing)."""

from __future__ import annotations

import pytest

from tests.acceptance.test_coverage_cli import cli, report_of
from tests.conftest import REPO

# slow: every mutant of the bundled archive's spec (-m "not slow" leaves it out)
pytestmark = pytest.mark.slow


def test_the_bundled_archive_has_no_survivor() -> None:
    proc = cli(str(REPO), "--mutate", "--max-mutants", "all", "-f", "json")
    data = report_of(proc)
    survivors = [
        f"{m['path']}#{m['pointer']}: {m['original']!r} -> {m['tried']!r} ({m['rule']})"
        for m in data["mutation"]["mutants"]
        if m["outcome"] == "survived"
    ]
    assert not survivors, "\n".join(survivors)
    assert data["mutation"]["counts"]["killed"] > 0
    assert proc.returncode == 0, proc.stderr
