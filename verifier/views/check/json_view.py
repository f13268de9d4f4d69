"""The report as JSON (``schemas/report.schema.json``): sorted keys, two-space indent, LF."""

from __future__ import annotations

from verifier.json.write import dumps_report
from verifier.report import Report
from verifier.views.clean import clean


def render(report: Report) -> str:
    return dumps_report(clean(report.to_dict())) + "\n"
