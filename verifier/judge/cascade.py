"""Cascade control (issue 16): a finding caused by an earlier one is marked as blocked by it.

One appended byte in one record used to read as a dozen independent failures: its digest,
its parse, and every assertion and catalogue cell that read it. The cause is the finding
that made a file unusable, reported by an earlier stage about that file:

- an integrity error on it (its digest differs, it is missing, unreadable, refused, not a
  regular file, unlisted...), or its publisher withholds it (``manifest.withheld``), or else
- a validity finding on it when it did not parse as a record (not JSON, a duplicate key
  that made it unusable, ...): the file is not among the parsed records.

A consistency finding is a consequence when a file it depends on has a cause: the file it is
filed on, every file its assertion read, and for a catalogue cell that did not resolve, the
file the cell selects from. The consequence keeps its code, path, pointer and message (the
JSON report lists it as before) and gains :class:`verifier.findings.Cause`, naming the first
cause (integrity before validity, then the report's order). The human views show the cause
once with how many findings it blocked.

What it does not do: it never drops a finding or changes a severity, a stage's status or the
exit code; a finding that is not a consequence of another (an assertion failing on a file
whose digest matched) is never marked; validity findings are never marked (a record's own
parse and schema findings are facts about it, not consequences of its digest).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from verifier.findings import Cause, Finding, Related, Severity, Stage
from verifier.fingerprint import fingerprint
from verifier.plan.cases import entry_pointer
from verifier.report import Report
from verifier.values.records import Records

#: consistency codes never marked: a baseline entry matching nothing is about the baseline
_NEVER = frozenset({"baseline.unmatched", "baseline.no-digest"})


def _file_causes(report: Report, records: Records) -> dict[str, Finding]:
    """path -> the finding that made that file unusable (integrity first, then validity)."""
    causes: dict[str, Finding] = {}
    for finding in sorted(report.integrity.findings, key=Finding.sort_key):
        unusable = finding.severity is Severity.ERROR or finding.code == "manifest.withheld"
        if unusable and finding.path not in causes:
            causes[finding.path] = finding
    for finding in sorted(report.validity.findings, key=Finding.sort_key):
        if finding.path in causes or finding.path in records:
            continue  # parsed: its own findings do not block what read it
        if finding.severity is Severity.ERROR and finding.code.startswith("record."):
            causes[finding.path] = finding
    return causes


def _tokens(pointer: str) -> list[str]:
    if not pointer.startswith("/"):
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _selected_file(document: Any, pointer: str) -> str | None:
    """The ``file`` of the catalogue selector that ``pointer`` (a catalogue finding's) is in
    or under: the nearest ancestor holding one, or its ``select``/``count``/
    ``preregistered`` member."""
    node = document
    chain: list[Any] = [node]
    for token in _tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
        chain.append(node)
    for node in reversed(chain):
        if not isinstance(node, dict):
            continue
        if isinstance(node.get("file"), str):
            return str(node["file"])
        for key in ("select", "count", "preregistered"):
            chosen = node.get(key)
            if isinstance(chosen, dict) and isinstance(chosen.get("file"), str):
                return str(chosen["file"])
    return None


def _depends_on(
    finding: Finding, reads: Mapping[Finding, Iterable[str]], report: Report, records: Records
) -> list[str]:
    paths = [finding.path, *reads.get(finding, ())]
    if finding.code == "catalogue.unresolved" and finding.pointer is not None:
        catalogue = records.document(finding.path)
        file = _selected_file(catalogue, finding.pointer) if catalogue is not None else None
        if file is not None:
            paths.append(report.content_path(file))
    return paths


def relate_entries(report: Report, records: Records, spec_path: str) -> int:
    """Give every assertion's finding filed outside the spec (on the record it read) the
    spec entry it came from as :attr:`Finding.related` (``spec_path#/assertions/N``; the
    results are in spec order, one per entry). In place; returns how many."""
    marked: dict[Finding, Finding] = {}
    shell: Any = None
    for index, result in enumerate(report.assertions):
        finding = result.finding
        if finding is None or finding.path == spec_path or finding.related is not None:
            continue
        if shell is None:  # (a rule's instance is written at its rule: /rules/R)
            shell = records.shell(spec_path) or {}
        entry = entry_pointer(shell, index)
        marked[finding] = replace(finding, related=Related(spec_path, entry))
    return _mark(report, marked)


def _mark(report: Report, marked: dict[Finding, Finding]) -> int:
    """Each finding of ``marked`` replaced, in the stage and in its assertion; how many."""
    report.consistency.findings[:] = [marked.get(f, f) for f in report.consistency.findings]
    report.assertions[:] = [
        replace(a, finding=marked[a.finding]) if a.finding in marked else a
        for a in report.assertions
    ]
    return len(marked)


def cause_of(finding: Finding) -> Cause:
    """The :class:`Cause` naming ``finding``."""
    return Cause(finding.code, finding.path, finding.pointer, fingerprint(finding))


def link_causes(report: Report, records: Records) -> int:
    """Mark every consistency finding caused by an earlier one (in place: the stage's
    findings and the assertions' own findings alike; ``records``: the report's, by its
    paths); returns how many were marked."""
    causes = _file_causes(report, records)
    if not causes:
        return 0
    reads: dict[Finding, list[str]] = {}
    for result in report.assertions:
        if result.finding is not None:
            reads.setdefault(result.finding, []).extend(r.path for r in result.reads)
    _order = {Stage.INTEGRITY: 0, Stage.VALIDITY: 1}
    marked: dict[Finding, Finding] = {}
    for finding in report.consistency.findings:
        if finding.code in _NEVER or finding.cause is not None:
            continue
        found = [causes[p] for p in _depends_on(finding, reads, report, records) if p in causes]
        if not found:
            continue
        first = min(found, key=lambda f: (_order.get(f.stage, 2), f.sort_key()))
        marked[finding] = replace(finding, cause=cause_of(first))
    return _mark(report, marked)


__all__ = ["cause_of", "link_causes", "relate_entries"]
