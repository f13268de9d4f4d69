"""JUnit XML: a test suite per stage; a test case per file checked (integrity, validity) and
per assertion (consistency). A finding that fails the run (severity error, or what
``--fail-on`` counts: the exit code's rule) becomes a ``<failure>`` of its test case, or an
``<error>`` when the check could not be evaluated (``assertion.error``,
``assertion.internal-error``); lesser findings are listed in the case's ``<system-out>``. So
the suites count a failure exactly when the run exits 1.

A test case whose only errors are blocked by an earlier finding (cascade control: an
assertion that read a file whose digest, presence or parse failed) is ``<skipped>``, naming
the cause, which fails its own case once; a case with errors of its own lists its blocked
ones in ``<system-out>``.

Archive text goes through :func:`verifier.views.inert.xml_text` (visible escapes for
control and format characters, then XML escaping): the output holds only characters XML 1.0
allows and parses with any XML parser. Deterministic: sorted cases, ``time="0"``, no
timestamps or host names.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from itertools import chain

from verifier.findings import Finding, Severity, Stage
from verifier.report import AssertionResult, AssertionStatus, Report
from verifier.views.clean import lines_in_parts
from verifier.views.findings import blocked_by, cascade, location
from verifier.views.inert import xml_attr as quoteattr
from verifier.views.inert import xml_text as escape
from verifier.views.interface import DEFAULT_SETTINGS, RenderSettings

Case = tuple[str, list[Finding]]


def _body(finding: Finding) -> str:
    where = location(finding, str)
    body = f"{where}: {finding.code}: {finding.message}"
    if finding.hint:
        body += f" (hint: {finding.hint})"
    return body


#: codes that say a check could not be evaluated (not that it failed): JUnit ``<error>``
EVALUATION_ERRORS = frozenset({"assertion.error", "assertion.internal-error"})


def _is_error(finding: Finding) -> bool:
    return finding.code in EVALUATION_ERRORS


def _failure(finding: Finding) -> str:
    tag = "error" if _is_error(finding) else "failure"
    return (
        f"      <{tag} message={quoteattr(finding.message)} "
        f"type={quoteattr(finding.code)}>{escape(_body(finding))}</{tag}>"
    )


def _errors(found: list[Finding], fail_on: Severity) -> list[Finding]:
    """The findings that fail the run (the verdict's rule: they reach ``--fail-on``)."""
    return [f for f in found if f.severity.reaches(fail_on)]


def _live(found: list[Finding], blocked: frozenset[Finding], fail_on: Severity) -> list[Finding]:
    """The failing findings of a case that are not blocked by a finding the report shows."""
    return [f for f in _errors(found, fail_on) if f not in blocked]


def _counts(
    cases: list[Case], fail_on: Severity, blocked: frozenset[Finding] = frozenset()
) -> tuple[int, int, int]:
    """(failures, errors, skipped): the cases with a ``<failure>``, those with an
    ``<error>``, and those whose only failing findings are blocked by an earlier one."""
    live = [(_live(f, blocked, fail_on), f) for _, f in cases]
    failures = sum(1 for x, _ in live if any(not _is_error(y) for y in x))
    errors = sum(1 for x, _ in live if any(_is_error(y) for y in x))
    skipped = sum(1 for x, f in live if _errors(f, fail_on) and not x)
    return failures, errors, skipped


def _suite(
    name: str, cases: list[Case], fail_on: Severity, blocked: frozenset[Finding] = frozenset()
) -> Iterator[str]:
    """The suite's lines, one at a time (a suite of 100,000 files is not held as lines)."""
    failures, errors, skipped = _counts(cases, fail_on, blocked)
    yield (
        f'  <testsuite name={quoteattr(name)} tests="{len(cases)}" failures="{failures}" '
        f'errors="{errors}" skipped="{skipped}" time="0">'
    )
    classname = quoteattr(name)
    for case_name, found in cases:
        head = f'    <testcase name={quoteattr(case_name)} classname={classname} time="0"'
        if not found:
            yield head + "/>"
            continue
        yield head + ">"
        live = _live(found, blocked, fail_on)
        yield from (_failure(f) for f in live)
        held = [f for f in _errors(found, fail_on) if f in blocked]
        if held and not live:
            why = "; ".join(dict.fromkeys(blocked_by(f).strip(" ()") for f in held))
            yield f"      <skipped message={quoteattr(why)}/>"
        lesser = [f for f in found if not f.severity.reaches(fail_on)]
        shown = [*(f for f in held if live), *lesser]
        if shown:
            text = "\n".join(
                escape(f"{f.severity.value}: {_body(f)}{blocked_by(f)}") for f in shown
            )
            yield f"      <system-out>{text}</system-out>"
        yield "    </testcase>"
    yield "  </testsuite>"


def _assertion_failures(result: AssertionResult) -> list[Finding]:
    if result.status is AssertionStatus.PASSED:
        return []
    if result.finding is not None:  # the consistency stage's own finding for it
        return [result.finding]
    first = result.reads[0] if result.reads else None
    code = "assertion.failed" if result.status is AssertionStatus.FAILED else "assertion.error"
    return [
        Finding(
            code,
            first.path if first else "",
            f"{result.id}: {result.message}.",
            pointer=first.pointer if first else None,
        )
    ]


def _by_path(findings: list[Finding], paths: Iterable[str], rest: str) -> list[Case]:
    grouped: dict[str, list[Finding]] = defaultdict(list)
    known = set(paths)
    for finding in findings:
        grouped[finding.path if finding.path in known else rest].append(finding)
    cases = [(p, grouped.get(p, [])) for p in sorted(known)]
    if grouped.get(rest):
        cases.append((rest, grouped[rest]))
    return cases


def _authenticity(
    report: Report, found: list[Finding], fail_on: Severity
) -> tuple[list[str], int, int]:
    """The authenticity suite (its lines, tests and failures): a case per signature, its
    signer and method as the suite's properties; no signature and none required is one
    skipped case (not checked is not a pass)."""
    from verifier.views.check.text import authenticity_detail

    stage = report.authenticity
    head = '  <testsuite name="authenticity"'
    props = [
        "    <properties>",
        f'      <property name="signatures" value={quoteattr(authenticity_detail(report))}/>',
        "    </properties>",
    ]
    if not report.signatures and not found:
        note = stage.note or "not checked"
        return (
            [
                f'{head} tests="1" failures="0" errors="0" skipped="1" time="0">',
                *props,
                '    <testcase name="manifest signature" classname="authenticity" time="0">',
                f"      <skipped message={quoteattr(note)}/>",
                "    </testcase>",
                "  </testsuite>",
            ],
            1,
            0,
        )
    names = [c.name for c in report.signatures]
    cases = _by_path(found, names, "manifest signature")
    lines = list(_suite("authenticity", cases, fail_on))
    lines[1:1] = props
    return lines, len(cases), sum(1 for _, f in cases if _errors(f, fail_on))


def render(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> str:
    return "".join(render_parts(report, settings))


def render_parts(report: Report, settings: RenderSettings = DEFAULT_SETTINGS) -> Iterator[str]:
    """:func:`render`'s text in parts: a few thousand lines at a time (a case per file, per
    record and per assertion: 27 MB of XML at 100,000 records, which whole, as lines and as
    one text, took 320 MB at its peak)."""
    fail_on = settings.fail_on
    by_stage: dict[Stage, list[Finding]] = defaultdict(list)
    for finding in report.findings:
        by_stage[finding.stage].append(finding)
    listed = [f.path for f in report.files if f.listed]
    integrity = _by_path(by_stage[Stage.INTEGRITY], listed, "manifest")
    validity = _by_path(by_stage[Stage.VALIDITY], report.selected.parsed, "schemas")
    consistency: list[Case] = [(a.id, _assertion_failures(a)) for a in report.assertions]
    own = {a.finding for a in report.assertions if a.finding is not None}
    spec_problems = [
        f
        for f in by_stage[Stage.CONSISTENCY]
        if f.code.startswith("assertion.") and f not in own  # the spec's, not an assertion's
    ]
    if spec_problems:
        consistency.append(("assertion spec", spec_problems))
    catalogue = [f for f in by_stage[Stage.CONSISTENCY] if f.code.startswith("catalogue.")]
    if catalogue:
        consistency.append(("case catalogue", catalogue))
    suites = (("integrity", integrity), ("validity", validity), ("consistency", consistency))
    signed, signed_tests, signed_failures = _authenticity(
        report, by_stage[Stage.AUTHENTICITY], fail_on
    )
    tests = signed_tests + sum(len(cases) for _, cases in suites)
    held = frozenset(f for _, items in cascade(report.findings) for f in items)
    counted = [_counts(cases, fail_on, held) for _, cases in suites]
    failures = signed_failures + sum(c[0] for c in counted)
    errors = sum(c[1] for c in counted)
    lines = chain(
        (
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<testsuites name="verify-evidence" tests="{tests}" failures="{failures}" '
            f'errors="{errors}" time="0">',
            *signed,
        ),
        *(_suite(name, cases, fail_on, held) for name, cases in suites),
        ("</testsuites>",),
    )
    return lines_in_parts(lines, _PART_LINES)


_PART_LINES = 4096  # lines written at a time by render_parts
