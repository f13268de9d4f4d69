"""Views of a :class:`~verifier.coverage.report.CoverageReport`: a plug-in family. Each
module has ``render(report) -> str``; :data:`FORMATS` feeds the ``coverage`` command's
``--format`` choices and construction. The rich terminal view (:mod:`.rich_view`) is the
``auto`` choice on a terminal and is imported only by the CLI (it imports rich).

Every view shows the same things: source, manifest, spec and catalogue; the totals; the
counts per file; every uncovered leaf; the excused leaves by reason and the ``unasserted``
entries; the files not audited and why; the findings; and, when ``--mutate`` ran, the
mutation score per file and in total with every survivor. Archive text goes through
:mod:`verifier.formats.inert` in every view.
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.coverage.report import CoverageReport
from verifier.coverage.views import json_view, markdown_view, text_view

Renderer = Callable[[CoverageReport], str]

FORMATS: dict[str, Renderer] = {
    "text": text_view.render,
    "json": json_view.render,
    "markdown": markdown_view.render,
}

__all__ = ["FORMATS", "Renderer"]
