"""The per-case outcome table (``verify-evidence table``): data in :mod:`.model`, one module
per format, and this registry feeding the CLI's ``--format`` choices."""

from __future__ import annotations

from collections.abc import Callable

from verifier.table import csv_view, html_view, json_view, markdown_view, text_view
from verifier.table.model import DEFAULT_CATALOGUE, CaseRow, OutcomeTable, build_table

TableRenderer = Callable[[OutcomeTable], str]
CaseRenderer = Callable[[OutcomeTable, CaseRow], str]

FORMATS: dict[str, tuple[TableRenderer, CaseRenderer]] = {
    "text": (text_view.render, text_view.render_case),
    "markdown": (markdown_view.render, markdown_view.render_case),
    "json": (json_view.render, json_view.render_case),
    "csv": (csv_view.render, csv_view.render_case),
    "html": (html_view.render, html_view.render_case),
}

__all__ = ["DEFAULT_CATALOGUE", "FORMATS", "CaseRow", "OutcomeTable", "build_table"]
