"""Plain text: one line per stage, the summary line, then the findings, errors first, one
line each under a heading per severity.

Finding lines read ``path[:line][#pointer]: code: message``, the shape editors and CI logs
already link. Archive text is shown through :func:`verifier.formats.inert.visible`: a newline
or a control sequence in a name is an escape, never a second line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from verifier.formats.inert import visible
from verifier.model import Finding, Report, Severity, StageResult, StageStatus


def stage_detail(stage: StageResult) -> str:
    c = stage.counts
    if stage.stage.value == "integrity":
        text = f"{c.get('listed', 0)} listed, {c.get('ok', 0)} ok, {c.get('bytes', 0)} bytes hashed"
    elif stage.stage.value == "validity":
        text = (
            f"{c.get('records', 0)} records, {c.get('schemas', 0)} schemas, "
            f"{c.get('validated', 0)} records validated"
        )
    else:
        text = (
            f"{c.get('assertions', 0)} assertions: {c.get('passed', 0)} passed, "
            f"{c.get('failed', 0)} failed, {c.get('errors', 0)} errors"
        )
    lesser = [
        f"{n} {name}{'s' if n != 1 else ''}"
        for name, n in stage.severity_counts().items()
        if name != Severity.ERROR.value and n
    ]
    return text + (f" ({', '.join(lesser)})" if lesser else "")


def location(finding: Finding) -> str:
    where = visible(finding.path)
    if finding.line is not None:
        where += f":{finding.line}"
    if finding.pointer is not None:
        where += f"#{visible(finding.pointer)}"
    return where


def finding_line(finding: Finding) -> str:
    line = f"{location(finding)}: {finding.code}: {visible(finding.message)}"
    if finding.hint:
        line += f" (hint: {visible(finding.hint)})"
    return line


class HasSeverity(Protocol):
    @property
    def severity(self) -> Severity: ...


T = TypeVar("T", bound=HasSeverity)


def by_severity(findings: Iterable[T]) -> list[tuple[Severity, list[T]]]:
    """Findings grouped by severity, errors first; empty groups left out; order kept."""
    groups: dict[Severity, list[T]] = {s: [] for s in Severity}
    for f in findings:
        groups[f.severity].append(f)
    return [(s, items) for s, items in groups.items() if items]


def count_line(findings: Sequence[HasSeverity]) -> str:
    """``3 finding(s) (2 error(s), 1 note(s))``."""
    parts = [f"{len(items)} {s.value}(s)" for s, items in by_severity(findings)]
    return f"{len(findings)} finding(s) ({', '.join(parts)})"


def unchecked_line(report: Report) -> str | None:
    """Which stages had nothing to check, said plainly (a bare manifest passes on integrity
    alone); ``None`` when every stage run checked something."""
    idle = [s.stage.value for s in report.stages if s.status is StageStatus.NOTHING_TO_CHECK]
    if not idle:
        return None
    busy = [
        s.stage.value for s in report.stages if s.status in (StageStatus.PASSED, StageStatus.FAILED)
    ]
    line = f"{' and '.join(idle)} had nothing to check"
    if busy:
        line += f"; only {' and '.join(busy)} checked anything"
    return line[0].upper() + line[1:] + "."


def render(report: Report) -> str:
    scope = ", ".join(visible(s) if s == "." else visible(s) + "/" for s in report.scope)
    lines = [
        f"verify-evidence {report.tool_version}: {visible(report.manifest)} "
        f"(unlisted files looked for in: {scope or '(none)'})"
    ]
    for stage in report.stages:
        lines.append(f"  {stage.stage.value:<12} {stage.status.value:<16} {stage_detail(stage)}")
        if stage.note:
            lines.append(f"  {'':<12} {'':<16} {visible(stage.note)}")
    lines.append(report.summary_line)
    unchecked = unchecked_line(report)
    if unchecked:
        lines.append(unchecked)
    findings = report.findings
    if findings:
        lines.append(count_line(findings) + ":")
        for severity, items in by_severity(findings):
            lines.append(f"{severity.value}s:")
            lines.extend(finding_line(f) for f in items)
    else:
        lines.append("No findings.")
    return "\n".join(lines) + "\n"
