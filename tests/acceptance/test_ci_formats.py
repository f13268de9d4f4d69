"""CI formats (#16): SARIF and GitHub annotations capped at their platforms' limits with one
summary of what was left out, stable SARIF fingerprints and rules with help, paths relative to
the working directory (or --path-prefix), JUnit ``<error>`` for evaluation errors."""

from __future__ import annotations

import importlib.util
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.acceptance.test_formats import cli, junit_schema, sarif_validator
from tests.conftest import REPO
from tests.tampered import tamper
from verifier import verify
from verifier.findings import Finding, Stage
from verifier.report import Report, StageResult
from verifier.views.check import github, sarif
from verifier.views.check.junit import render as junit


def _generator() -> Any:
    """benchmarks/generate.py, loaded by its path (benchmarks/ is scripts, not a package:
    mypy sees it once, as the scripts run it)."""
    spec = importlib.util.spec_from_file_location("generate", REPO / "benchmarks" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _damaged(tmp_path: Path, records: int = 300) -> Path:
    """A generated archive whose every record has one byte appended (a mismatch, a parse
    failure and the assertions that read it: many findings)."""
    root = tmp_path / "generated"
    root.mkdir()
    _generator().generate(str(root), records, 7, 0, 0)
    for path in sorted((root / "evidence").rglob("*.json")):
        if path.name != "assertions.json":
            path.write_bytes(path.read_bytes() + b"x")
    return root


def test_sarif_of_a_large_damaged_archive_is_capped_with_stable_fingerprints(
    tmp_path: Path,
) -> None:
    root = _damaged(tmp_path)
    report = verify(root)
    total = len(report.findings)
    assert total > 600
    limit = 200
    log = json.loads(sarif.render(report, limit=limit))
    sarif_validator().validate(log)
    run = log["runs"][0]
    results = run["results"]
    assert len(results) == limit
    last = results[-1]
    assert last["ruleId"] == sarif.TRUNCATED
    assert f"{total - (limit - 1)} more findings" in last["message"]["text"]
    assert "--format json" in last["message"]["text"]
    assert run["properties"]["resultsLeftOut"] == total - (limit - 1)
    assert all(r["level"] == "error" for r in results[:-1])  # errors are kept first
    prints = [r["partialFingerprints"][sarif.FINGERPRINT] for r in results]
    assert len(set(prints)) == len(prints)
    # the same archive again, and with every line moved: the same fingerprints
    again = json.loads(sarif.render(verify(root), limit=limit))["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in again] == [r["partialFingerprints"] for r in results]
    full = json.loads(sarif.render(report))["runs"][0]["results"]
    assert len(full) == total  # under the real cap nothing is left out
    rules = run["tool"]["driver"]["rules"]
    for rule in rules:
        assert rule["fullDescription"]["text"] and rule["help"]["text"]
        # SARIF 2.1.0 §3.49.12: helpUri is an absolute URI; the README is a relative one (#16)
        assert "helpUri" not in rule
        assert "README.md#" in rule["help"]["text"]


def test_fingerprints_do_not_follow_lines(archive: Path) -> None:
    tamper(archive)
    before = json.loads(sarif.render(verify(archive)))["runs"][0]["results"]
    record = archive / "evidence/e7-stripe-readback/payment-intents.json"
    record.write_text("\n\n" + record.read_text(encoding="utf-8"), encoding="utf-8")
    after = json.loads(sarif.render(verify(archive)))["runs"][0]["results"]

    def of(results: list[dict[str, object]]) -> dict[str, object]:
        return {
            json.dumps(r["partialFingerprints"]): r["locations"]
            for r in results
            if r["ruleId"] == "schema.invalid"
        }

    assert of(before).keys() == of(after).keys()
    assert of(before) != of(after)  # the line moved, the fingerprint did not


def _copy(tmp_path: Path) -> Path:
    from tests.conftest import copy_bundled

    return copy_bundled(tmp_path / "bundled")


def _report(findings: int) -> Report:
    stage = StageResult(Stage.INTEGRITY)
    stage.findings = [
        Finding("manifest.missing", f"evidence/r{i:05}.json", "Listed but not present.", line=i + 1)
        for i in range(findings)
    ]
    return Report(
        "0",
        "manifest.sha256",
        ["."],
        stage,
        StageResult(Stage.VALIDITY),
        StageResult(Stage.CONSISTENCY),
    )


def test_sarif_holds_at_most_25000_results_a_run() -> None:
    log = json.loads(sarif.render(_report(25_010)))
    results = log["runs"][0]["results"]
    assert len(results) == sarif.MAX_RESULTS == 25_000
    assert results[-1]["ruleId"] == sarif.TRUNCATED
    assert "11 more findings" in results[-1]["message"]["text"]
    exact = json.loads(sarif.render(_report(25_000)))["runs"][0]["results"]
    assert len(exact) == 25_000 and exact[-1]["ruleId"] == "manifest.missing"


def test_github_annotations_stay_inside_githubs_limits(tmp_path: Path) -> None:
    report = verify(_damaged(tmp_path, 60))
    total = len(report.findings)
    assert total > 60
    lines = github.render(report).splitlines()
    assert len(lines) == 50  # GitHub keeps 50 annotations a job
    (more,) = [line for line in lines if "more findings" in line.split("::", 2)[1]]
    assert f"{total - github.MAX_ANNOTATIONS} more findings" in more
    assert "--format json" in more
    assert "shows only the first 10 errors" in lines[-1]
    small = github.render(verify(tamper(_copy(tmp_path)))).splitlines()
    assert not any("more findings" in line for line in small)


def test_paths_are_relative_to_the_working_directory(archive: Path) -> None:
    tamper(archive)
    cwd = archive.parent
    name = archive.name
    out = cli("check", name, "--format", "github", cwd=cwd).stdout
    files = set(re.findall(r"file=([^,]+),", out))
    assert f"{name}/manifest.sha256" in files  # the mismatch's and missing file's line
    assert f"{name}/evidence/e7-stripe-readback/payment-intents.json" in files
    assert all(f.startswith(f"{name}/") for f in files)
    log = json.loads(cli("check", name, "--format", "sarif", cwd=cwd).stdout)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert all(u.startswith(f"{name}/") for u in uris)
    schema = [r for r in log["runs"][0]["results"] if r["ruleId"] == "schema.invalid"]
    assert all("startColumn" in r["locations"][0]["physicalLocation"]["region"] for r in schema)
    given = cli("check", name, "--format", "github", "--path-prefix", "ci/x", cwd=cwd).stdout
    assert "file=ci/x/manifest.sha256," in given
    none = cli("check", name, "--format", "github", "--path-prefix", "", cwd=cwd)
    assert "file=manifest.sha256," in none.stdout
    outside = cli("check", str(archive), "--format", "github", cwd=REPO)  # not under cwd
    assert "file=manifest.sha256," in outside.stdout
    here = cli("check", ".", "--format", "github", cwd=archive).stdout
    assert "file=manifest.sha256," in here


def test_junit_reports_evaluation_errors_as_errors(archive: Path) -> None:
    report = verify(tamper(archive))
    assert any(f.code == "assertion.error" for f in report.findings)
    xml = junit(report)
    junit_schema().validate(xml)
    tree = ET.fromstring(xml)
    errors = tree.findall(".//testcase/error")
    assert errors and {e.get("type") for e in errors} == {"assertion.error"}
    assert not [
        f for f in tree.findall(".//testcase/failure") if f.get("type") == "assertion.error"
    ]
    cases = [c for c in tree.findall(".//testcase") if c.find("error") is not None]
    assert int(tree.get("errors", "-1")) == len(cases)
    untouched = ET.fromstring(junit(verify(REPO)))
    assert untouched.get("errors") == "0" and not untouched.findall(".//error")
