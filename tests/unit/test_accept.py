"""Acceptance (issue 16): --ignore/--select by code, baselines matched by code, path, pointer
and fingerprint; accepted findings are kept, marked and counted, never dropped; a stale
baseline entry is a finding; unknown codes and bad baseline files are refused up front."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.acceptance.test_formats import tampered
from tests.conftest import REPO
from tests.hostile.harness import validate_report
from verifier.accept.apply import NO_DIGEST, UNMATCHED, accept
from verifier.accept.baseline import (
    Baseline,
    Subjects,
    entry_of,
    parse_baseline,
    render_baseline,
)
from verifier.errors import UsageError
from verifier.findings import Finding
from verifier.fingerprint import fingerprint
from verifier.pipeline import Options, verify
from verifier.report import Report
from verifier.values.selection import Selection, parse_codes

BASELINE_SCHEMA = REPO / "verifier" / "schemas" / "baseline.schema.json"


def codes(report: Report) -> list[str]:
    return sorted(f.code for f in report.findings)


def written(report: Report) -> str:
    """The baseline ``check --write-baseline`` writes for ``report``'s findings."""
    subjects = Subjects(report)
    return render_baseline(subjects.entry(f) for f in report.findings)


def accepted(report: Report) -> list[tuple[str, str]]:
    return sorted((a.finding.code, a.by) for s in report.stages for a in s.accepted)


@pytest.fixture
def broken(archive: Path) -> Path:
    return tampered(archive)


def test_unknown_codes_are_refused_with_a_suggestion() -> None:
    with pytest.raises(UsageError, match=r"--ignore manifest\.unlistd: not a finding code; "
                       r"did you mean 'manifest\.unlisted'"):  # fmt: skip
        parse_codes(["manifest.unlistd"], "--ignore")
    with pytest.raises(UsageError, match="not a finding code"):
        parse_codes(["coverage.uncovered"], "--select")  # not a check's code
    with pytest.raises(UsageError):
        verify(REPO, Options(ignore=frozenset({"nope.nope"})))
    assert parse_codes(["manifest.unlisted, assertion.failed", ""], "--ignore") == {
        "manifest.unlisted",
        "assertion.failed",
    }
    group = parse_codes(["bag"], "--select")
    assert group and all(c.startswith("bag.") for c in group)


def test_ignore_moves_findings_to_accepted_and_counts_them(broken: Path) -> None:
    plain = verify(broken)
    assert "manifest.unlisted" in codes(plain)
    report = verify(broken, Options(ignore=frozenset({"manifest.unlisted"})))
    assert "manifest.unlisted" not in codes(report)
    assert ("manifest.unlisted", "ignored") in accepted(report)
    assert len(report.findings) + len(accepted(report)) == len(plain.findings)
    data = report.to_dict()
    validate_report(data)
    assert data["acceptance"]["accepted"]["ignored"] == 1
    listed = [a for s in data["stages"] for a in s.get("accepted", [])]
    assert listed[0]["acceptedBy"] == "ignored"
    assert listed[0]["finding"]["code"] == "manifest.unlisted"


def test_select_counts_only_its_codes(broken: Path) -> None:
    report = verify(broken, Options(select=frozenset({"manifest.unlisted"})))
    assert codes(report) == ["manifest.unlisted"]
    assert {by for _, by in accepted(report)} == {"not-selected"}
    assert report.integrity.status.value == "failed"
    validate_report(report.to_dict())


def test_everything_ignored_passes_but_nothing_is_hidden(broken: Path) -> None:
    plain = verify(broken)
    everything = frozenset(f.code for f in plain.findings)
    report = verify(broken, Options(ignore=everything))
    assert report.ok and not report.findings
    assert len(accepted(report)) == len(plain.findings)


def test_a_baseline_accepts_exactly_its_findings(broken: Path) -> None:
    plain = verify(broken)
    baseline = parse_baseline(written(plain).encode(), "b.json")
    report = accept(plain, Selection(), baseline)
    assert report.ok and not report.findings
    assert report.acceptance is not None
    assert report.acceptance.accepted["baseline"] == len(plain.findings)
    assert report.acceptance.unmatched == 0
    validate_report(report.to_dict())


def test_a_changed_finding_is_not_accepted_and_its_entry_is_reported(broken: Path) -> None:
    plain = verify(broken)
    baseline = parse_baseline(written(plain).encode(), "b.json")
    # the same file tampered differently: another digest, so another finding
    path = broken / "evidence/e2-hosted-original/runner-result.json"
    path.write_bytes(path.read_bytes() + b" ")
    report = verify(broken, Options(baseline=baseline))
    assert "manifest.mismatch" in codes(report)
    stale = [f for f in report.findings if f.code == UNMATCHED]
    # the mismatch's entry, and the entries of the two assertion findings read from those
    # bytes (they were accepted for the bytes before the change: they count again)
    assert len(stale) == 3
    assert {f.path for f in stale} == {"evidence/e2-hosted-original/runner-result.json"}
    assert stale[0].severity.value == "warning"
    assert codes(report).count("assertion.failed") == 2
    assert report.acceptance is not None and report.acceptance.unmatched == 3
    validate_report(report.to_dict())


