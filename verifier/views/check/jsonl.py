"""JSON Lines: one finding per line (``"type": "finding"``, the fields of the JSON report's
flat ``findings`` list), then one ``"type": "summary"`` line (verdict, stage statuses and
counts, the authenticity stage and who signed, the source and the manifest's digest). Each
line is a compact JSON object with sorted keys; no line holds a raw newline (JSON escapes
it), so a line is always one record. For ``jq -c``, log shippers and streaming readers
(docs/report-v2.md). Written a part at a time (:func:`render_parts`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from verifier.findings import Severity
from verifier.report import REPORT_VERSION, Report
from verifier.views.clean import dumps_clean, lines_in_parts
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings

#: lines of findings written in each part (:func:`render_parts`)
_PART_LINES = 4096


def _line(value: dict[str, Any]) -> str:
    return dumps_clean(value, indent=None)


def render(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> str:
    return "".join(render_parts(report, settings))


def render_parts(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> Iterator[str]:
    """:func:`render`'s text in parts: the finding lines :data:`_PART_LINES` at a time (a
    damaged large archive can have a finding per file), then the summary, which counts
    them."""
    count = 0

    def lines() -> Iterator[str]:
        nonlocal count
        for finding in report.each_flat_finding():
            count += 1
            yield _line({"type": "finding", **finding})

    yield from lines_in_parts(lines(), _PART_LINES)
    yield _line(_summary(report, count, settings.fail_on)) + "\n"


def _summary(report: Report, findings: int, fail_on: Severity) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "type": "summary",
        "reportVersion": REPORT_VERSION,
        "tool": {"name": "verify-evidence", "version": report.tool_version},
        "ok": report.ok,
        "verdict": report.verdict(fail_on),
        "failOn": fail_on.value,
        "summary": report.summary_line,
        "manifest": report.manifest,
        "stages": {s.stage.value: s.status.value for s in report.stages},
        "authenticity": {
            "status": report.authenticity.status.value,
            "signatures": [c.to_dict() for c in report.signatures],
        },
        "findings": findings,
        "severities": {
            k: sum(s.severity_counts()[k] for s in report.checks)
            for k in ("error", "warning", "note")
        },
    }
    if report.source is not None:
        summary["source"] = dict(report.source)
    if report.manifest_sha256 is not None:
        summary["manifestSha256"] = report.manifest_sha256
    return summary
