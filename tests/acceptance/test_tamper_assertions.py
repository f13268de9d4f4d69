"""Tampering with the assertion spec and with what it reads, through the real CLI: a spec that
cannot be used is ``assertion.spec-invalid``; a listed record that was removed is reported as
missing, on its own path, by every assertion that reads it; a spec emptied of its assertions,
or records with no spec at all, checked nothing, which is never a pass."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.test_tamper import codes, findings, run_check
from tests.conftest import require_module, rewrite_manifest, write_archive

SPEC = "evidence/assertions.json"
E2 = "evidence/e2-hosted-original/runner-result.json"
E3 = "evidence/e3-hosted-readback/readback.json"


def write_spec(root: Path, text: str) -> None:
    (root / SPEC).write_text(text, encoding="utf-8")
    rewrite_manifest(root)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "could not be parsed as JSON"),
        ('{"assertions": {"a": 1}}', "no 'assertions' array"),
        ('{"assertions": null}', "no 'assertions' array"),
        ("[]", "no 'assertions' array"),
    ],
    ids=["not-json", "object", "null", "array"],
)
def test_a_spec_that_cannot_be_used_is_spec_invalid(archive: Path, text: str, says: str) -> None:
    write_spec(archive, text)
    rc, report = run_check(archive)
    assert rc == 1
    hits = findings(report, "assertion.spec-invalid")
    assert [(f["path"], says in f["message"]) for f in hits] == [(SPEC, True)]
    assert report["assertions"] == []


def test_a_spec_listed_but_missing_is_spec_invalid_and_says_missing(archive: Path) -> None:
    (archive / SPEC).unlink()
    rc, report = run_check(archive)
    assert rc == 1
    assert "manifest.missing" in codes(report)
    hits = findings(report, "assertion.spec-invalid")
    assert len(hits) == 1 and "missing from the archive" in hits[0]["message"]


def test_an_empty_assertion_list_is_vacuous_never_a_pass(archive: Path) -> None:
    spec: dict[str, Any] = json.loads((archive / SPEC).read_text(encoding="utf-8"))
    spec["assertions"] = []
    write_spec(archive, json.dumps(spec))
    rc, report = run_check(archive)
    assert rc == 1
    hits = findings(report, "assertion.vacuous")
    assert [(f["path"], f.get("pointer")) for f in hits] == [(SPEC, "/assertions")]
    consistency = report["stages"][2]
    assert consistency["status"] == "failed"


def test_a_listed_record_that_is_gone_is_missing_on_its_own_path(archive: Path) -> None:
    (archive / E3).unlink()  # the manifest still lists it
    rc, report = run_check(archive)
    assert rc == 1
    assert [f["path"] for f in findings(report, "manifest.missing")] == [E3]
    reading = [a for a in report["assertions"] if any(r["path"] == E3 for r in a["reads"])]
    assert reading and all(a["status"] == "error" for a in reading)
    errors = [f for f in findings(report, "assertion.error") if E3 in f["message"]]
    assert len(errors) == len(reading)
    for finding in errors:
        # e3.instances.pre-reset reads E2 first: the finding must not be filed under E2
        assert finding["path"] == E3, finding
        assert "missing from the archive" in finding["message"]
        assert "not listed" not in finding["message"]


def test_junit_reports_each_assertion_finding_as_the_stage_filed_it(archive: Path) -> None:
    """JUnit takes the consistency stage's own finding for an assertion (its code, path and
    pointer), and puts a finding about the spec as a whole under a case of its own."""
    import xml.etree.ElementTree as ET

    from verifier import verify
    from verifier.views.check import CHECK as FORMATS

    spec: dict[str, Any] = json.loads((archive / SPEC).read_text(encoding="utf-8"))
    spec["assertions"][0]["select"]["pointer"] = "nope"
    write_spec(archive, json.dumps(spec))
    cases = ET.fromstring(FORMATS["junit"](verify(archive))).iter("testcase")
    # an assertion that could not be evaluated is a JUnit <error>, not a <failure> (issue 16)
    errors = {
        c.get("name"): [(f.tag, f.get("type")) for f in c if f.tag in ("failure", "error")]
        for c in cases
    }
    assert errors[spec["assertions"][0]["id"]] == [("error", "assertion.error")]
    spec["assertions"] = []
    write_spec(archive, json.dumps(spec))
    cases = ET.fromstring(FORMATS["junit"](verify(archive))).iter("testcase")
    failures = {c.get("name"): [f.get("type") for f in c.iter("failure")] for c in cases}
    assert failures["assertion spec"] == ["assertion.vacuous"]


def test_records_without_a_spec_are_no_spec_never_a_pass(archive: Path) -> None:
    """A forger deletes the spec and rewrites the manifest: the records' claims went
    unchecked, which is an error, not "nothing to check"."""
    records = [p for p in (archive / "evidence").rglob("*.json") if p.name != "assertions.json"]
    (archive / SPEC).unlink()
    rewrite_manifest(archive)
    rc, report = run_check(archive)
    assert rc == 1
    hits = findings(report, "assertion.no-spec")
    assert [(f["path"], f["severity"]) for f in hits] == [(SPEC, "error")]
    assert f"holds {len(records)} records" in hits[0]["message"]
    assert "--stages integrity,validity" in hits[0]["message"]
    assert codes(report) == {"assertion.no-spec"}
    assert [s["status"] for s in report["stages"]] == ["passed", "passed", "failed"]


def test_records_without_a_spec_pass_when_consistency_is_not_asked_for(archive: Path) -> None:
    (archive / SPEC).unlink()
    rewrite_manifest(archive)
    args = ["check", str(archive), "--format", "json", "--stages", "integrity,validity"]
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    assert [s["status"] for s in report["stages"]] == ["passed", "passed", "skipped"]


def test_one_record_without_a_spec_is_no_spec(tmp_path: Path) -> None:
    """Even a record that names no schema counts: it is a record whose claims nobody checked
    (validity reports its missing schema besides)."""
    root = write_archive(tmp_path / "a", {"evidence/r.json": "{}", "notes.txt": "x\n"})
    rc, report = run_check(root)
    assert rc == 1
    assert codes(report) == {"record.no-schema", "assertion.no-spec"}
    assert "holds 1 record but" in findings(report, "assertion.no-spec")[0]["message"]


def test_a_bag_of_records_without_a_spec_is_no_spec_and_one_of_other_files_passes(
    tmp_path: Path,
) -> None:
    bagit: Any = require_module("bagit")
    plain = write_archive(tmp_path / "plain", {"a.txt": "alpha\n", "sub/b.json": "{}"}, False)
    bagit.make_bag(str(plain))
    rc, report = run_check(plain)
    assert rc == 0, report
    assert [s["status"] for s in report["stages"]] == [
        "passed",
        "nothing-to-check",
        "nothing-to-check",
    ]
    bag = write_archive(tmp_path / "bag", {"evidence/r.json": "{}"}, False)
    bagit.make_bag(str(bag))
    rc, report = run_check(bag)
    assert rc == 1
    assert [f["path"] for f in findings(report, "assertion.no-spec")] == ["data/" + SPEC]
