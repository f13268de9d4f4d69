"""The per-case outcome table (``verify-evidence table``) as data: :mod:`.build` reads the
case catalogue's selectors against a verification report. Its views are
:mod:`verifier.views.table`."""

from __future__ import annotations

from verifier.table.build import DEFAULT_CATALOGUE, CaseRow, OutcomeTable, build_table

__all__ = ["DEFAULT_CATALOGUE", "CaseRow", "OutcomeTable", "build_table"]
