"""Plain text: one line per stage, the summary line, then one line per finding.

Finding lines read ``path[:line][#pointer]: code: message``, the shape editors and CI logs
already link.
"""

from __future__ import annotations

from verifier.formats.clean import clean_str
from verifier.model import Finding, Report, StageResult


def stage_detail(stage: StageResult) -> str:
    c = stage.counts
    if stage.stage.value == "integrity":
        return f"{c.get('listed', 0)} listed, {c.get('ok', 0)} ok, {c.get('bytes', 0)} bytes hashed"
    if stage.stage.value == "validity":
        return (
            f"{c.get('records', 0)} records, {c.get('schemas', 0)} schemas, "
            f"{c.get('validated', 0)} records validated"
        )
    return (
        f"{c.get('assertions', 0)} assertions: {c.get('passed', 0)} passed, "
        f"{c.get('failed', 0)} failed, {c.get('errors', 0)} errors"
    )


def location(finding: Finding) -> str:
    where = clean_str(finding.path)
    if finding.line is not None:
        where += f":{finding.line}"
    if finding.pointer is not None:
        where += f"#{clean_str(finding.pointer)}"
    return where


def finding_line(finding: Finding) -> str:
    line = f"{location(finding)}: {finding.code}: {clean_str(finding.message)}"
    if finding.hint:
        line += f" (hint: {clean_str(finding.hint)})"
    return line


def render(report: Report) -> str:
    scope = ", ".join(s if s == "." else s + "/" for s in report.scope) or "(none)"
    lines = [
        f"verify-evidence {report.tool_version}: {clean_str(report.manifest)} "
        f"(unlisted files looked for in: {scope})"
    ]
    for stage in report.stages:
        lines.append(f"  {stage.stage.value:<12} {stage.status.value:<16} {stage_detail(stage)}")
        if stage.note:
            lines.append(f"  {'':<12} {'':<16} {stage.note}")
    lines.append(report.summary_line)
    findings = report.findings
    if findings:
        lines.append(f"{len(findings)} finding(s):")
        lines.extend(finding_line(f) for f in findings)
    else:
        lines.append("No findings.")
    return "\n".join(lines) + "\n"
