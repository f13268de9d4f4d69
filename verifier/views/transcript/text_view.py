"""Plain text of a :class:`~verifier.transcripts.check.TranscriptReport` (deterministic).

It ends with one line per finding, ``path[:line][#pointer]: code: message``, as
``verify-evidence check`` writes them (:func:`verifier.views.findings.finding_line`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from verifier.findings import Finding
from verifier.transcripts.check import FileReport, TranscriptReport
from verifier.views.findings import by_severity, count_line, finding_line
from verifier.views.inert import visible


def located(report: TranscriptReport) -> list[Finding]:
    """Every file's findings, in order, each with its file's path."""
    return [replace(x, path=f.path) for f in report.files for x in f.findings]


def file_detail(f: FileReport) -> str:
    shape = f"{f.shape} ({f.shape_source})" if f.shape else "shape unknown"
    return f"{shape}, {f.messages} messages, {f.calls} calls, {f.results} results"


def transcript_detail(t: dict[str, Any]) -> str:
    """One transcript of a container: its name, shape and counts."""
    ended = f", {t['ended']} ended by the harness" if t.get("ended") else ""
    return (
        f"{t['name']}: {t['messages']} messages, {t['calls']} calls, {t['results']} results"
        f"{ended}, {t['findings']} finding(s)"
    )


def verdict_line(report: TranscriptReport) -> str:
    """The run's verdict, the exit code's rule (``--fail-on`` included)."""
    if report.passed:
        return "Verdict: passed."
    return f"Verdict: FAILED (a finding at --fail-on {report.fail_on.value} or above)."


def render(report: TranscriptReport) -> str:
    lines = [f"verify-evidence {report.tool_version}: transcript check"]
    for f in report.files:
        status = report.file_verdict(f)
        lines.append(f"  {status:<7} {visible(f.path)}: {visible(file_detail(f))}")
        for t in f.transcripts:
            lines.append(f"          - {visible(transcript_detail(t))}")
    lines.append(report.summary_line)
    lines.append(verdict_line(report))
    findings = located(report)
    if findings:
        lines.append(count_line(findings) + ":")
        for severity, group in by_severity(findings):
            lines.append(f"{severity.value}s:")
            lines.extend(finding_line(x) for x in group)
    else:
        lines.append("No findings.")
    return "\n".join(lines) + "\n"