def test_a_fixed_finding_leaves_a_warning_that_fail_on_warning_catches(broken: Path) -> None:
    plain = verify(broken)
    baseline = parse_baseline(written(plain).encode(), "b.json")
    (broken / "evidence/stray, name: 100%.json").unlink()
    report = verify(broken, Options(baseline=baseline))
    assert UNMATCHED in codes(report)
    from verifier.findings import Severity

    assert not report.fails(Severity.ERROR) or "manifest.mismatch" in codes(report)
    assert report.fails(Severity.WARNING)


def test_entries_of_stages_not_run_are_not_stale(broken: Path) -> None:
    plain = verify(broken)
    baseline = parse_baseline(written(plain).encode(), "b.json")
    report = verify(broken, Options(baseline=baseline, stages=frozenset({"integrity"})))
    assert UNMATCHED not in codes(report)
    assert report.acceptance is not None and report.acceptance.unchecked >= 1


def test_one_entry_accepts_one_finding() -> None:
    f = Finding("manifest.unlisted", "a.json", "unlisted")
    report = verify(REPO)
    report.integrity.findings.extend([f, f])
    baseline = Baseline("b", (entry_of(f),))
    out = accept(report, Selection(), baseline)
    assert [x.code for x in out.findings] == ["manifest.unlisted"]


def test_fingerprints_are_stable_and_ignore_the_line() -> None:
    a = Finding("manifest.mismatch", "x", "SHA-256 is 00", line=3)
    b = Finding("manifest.mismatch", "x", "SHA-256 is  00", line=9)
    assert fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint(Finding("manifest.mismatch", "x", "SHA-256 is 01"))
    assert fingerprint(a) != fingerprint(Finding("manifest.mismatch", "y", "SHA-256 is 00"))
    assert fingerprint(a) == "v1:" + fingerprint(a)[3:] and len(fingerprint(a)) == 35


def test_the_written_baseline_fits_its_schema(broken: Path) -> None:
    text = written(verify(broken))
    assert text.isascii()
    schema = json.loads(BASELINE_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(json.loads(text))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"[]", "a JSON object"),
        (b'{"baselineVersion": 2, "findings": []}', "baselineVersion must be 1"),
        (b'{"baselineVersion": 1, "findings": {}}', "/findings must be an array"),
        (b'{"baselineVersion": 1, "findings": [], "x": 1}', 'unknown key "x"'),
        (
            b'{"baselineVersion": 1, "findings": [{"code": "nope.x", "path": "a", '
            b'"fingerprint": "v1:0"}]}',
            "is not a finding code",
        ),
        (b'{"baselineVersion": 1, "findings": [{"code": "manifest.unlisted"}]}', "/path must"),
        (b'{"baselineVersion": 1, "baselineVersion": 1, "findings": []}', "strict JSON"),
        (b"\xff", "strict JSON"),
    ],
)
def test_bad_baseline_files_are_refused(text: bytes, why: str) -> None:
    with pytest.raises(UsageError, match="--baseline b.json: .*" + why.replace("/", ".")):
        parse_baseline(text, "b.json")


def test_an_assertion_reading_several_files_is_pinned_to_all_of_them(broken: Path) -> None:
    """An assertion's finding is filed on one record but judged on every file it read: its
    entry's digest covers them all (the sha256sum lines of what it read)."""
    plain = verify(broken)
    subjects = Subjects(plain)
    several = [
        a for a in plain.assertions if a.finding is not None and len({r.path for r in a.reads}) > 1
    ]
    assert several, "the tampered archive has an assertion reading two files"
    result = several[0]
    assert result.finding is not None
    files = {f.path: f.sha256 for f in plain.files}
    read = sorted({r.path for r in result.reads} | {result.finding.path})
    lines = "".join(f"{files[p]}  {p}\n" for p in read)
    import hashlib

    assert subjects.digest(result.finding) == hashlib.sha256(lines.encode()).hexdigest()
    # a finding on one file is pinned to that file's own SHA-256
    unlisted = next(f for f in plain.findings if f.code == "manifest.unlisted")
    assert subjects.digest(unlisted) == files[unlisted.path]
    # and one about no bytes the run read (a missing file) to none
    assert subjects.digest(Finding("manifest.missing", "gone.json", "missing")) is None
    # the manifest's own findings are pinned to the manifest's bytes
    assert subjects.digest(Finding("manifest.malformed", "manifest.sha256", "x")) == (
        plain.manifest_sha256
    )


def test_an_entry_without_a_digest_still_accepts_a_finding_about_no_bytes() -> None:
    report = verify(REPO)
    missing = Finding("manifest.missing", "gone.json", "missing")
    report.integrity.findings.append(missing)
    out = accept(report, Selection(), Baseline("b", (entry_of(missing),)))
    assert not out.findings and out.passed


def test_an_entry_without_a_digest_for_bytes_is_a_no_digest_finding(broken: Path) -> None:
    plain = verify(broken)
    unlisted = next(f for f in plain.findings if f.code == "manifest.unlisted")
    out = accept(plain, Selection(), Baseline("b", (entry_of(unlisted),)))
    assert "manifest.unlisted" in codes(out) and NO_DIGEST in codes(out)
    assert UNMATCHED not in codes(out)
    assert out.acceptance is not None and out.acceptance.unmatched == 0
    validate_report(out.to_dict())
    # a wrong digest in the file is refused when read
    text = written(plain).replace('"sha256": "', '"sha256": "X', 1)
    with pytest.raises(UsageError, match="sha256 must be 64 lowercase hex digits"):
        parse_baseline(text.encode(), "b.json")
