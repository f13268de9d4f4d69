"""GitHub Actions workflow commands: one annotation per finding (``::error``, ``::warning`` or
``::notice`` by its severity), then a summary.

Annotations appear on the files in a pull request's diff. Archive text goes through
:func:`verifier.views.inert.github_data` and :func:`~verifier.views.inert.github_property`:
control characters are visible escapes, and ``%``, CR and LF (and ``:`` and ``,`` in
properties) are escaped as the runner expects, so no text can end a command or start another.
"""

from __future__ import annotations

from types import MappingProxyType

from verifier.findings import Severity
from verifier.report import Report
from verifier.views.findings import count_line
from verifier.views.inert import github_data, github_property

COMMAND = MappingProxyType(
    {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}
)


def render(report: Report) -> str:
    lines = []
    for finding in report.findings:
        props = [f"file={github_property(finding.location_path)}"]
        if finding.line is not None:
            props.append(f"line={finding.line}")
            if finding.column is not None:
                props.append(f"col={finding.column}")
        props.append(f"title={github_property(finding.code)}")
        message = finding.message
        if finding.at is not None:
            message = f"{finding.path}: {message}"
        if finding.pointer:
            message = f"{finding.pointer}: {message}"
        if finding.hint:
            message += f" (hint: {finding.hint})"
        lines.append(f"::{COMMAND[finding.severity]} {','.join(props)}::{github_data(message)}")
    stages = ", ".join(f"{s.stage.value} {s.status.value}" for s in report.stages)
    summary = f"{stages}; {report.summary_line}"
    if report.findings:
        summary += f"; {count_line(report.findings)}"
    level = "notice" if report.ok else "error"
    lines.append(f"::{level} title=verify-evidence::{github_data(summary)}")
    return "\n".join(lines) + "\n"
