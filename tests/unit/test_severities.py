"""Severities (issue 12, item 14): fixed per code, shown in every format, and only errors
fail a run unless ``--fail-on`` lowers the bar; an id reused after its call was answered is a
note that fails nothing and does not block ``transcript repair``."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.test_formats import cli, sarif_validator
from tests.conftest import REPO, rewrite_manifest
from tests.hostile.harness import validate_report
from verifier.findings import CODES, SEVERITIES, Severity

NOTE = "transcript.reused-answered-id"


def test_every_code_has_a_severity_and_the_guide_lists_it() -> None:
    assert set(SEVERITIES) == set(CODES), "every code in CODES needs a severity in SEVERITIES"
    readme = (REPO / "docs" / "finding-codes.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z]+\.[a-z-]+)` \| [a-z]+ \| ([a-z]+) \|", readme, re.M))
    assert rows == {code: severity.value for code, severity in SEVERITIES.items()}


def test_severities_rank_as_sarif_levels() -> None:
    assert Severity.ERROR.reaches(Severity.WARNING) and Severity.WARNING.reaches(Severity.NOTE)
    assert not Severity.NOTE.reaches(Severity.WARNING)
    assert not Severity.WARNING.reaches(Severity.ERROR)
    assert SEVERITIES[NOTE] is Severity.NOTE
    assert SEVERITIES["transcript.reused-id"] is Severity.ERROR


@pytest.fixture
def noted(archive: Path) -> Path:
    """The bundled archive plus one transcript record that reuses an answered call id."""
    record = json.loads(
        (archive / "evidence/e5-read-only-control/transcript-safe.json").read_text("utf-8")
    )
    record["messages"] += copy.deepcopy(record["messages"][1:3])
    extra = archive / "evidence" / "extra"
    extra.mkdir()
    (extra / "transcript.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    rewrite_manifest(archive)
    return archive


def findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for s in report["stages"] for f in s["findings"]]


def test_a_note_is_reported_everywhere_and_fails_nothing(noted: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    proc = cli(
        "check", str(noted), "--format", "json",
        *(f"--output={f}={out / f}" for f in ("text", "markdown", "junit", "sarif", "github")),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    validate_report(report)
    assert report["ok"] is True
    assert [(f["code"], f["severity"]) for f in findings(report)] == [(NOTE, "note")]
    validity = report["stages"][1]
    assert validity["status"] == "passed"
    assert validity["severities"] == {"error": 0, "warning": 0, "note": 1}

    sarif = json.loads((out / "sarif").read_text(encoding="utf-8"))
    sarif_validator().validate(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert result["level"] == "note"
    rule = sarif["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert rule["defaultConfiguration"]["level"] == "note"

    github = (out / "github").read_text(encoding="utf-8").splitlines()
    assert github[0].startswith("::notice file=evidence/extra/transcript.json,title=" + NOTE)
    assert github[-1].startswith("::notice title=verify-evidence::")

    junit = (out / "junit").read_text(encoding="utf-8")
    tree = ET.fromstring(junit)
    assert tree.get("failures") == "0" and tree.find(".//failure") is None
    (system_out,) = tree.findall(".//testcase/system-out")
    assert (system_out.text or "").startswith("note: evidence/extra/transcript.json#/messages/3")

    markdown = (out / "markdown").read_text(encoding="utf-8")
    assert markdown.startswith("## verify-evidence: passed")
    assert f"| note | `{NOTE}` |" in markdown

    text = (out / "text").read_text(encoding="utf-8").splitlines()
    assert "1 finding(s) (1 note(s)):" in text
    assert text[text.index("notes:") + 1].startswith("evidence/extra/transcript.json#")


@pytest.mark.parametrize("command", ["check", "table", "audit"])
def test_fail_on_lowers_the_bar(command: str, noted: Path, tmp_path: Path) -> None:
    extra = ["-o", str(tmp_path / "audit.json")] if command == "audit" else []
    assert cli(command, str(noted), *extra).returncode == 0
    assert cli(command, str(noted), *extra, "--fail-on", "warning").returncode == 0
    assert cli(command, str(noted), *extra, "--fail-on", "note").returncode == 1
    bad = cli(command, str(noted), *extra, "--fail-on", "never")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1


def test_an_error_still_fails_the_stage(noted: Path) -> None:
    path = noted / "evidence/extra/transcript.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    del record["messages"][2]  # the first call now dangles: the reuse is an error too
    path.write_text(json.dumps(record), encoding="utf-8")
    rewrite_manifest(noted)
    proc = cli("check", str(noted), "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["ok"] is False and report["stages"][1]["status"] == "failed"
    assert {f["code"]: f["severity"] for f in findings(report)} == {
        "transcript.dangling-call": "error",
        "transcript.reused-id": "error",
    }
