"""How every view writes a finding (:class:`verifier.findings.Finding`, the one finding type of
check, coverage, table and transcript reports): its location ``path[:line][#pointer]``, its
line ``location: code: message (hint: ...)``, and findings grouped and counted by severity.
Archive text goes through :func:`verifier.views.inert.visible`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from verifier.findings import Finding, Severity
from verifier.views.inert import visible

if TYPE_CHECKING:
    from verifier.report import Report


def verdict_text(report: Report, fail_on: Severity) -> str:
    """The run's verdict as every view words it, from :meth:`Report.verdict` (the exit
    code's rule): ``passed`` (with how many findings were accepted, when any were), or
    ``FAILED`` with what failed it (its errors, or what ``--fail-on`` counted)."""
    if not report.fails(fail_on):
        accepted = len(report.accepted)
        if not accepted:
            return "passed"
        return f"passed, with {accepted} finding{'s' if accepted != 1 else ''} accepted"
    failing = report.failing(fail_on)
    errors = sum(1 for f in failing if f.severity is Severity.ERROR)
    if errors == len(failing):
        return f"FAILED ({errors} error{'s' if errors != 1 else ''})"
    plural = "s" if len(failing) != 1 else ""
    return f"FAILED ({len(failing)} finding{plural} at --fail-on {fail_on.value} or above)"


def line_column(finding: Finding) -> str:
    """``:line`` or ``:line:column``, or nothing when the finding has no line."""
    if finding.line is None:
        return ""
    return f":{finding.line}" + (f":{finding.column}" if finding.column is not None else "")


def location(finding: Finding, show: Callable[[str], str] = visible) -> str:
    """``path[:line][#pointer]``, and a pointer's place after it: ``path#pointer (line 3,
    column 7)``; a finding placed on a line of another file (a manifest line about a listed
    file) reads ``path (manifest:line)``. Archive text goes through ``show`` (a format that
    escapes its own text passes ``str``)."""
    where = show(finding.path)
    if finding.at is not None:
        where += f" ({show(finding.at)}{line_column(finding)})"
    elif finding.pointer is None or finding.line is None:
        where += line_column(finding)
    if finding.pointer is not None:
        where += f"#{show(finding.pointer)}"
        if finding.line is not None and finding.at is None:
            where += f" (line {finding.line}"
            where += f", column {finding.column})" if finding.column is not None else ")"
    return where


def entry_note(finding: Finding, show: Callable[[str], str] = visible) -> str:
    """`` [spec entry evidence/assertions.json#/assertions/8, line 120, column 5]``: where the
    assertion behind a finding filed on a record is declared (nothing for other findings);
    `` [against data/manifest.sha256]``: the manifest it is against, when a run checked more
    than one (a bag of an archive)."""
    against = f" [against {show(finding.manifest)}]" if finding.manifest is not None else ""
    related = finding.related
    if related is None:
        return against
    where = f"{show(related.path)}#{show(related.pointer)}"
    if related.line is not None:
        where += f", line {related.line}"
        if related.column is not None:
            where += f", column {related.column}"
    return f" [spec entry {where}]{against}"


def finding_line(finding: Finding) -> str:
    line = f"{location(finding)}: {finding.code}: {visible(finding.message)}{entry_note(finding)}"
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


def sentences(*parts: str | None) -> str:
    """Parts written as sentences, in order: each ends with a full stop (one is added only to
    a part that ends no sentence already), then one space; empty parts are left out. Never
    ``.;`` or ``..`` where one part's sentence meets the next."""
    out = []
    for part in parts:
        text = (part or "").strip()
        if text:
            out.append(text if text.endswith((".", "!", "?")) else text + ".")
    return " ".join(out)


def count_line(findings: Sequence[HasSeverity]) -> str:
    """``3 finding(s) (2 error(s), 1 note(s))``."""
    parts = [f"{len(items)} {s.value}(s)" for s, items in by_severity(findings)]
    return f"{len(findings)} finding(s) ({', '.join(parts)})"


def capped(findings: list[Finding], limit: int) -> tuple[list[Finding], int]:
    """At most ``limit`` findings, errors first, then warnings, then notes (each group in
    the report's order; the report's order untouched when nothing is left out), and how
    many were left out. For formats whose platforms cap what they take (SARIF, GitHub)."""
    if len(findings) <= limit:
        return findings, 0
    ordered = [f for _, items in by_severity(findings) for f in items]
    return ordered[:limit], len(findings) - limit


def _cause_key(finding: Finding) -> tuple[str, str, str | None, str]:
    from verifier.fingerprint import fingerprint

    return (finding.code, finding.path, finding.pointer, fingerprint(finding))


def cascade(findings: Sequence[Finding]) -> list[tuple[Finding, list[Finding]]]:
    """Cascade control in a view: every finding that is not blocked by another of
    ``findings``, in order, each with the findings it blocks (in order). A blocked finding
    whose cause is not among ``findings`` (accepted, or left out by a cap) stands alone."""
    wanted = {
        (f.cause.code, f.cause.path, f.cause.pointer, f.cause.fingerprint): f.cause
        for f in findings
        if f.cause is not None
    }
    if not wanted:
        return [(f, []) for f in findings]
    near = {k[:3] for k in wanted}
    heads: dict[tuple[str, str, str | None, str], Finding] = {}
    for f in findings:
        if f.cause is None and (f.code, f.path, f.pointer) in near:
            heads.setdefault(_cause_key(f), f)
    blocked: dict[int, list[Finding]] = {}
    for f in findings:
        if f.cause is not None:
            head = heads.get((f.cause.code, f.cause.path, f.cause.pointer, f.cause.fingerprint))
            if head is not None:
                blocked.setdefault(id(head), []).append(f)
    shown = {id(f) for items in blocked.values() for f in items}
    return [(f, blocked.get(id(f), [])) for f in findings if id(f) not in shown]


def blocked_summary(blocked: Sequence[Finding]) -> str:
    """``28 findings blocked by it (23 assertion.error, 5 catalogue.unresolved)``."""
    counts: dict[str, int] = {}
    for f in blocked:
        counts[f.code] = counts.get(f.code, 0) + 1
    parts = ", ".join(f"{n} {code}" for code, n in sorted(counts.items()))
    noun = "finding" if len(blocked) == 1 else "findings"
    return f"{len(blocked)} {noun} blocked by it ({parts})"


ALL_BLOCKED = "--all-blocked"  # the option that lists every blocked finding under its cause


def blocked_listed(blocked: list[Finding], every: bool) -> tuple[list[Finding], str | None]:
    """The findings a cause blocks that a human view lists under it (every one, or at most
    :data:`~verifier.views.check.BLOCKED_SHOWN`), and, when some are left out, a line
    counting them and naming the option that lists them all."""
    from verifier.views.check import BLOCKED_SHOWN as shown

    if every or len(blocked) <= shown:
        return blocked, None
    rest = len(blocked) - shown
    return blocked[:shown], (
        f"and {rest} more blocked by it: {ALL_BLOCKED} lists every one (so does --format json)"
    )


def blocked_by(finding: Finding) -> str:
    """`` (blocked by manifest.missing on path)`` for a blocked finding shown alone (archive
    text as it is: each view makes it inert its own way)."""
    if finding.cause is None:
        return ""
    return f" (blocked by {finding.cause.code} on {finding.cause.path})"


def cascade_line(groups: Sequence[tuple[Finding, list[Finding]]]) -> str | None:
    """``; 28 of them blocked by 1 earlier finding, listed under it`` (None: none blocked)."""
    blocked = sum(len(items) for _, items in groups)
    if not blocked:
        return None
    causes = sum(1 for _, items in groups if items)
    noun = "finding" if causes == 1 else "findings"
    return f"{blocked} of them blocked by {causes} earlier {noun}, shown under it"
