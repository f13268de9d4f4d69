"""GitHub Actions workflow commands: one ``::error`` per finding, then a ``::notice`` summary.

Annotations appear on the files in a pull request's diff. Values are escaped as the runner
expects (``%``, CR and LF in messages; also ``:`` and ``,`` in properties).
"""

from __future__ import annotations

from verifier.formats.clean import clean_str
from verifier.model import Report


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = []
    for finding in report.findings:
        props = [f"file={_prop(clean_str(finding.path))}"]
        if finding.line is not None:
            props.append(f"line={finding.line}")
        props.append(f"title={_prop(finding.code)}")
        message = clean_str(finding.message)
        if finding.pointer:
            message = f"{clean_str(finding.pointer)}: {message}"
        if finding.hint:
            message += f" (hint: {clean_str(finding.hint)})"
        lines.append(f"::error {','.join(props)}::{_data(message)}")
    stages = ", ".join(f"{s.stage.value} {s.status.value}" for s in report.stages)
    level = "notice" if report.ok else "error"
    lines.append(f"::{level} title=verify-evidence::{_data(stages + '; ' + report.summary_line)}")
    return "\n".join(lines) + "\n"
