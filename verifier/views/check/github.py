"""GitHub Actions workflow commands: one annotation per finding (``::error``, ``::warning`` or
``::notice`` by its severity), then a summary.

Annotations appear on the files in a pull request's diff: ``file=`` is the file the finding's
line counts in (the manifest, for a manifest line about a listed file), relative to the
working directory (the settings' ``path_prefix``), with ``line=`` and ``col=`` where known.

Capped: GitHub keeps at most 50 annotations of a job (and shows 10 error and 10 warning
annotations of a step; the log shows every one). So at most :data:`MAX_ANNOTATIONS` (48)
findings are annotated (errors first when some must go), then, when any were left out, one
warning saying how many and where to see them all (``--format text`` or ``--format json`` in
the same run, the SARIF upload), then the summary: 50 lines at most. When a level has more
than 10 annotations, the summary says that GitHub's step view shows only the first 10.

Cascade control: a finding blocked by an earlier one (an assertion that read a file whose
digest, presence or parse failed) is still annotated, after the independent ones (so the cap
drops it first), and says which finding it is blocked by; the cause's annotation says how
many findings it blocks.

Archive text goes through :func:`verifier.views.inert.github_data` and
:func:`~verifier.views.inert.github_property`: control characters are visible escapes, and
``%``, CR and LF (and ``:`` and ``,`` in properties) are escaped as the runner expects, so no
text can end a command or start another.
"""

from __future__ import annotations

from types import MappingProxyType

from verifier.findings import Finding, Severity
from verifier.report import Report
from verifier.views.check.text import authenticity_detail
from verifier.views.findings import (
    blocked_by,
    blocked_summary,
    capped,
    cascade,
    cascade_line,
    count_line,
    entry_note,
    sentences,
    verdict_text,
)
from verifier.views.inert import github_data, github_property
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings

COMMAND = MappingProxyType(
    {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}
)
MAX_ANNOTATIONS = 48  # GitHub keeps 50 annotations a job: 48, 'more' and the summary
SHOWN_PER_STEP = 10  # GitHub shows 10 error and 10 warning annotations of a step


def _annotation(
    settings: RenderSettings, finding: Finding, blocked: list[Finding] | None = None
) -> str:
    props = [
        f"file={github_property(settings.ci_path(finding.location_path))}",
        f"title={github_property(finding.code)}",
    ]
    if finding.line is not None:
        props.append(f"line={finding.line}")
        if finding.column is not None:
            props.append(f"col={finding.column}")
    message = finding.message
    if finding.pointer:
        message = f"{finding.pointer}: {message}"
    if finding.at is not None:
        message = f"{finding.path}: {message}"
    message += entry_note(finding, str) + blocked_by(finding)
    if finding.hint:
        message += f" (hint: {finding.hint})"
    if blocked:
        message = sentences(message, blocked_summary(blocked))
    return f"::{COMMAND[finding.severity]} {','.join(props)}::{github_data(message)}"


def render(
    report: Report, settings: RenderSettings = DEFAULT_SETTINGS, limit: int = MAX_ANNOTATIONS
) -> str:
    fail_on = settings.fail_on
    findings = report.findings
    groups = cascade(findings)
    blocks = {id(f): items for f, items in groups}
    ordered = [f for f, _ in groups] + [b for _, items in groups for b in items]
    kept, more = capped(ordered, limit)
    lines = [_annotation(settings, f, blocks.get(id(f))) for f in kept]
    if more:
        lines.append(
            "::warning title=verify-evidence: more findings::"
            + github_data(
                f"{more} more findings are not annotated (GitHub keeps at most 50 annotations "
                f"of a job); verify-evidence check --format text or --format json lists all "
                f"{len(findings)}, and the SARIF upload holds them."
            )
        )
    stages = ", ".join(
        f"{s.stage.value} {report.stage_status(s, fail_on).value}" for s in report.checks
    )
    counted = None
    if findings:
        chained = cascade_line(groups)
        counted = count_line(findings) + (f" ({chained})" if chained else "")
    crowded = [
        s.value
        for s in (Severity.ERROR, Severity.WARNING)
        if sum(1 for f in kept if f.severity is s) > SHOWN_PER_STEP
    ]
    step = None
    if crowded:
        step = (
            f"GitHub's step view shows only the first {SHOWN_PER_STEP} "
            f"{' and '.join(c + 's' for c in crowded)} (the log shows every annotation)"
        )
    summary = sentences(
        f"{verdict_text(report, fail_on)}: {stages}",
        report.summary_line,
        authenticity_detail(report),
        counted,
        step,
    )
    level = "error" if report.fails(fail_on) else "notice"
    lines.append(f"::{level} title=verify-evidence::{github_data(summary)}")
    return "\n".join(lines) + "\n"
