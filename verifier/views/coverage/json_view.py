"""The coverage report as JSON (``verifier/schemas/coverage.schema.json``): sorted keys, two-space
indent, LF; strings exactly as read (lone surrogates as ``\\udcXX`` escapes)."""

from __future__ import annotations

from verifier.coverage.report import CoverageReport
from verifier.views.clean import dumps_clean


def render(report: CoverageReport) -> str:
    return dumps_clean(report.to_dict()) + "\n"
