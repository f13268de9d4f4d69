"""Findings about an assertion point at its entry in the spec (issue 16):
``evidence/assertions.json#/assertions/8``, with the entry's line and column. A finding the
consistency stage files on the record the assertion read keeps that path and pointer (the
suite pins them) and names the entry in ``related``; a finding about the entry itself (an
unknown kind, a malformed parameter) is filed on the spec at the entry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.acceptance.test_formats import sarif_validator
from tests.acceptance.test_tamper import run_check
from tests.conftest import REPO, rewrite_manifest
from verifier import verify
from verifier.json.positions import positions
from verifier.views.check import CHECK

SPEC = "evidence/assertions.json"
E2 = "evidence/e2-hosted-original/runner-result.json"


def _counter(archive: Path) -> None:
    path = archive / E2
    data = json.loads(path.read_text(encoding="utf-8"))
    data["counters"]["stripeCreateRequests"] = 2
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    rewrite_manifest(archive)


def _entry_of(archive: Path, assertion_id: str) -> tuple[str, int, int]:
    data = (archive / SPEC).read_bytes()
    spec: dict[str, Any] = json.loads(data)
    (index,) = [i for i, a in enumerate(spec["assertions"]) if a["id"] == assertion_id]
    pointer = f"/assertions/{index}"
    at = positions(data, [pointer])[pointer]
    return pointer, at.line, at.column


def test_a_failure_on_a_record_names_its_spec_entry_with_line_and_column(archive: Path) -> None:
    _counter(archive)
    rc, report = run_check(archive)
    assert rc == 1
    failed = [f for f in report["findings"] if f["code"] == "assertion.failed"]
    assert failed
    for f in failed:
        assert f["path"] != SPEC  # still filed on the record it read
        assertion_id = f["message"].split(":", 1)[0]
        pointer, line, column = _entry_of(archive, assertion_id)
        assert f["related"] == {"path": SPEC, "pointer": pointer, "line": line, "column": column}


def test_a_finding_about_the_entry_itself_is_on_the_spec(archive: Path) -> None:
    spec: dict[str, Any] = json.loads((archive / SPEC).read_text(encoding="utf-8"))
    spec["assertions"][8]["kind"] = "equalz"
    (archive / SPEC).write_text(json.dumps(spec, indent=2), encoding="utf-8")
    rewrite_manifest(archive)
    report = verify(archive)
    (bad,) = [f for f in report.findings if "equalz" in f.message]
    assert (bad.path, bad.pointer) == (SPEC, "/assertions/8/kind")
    assert bad.line is not None and bad.related is None


def test_the_views_show_the_entry(archive: Path) -> None:
    _counter(archive)
    report = verify(archive)
    (f,) = [f for f in report.findings if "e2.counters.stripe-create-requests" in f.message]
    assert f.related is not None
    pointer, line, column = _entry_of(archive, "e2.counters.stripe-create-requests")
    note = f"[spec entry {SPEC}#{pointer}, line {line}, column {column}]"
    assert note in CHECK["text"](report)
    markdown = CHECK["markdown"](report)  # escaped for Markdown: the words survive
    assert "spec entry" in markdown and f"line {line}, column {column}" in markdown
    assert note in CHECK["github"](report)
    log = json.loads(CHECK["sarif"](report))
    sarif_validator().validate(log)
    (result,) = [
        r for r in log["runs"][0]["results"] if "e2.counters.stripe-create" in r["message"]["text"]
    ]
    (entry,) = [
        loc
        for loc in result["relatedLocations"]
        if loc["physicalLocation"]["artifactLocation"]["uri"] == SPEC
    ]
    assert entry["physicalLocation"]["region"] == {"startLine": line, "startColumn": column}


def test_the_untouched_archive_is_unchanged() -> None:
    assert not any(f.related for f in verify(REPO).findings)
