"""Plain text: one line per stage, the summary line, then the findings, errors first, one
line each under a heading per severity.

Finding lines read ``path[:line][#pointer]: code: message``, the shape editors and CI logs
already link. Archive text is shown through :func:`verifier.views.inert.visible`: a newline
or a control sequence in a name is an escape, never a second line.
"""

from __future__ import annotations

from dataclasses import replace

from verifier.findings import Finding, Severity
from verifier.report import Report, StageResult, StageStatus
from verifier.views.findings import (
    blocked_by,
    blocked_listed,
    blocked_summary,
    by_severity,
    cascade,
    cascade_line,
    count_line,
    finding_line,
    verdict_text,
)
from verifier.views.inert import visible
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings


def stage_detail(stage: StageResult) -> str:
    c = stage.counts
    if stage.stage.value == "integrity":
        withheld = f", {c['withheld']} withheld" if c.get("withheld") else ""
        text = (
            f"{c.get('listed', 0)} listed, {c.get('ok', 0)} ok{withheld}, "
            f"{c.get('bytes', 0)} bytes hashed"
        )
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


def authenticity_detail(report: Report) -> str:
    """The authenticity stage in one line: who signed and how it was checked, what failed,
    or that nothing was checked (archive and trust text made visible by each view)."""
    stage = report.authenticity
    if not report.signatures:
        return stage.note or "no signature checked"
    parts = []
    for check in report.signatures:
        signer = check.verdict.signer if check.verdict.verified else None
        who = f"signed by {signer.line()}" if signer else check.status
        parts.append(f"{check.name}: {who} ({check.verdict.method})")
    return "; ".join(parts)


def authenticity_lines(report: Report, fail_on: Severity) -> list[str]:
    """The authenticity stage: who signed and how it was checked, or that it was not."""
    stage = report.authenticity
    head = f"  {'authenticity':<12} {report.stage_status(stage, fail_on).value:<16} "
    if not report.signatures:
        return [head + visible(stage.note or "no signature checked")]
    verified = stage.counts.get("verified", 0)
    lines = [head + f"{verified} of {len(report.signatures)} signatures verified"]
    for check in report.signatures:
        signer = check.verdict.signer if check.verdict.verified else None
        who = f"signed by {signer.line()}" if signer else check.status
        how = visible(check.verdict.method)
        lines.append(f"  {'':<12} {'':<16} {visible(check.name)}: {visible(who)}; {how}")
        if signer and signer.comment is not None:
            lines.append(f"  {'':<12} {'':<16} trusted comment: {visible(signer.comment)}")
    return lines


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


def acceptance_line(report: Report) -> str | None:
    """What --ignore, --select and --baseline set aside, counted (``None``: none given)."""
    a = report.acceptance
    if a is None:
        return None
    parts = [f"{n} {by}" for by, n in sorted(a.accepted.items()) if n]
    line = f"Accepted, not counted: {a.total} finding(s)" + (
        f" ({', '.join(parts)})" if parts else ""
    )
    if a.baseline is not None:
        entries = "entry" if a.unmatched == 1 else "entries"
        line += f"; baseline {visible(a.baseline)}: {a.unmatched} {entries} matched nothing"
        if a.unchecked:
            line += f", {a.unchecked} of codes not looked for"
    return line + ". The JSON report lists them under each stage's 'accepted'."


#: findings a forgotten ``verify-evidence manifest --write`` explains
MANIFEST_UPDATE = frozenset({"manifest.unlisted", "manifest.mismatch", "manifest.missing"})


def advice_line(report: Report) -> str | None:
    """What to do when the only findings are files added, changed or removed since the
    manifest was written: the usual cause is a manifest not rewritten after an edit. (It is
    also what tampering looks like, so it says to review the change first.)"""
    codes = {f.code for f in report.findings}
    if not codes or not codes <= MANIFEST_UPDATE:
        return None
    return (
        "The only findings are files added, changed or removed since the manifest was "
        "written. If you made these changes, run 'verify-evidence manifest --write' and "
        "review the diff; if you did not, the archive was altered."
    )


def _severity_apart(blocked: Finding, cause: Finding) -> str:
    """``warning: `` before a blocked finding listed under a cause of another severity (the
    list is grouped by its causes' severities)."""
    return "" if blocked.severity is cause.severity else f"{blocked.severity.value}: "


def manifest_details(stage: StageResult) -> list[tuple[str, str]]:
    """``(manifest, counts)`` for each manifest a stage checked apart (a bag of an evidence
    archive: the bag's and the archive's, :attr:`StageResult.manifests`), as every human
    view shows them under the stage; ``[]`` for one manifest. The name is archive text."""
    return [
        (name, stage_detail(replace(stage, counts=counts, findings=[])))
        for name, counts in stage.manifests.items()
    ]


def render(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> str:
    fail_on = settings.fail_on
    scope = ", ".join(visible(s) if s == "." else visible(s) + "/" for s in report.scope)
    lines = [
        f"verify-evidence {report.tool_version}: {visible(report.manifest)} "
        f"(unlisted files looked for in: {scope or '(none)'})"
    ]
    lines.extend(authenticity_lines(report, fail_on))
    for stage in report.stages:
        status = report.stage_status(stage, fail_on).value
        lines.append(f"  {stage.stage.value:<12} {status:<16} {stage_detail(stage)}")
        if stage.note:
            lines.append(f"  {'':<12} {'':<16} {visible(stage.note)}")
        for name, detail in manifest_details(stage):
            lines.append(f"  {'':<12} {'':<16} {visible(name)}: {detail}")
    lines.append(report.summary_line)
    unchecked = unchecked_line(report)
    if unchecked:
        lines.append(unchecked)
    lines.append(f"Verdict: {verdict_text(report, fail_on)}.")
    if report.configuration is not None:
        set_ = ", ".join(report.configuration["settings"]) or "nothing"
        lines.append(f"Configuration {visible(report.configuration['file'])} set: {set_}.")
    accepted = acceptance_line(report)
    if accepted:
        lines.append(accepted)
    advice = advice_line(report)
    findings = report.findings
    if findings:
        groups = cascade(findings)
        blocked = {id(f): items for f, items in groups}
        chained = cascade_line(groups)
        lines.append(count_line(findings) + (f"; {chained}" if chained else "") + ":")
        for severity, items in by_severity([f for f, _ in groups]):
            lines.append(f"{severity.value}s:")
            for f in items:
                lines.append(finding_line(f) + visible(blocked_by(f)))
                if blocked[id(f)]:
                    lines.append(f"  {blocked_summary(blocked[id(f)])}:")
                    listed, more = blocked_listed(blocked[id(f)], settings.all_blocked)
                    lines.extend(f"    {_severity_apart(b, f)}{finding_line(b)}" for b in listed)
                    if more:
                        lines.append(f"    {more}")
        if advice:
            lines.append(advice)
    else:
        lines.append("No findings.")
    return "\n".join(lines) + "\n"
