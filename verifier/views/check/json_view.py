"""The report as JSON (``schemas/report.schema.json``): sorted keys, two-space indent, LF."""

from __future__ import annotations

from verifier.report import Report
from verifier.views.clean import dumps_clean


def render(report: Report) -> str:
    return dumps_clean(report.to_dict()) + "\n"
