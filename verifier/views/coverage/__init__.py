"""The coverage report's formats (``verify-evidence coverage --format``): one module per
format, each with ``render(report: CoverageReport) -> str``; :data:`COVERAGE` feeds the CLI's
choices and construction. The rich terminal view (:mod:`.rich_view`) is the ``auto`` choice on
a terminal and is imported only by the CLI (it imports rich).

Every view shows the same things: source, manifest, spec and catalogue; the totals; the
counts per file; every uncovered leaf; the excused leaves by reason and the ``unasserted``
entries; the files not audited and why; the findings; and, when ``--mutate`` ran, the
mutation score per file and in total with every survivor. Archive text goes through
:mod:`verifier.views.inert` in every view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.views.interface import Format, Registry

if TYPE_CHECKING:
    from verifier.coverage.report import CoverageReport

COVERAGE: Registry[CoverageReport] = Registry(
    "coverage",
    Format("text", "verifier.views.coverage.text_view:render", ".txt"),
    Format("json", "verifier.views.coverage.json_view:render", ".json"),
    Format("markdown", "verifier.views.coverage.markdown_view:render", ".md"),
)

__all__ = ["COVERAGE"]
