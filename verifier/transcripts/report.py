"""Views of a :class:`TranscriptReport`: plain text and JSON (both deterministic).

Text ends with one line per finding, ``path[:line][#pointer]: code: message``, as
``verify-evidence check`` writes them. JSON follows ``schemas/transcript-report.schema.json``:
sorted keys, two-space indentation, files in the order given.
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.formats.clean import clean
from verifier.formats.inert import visible
from verifier.formats.text import by_severity, count_line
from verifier.jsonwrite import dumps_report
from verifier.model import Severity
from verifier.transcripts.check import FileReport, TranscriptFinding, TranscriptReport


def location(path: str, finding: TranscriptFinding) -> str:
    where = visible(path)
    if finding.line is not None:
        where += f":{finding.line}"
    if finding.pointer is not None:
        where += f"#{visible(finding.pointer)}"
    return where


def file_detail(f: FileReport) -> str:
    shape = f"{f.shape} ({f.shape_source})" if f.shape else "shape unknown"
    return f"{shape}, {f.messages} messages, {f.calls} calls, {f.results} results"


def render_text(report: TranscriptReport) -> str:
    lines = [f"verify-evidence {report.tool_version}: transcript check"]
    for f in report.files:
        status = "passed" if f.ok else "failed"
        lines.append(f"  {status:<7} {visible(f.path)}: {visible(file_detail(f))}")
    lines.append(report.summary_line)
    items = [(f.path, finding) for f in report.files for finding in f.findings]
    if items:
        lines.append(count_line([x for _, x in items]) + ":")
        located = [(location(path, x), x) for path, x in items]
        for severity, group in by_severity(_Located(w, x) for w, x in located):
            lines.append(f"{severity.value}s:")
            lines.extend(
                f"{g.where}: {g.finding.code}: {visible(g.finding.message)}" for g in group
            )
    else:
        lines.append("No findings.")
    return "\n".join(lines) + "\n"


class _Located:
    def __init__(self, where: str, finding: TranscriptFinding) -> None:
        self.where = where
        self.finding = finding

    @property
    def severity(self) -> Severity:
        return self.finding.severity


def render_json(report: TranscriptReport) -> str:
    return dumps_report(clean(report.to_dict())) + "\n"


FORMATS: dict[str, Callable[[TranscriptReport], str]] = {
    "text": render_text,
    "json": render_json,
}
