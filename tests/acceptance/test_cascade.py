"""Cascade control (issue 16): one appended byte in one record used to read as a dozen
independent failures (its digest, its parse, every assertion and catalogue cell that read
it). Each consequence keeps its code, path and message in the JSON report and names its
cause (``cause``); the human views show the cause once with how many findings it blocks."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.acceptance.test_formats import sarif_validator
from tests.acceptance.test_tamper import run_check
from tests.conftest import REPO, rewrite_manifest
from verifier import verify
from verifier.findings import Finding
from verifier.fingerprint import fingerprint
from verifier.judge.cascade import _selected_file
from verifier.views.check import CHECK

RECORD = "evidence/e1-local-crash/runner-result.json"
E8 = "evidence/e8-preflight/diagnostic.json"
E2 = "evidence/e2-hosted-original/runner-result.json"


def _schema() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads((REPO / "verifier/schemas/report.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def _append_byte(archive: Path) -> None:
    path = archive / RECORD
    path.write_bytes(path.read_bytes() + b"x")


def test_the_untouched_archive_has_nothing_blocked() -> None:
    report = verify(REPO)
    assert not any(f.cause for f in report.findings)
    assert "suppressions" not in CHECK["sarif"](report)


def test_one_appended_byte_is_one_cause_and_its_consequences(archive: Path) -> None:
    _append_byte(archive)
    rc, report = run_check(archive)
    assert rc == 1
    _schema().validate(report)
    found = report["findings"]
    (mismatch,) = [f for f in found if f["code"] == "manifest.mismatch"]
    (parse,) = [f for f in found if f["code"] == "record.invalid-json"]
    assert "cause" not in mismatch and "cause" not in parse  # the file's own findings
    consequences = [f for f in found if f["stage"] == "consistency"]
    assert len(consequences) >= 20
    assert {f["code"] for f in consequences} == {"assertion.error", "catalogue.unresolved"}
    # every one kept with its code, path and message, and naming the same cause
    prints = {fingerprint(f) for f in verify(archive).findings if f.code == "manifest.mismatch"}
    for f in consequences:
        assert f["cause"]["code"] == "manifest.mismatch", f
        assert f["cause"]["path"] == RECORD
        assert {f["cause"]["fingerprint"]} == prints
        assert "could not be parsed as JSON" in f["message"]
    assert {f["path"] for f in consequences} == {RECORD, "evidence/cases.json"}
    # the stage and the run still fail, counted as before
    assert report["stages"][2]["status"] == "failed"


def test_the_human_views_show_the_cause_once(archive: Path) -> None:
    _append_byte(archive)
    report = verify(archive)
    blocked = [f for f in report.findings if f.cause is not None]
    n = len(blocked)
    text = CHECK["text"](report)
    assert text.count(f"{n} findings blocked by it") == 1
    assert f"{n} of them blocked by 1 earlier finding" in text
    lines = text.splitlines()
    # none listed alone: each under its cause, indented (issue 36)
    assert not [x for x in lines if ": assertion.error: " in x and not x.startswith("    ")]
    cause = next(i for i, line in enumerate(lines) if ": manifest.mismatch: " in line)
    assert lines[cause + 1].startswith(f"  {n} findings blocked by it (")
    markdown = CHECK["markdown"](report)
    assert "`assertion.error`" not in markdown and "`catalogue.unresolved`" not in markdown
    assert f"{n} findings blocked by it" in markdown
    github = CHECK["github"](report).splitlines()
    (head,) = [line for line in github if "title=manifest.mismatch" in line]
    assert f"{n} findings blocked by it" in head
    # annotated after every independent finding, each naming its cause
    tail = github[-1 - n : -1]
    assert all("(blocked by manifest.mismatch on " in line for line in tail)


def test_sarif_suppresses_each_consequence_and_relates_it_to_its_cause(archive: Path) -> None:
    _append_byte(archive)
    report = verify(archive)
    log = json.loads(CHECK["sarif"](report))
    sarif_validator().validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == len(report.findings)
    assert all("suppressions" in r for r in results)  # on every result of the run, or none
    held = [r for r in results if r["suppressions"]]
    assert len(held) == sum(1 for f in report.findings if f.cause is not None)
    for r in held:
        (s,) = r["suppressions"]
        assert (s["kind"], s["status"]) == ("external", "accepted")
        assert "manifest.mismatch" in s["justification"]
        related = r["relatedLocations"][0]  # the cause (then the assertion's spec entry)
        assert related["physicalLocation"]["artifactLocation"]["uri"] == "manifest.sha256"
        assert related["message"]["text"].startswith("blocked by: manifest.mismatch: ")
    (cause,) = [r for r in results if r["ruleId"] == "manifest.mismatch"]
    assert cause["suppressions"] == []
    assert len(cause["relatedLocations"]) == len(held)
    assert f"{len(held)} findings blocked by it" in cause["message"]["text"]
    assert log["runs"][0]["properties"]["blockedFindings"] == len(held)


def test_junit_skips_what_the_cause_blocked(archive: Path) -> None:
    _append_byte(archive)
    report = verify(archive)
    tree = ET.fromstring(CHECK["junit"](report))
    suite = tree.find("./testsuite[@name='consistency']")
    assert suite is not None
    skipped = [c for c in suite.iter("testcase") if c.find("skipped") is not None]
    reading = [a for a in report.assertions if a.finding is not None and a.finding.cause]
    # each assertion that read it, and the case catalogue's case (its cells read it too)
    assert [c.get("name") for c in skipped][-1] == "case catalogue"
    assert len(skipped) == len(reading) + 1 == int(suite.get("skipped", "-1"))
    assert suite.get("errors") == "0"
    for case in skipped:
        element = case.find("skipped")
        assert element is not None
        assert element.get("message") == f"blocked by manifest.mismatch on {RECORD}"


def test_a_missing_file_blocks_what_reads_it(archive: Path) -> None:
    (archive / E8).unlink()
    report = verify(archive)
    reading = [f for f in report.findings if f.code == "assertion.error" and f.path == E8]
    assert reading and all(f.cause and f.cause.code == "manifest.missing" for f in reading)


def test_a_file_that_does_not_parse_blocks_what_reads_it(archive: Path) -> None:
    _append_byte(archive)
    rewrite_manifest(archive)  # the digest matches: the parse is the cause
    report = verify(archive)
    blocked = [f for f in report.findings if f.cause is not None]
    assert blocked and {f.cause.code for f in blocked if f.cause} == {"record.invalid-json"}


def test_a_failure_on_a_file_that_parsed_and_matched_is_not_blocked(archive: Path) -> None:
    path = archive / E2
    data = json.loads(path.read_text(encoding="utf-8"))
    data["counters"]["stripeCreateRequests"] = 2
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    rewrite_manifest(archive)
    report = verify(archive)
    failed = [f for f in report.findings if f.code == "assertion.failed"]
    assert failed and not any(f.cause for f in report.findings)


def test_a_consequence_whose_cause_was_accepted_stands_alone(archive: Path) -> None:
    from verifier.pipeline import Options

    (archive / E8).unlink()
    report = verify(archive, Options(ignore=frozenset({"manifest.missing"})))
    text = CHECK["text"](report)
    alone = [line for line in text.splitlines() if ": assertion.error: " in line and E8 in line]
    assert alone and all(line.endswith(f"(blocked by manifest.missing on {E8})") for line in alone)


def test_a_catalogue_cell_names_the_file_it_selects_from() -> None:
    doc = {"cases": [{"counts": [{"count": {"file": "a.json", "pointer": "/x"}}]}]}
    assert _selected_file(doc, "/cases/0/counts/0/count/pointer") == "a.json"
    assert _selected_file(doc, "/cases/0/counts/0/distinct") == "a.json"
    assert _selected_file(doc, "/cases/0/nothing/here") is None
    assert _selected_file([], "/0") is None


def test_the_cause_field_round_trips_through_a_finding() -> None:
    cause = Finding("manifest.missing", "a.json", "Listed but not present.")
    from verifier.judge.cascade import cause_of

    blocked = Finding("assertion.error", "a.json", "x", "/p", cause=cause_of(cause))
    assert blocked.blocked and blocked.to_dict()["cause"] == {
        "code": "manifest.missing",
        "path": "a.json",
        "fingerprint": fingerprint(cause),
    }


def test_the_audit_record_of_a_cascade_validates(archive: Path) -> None:
    """The audit record lists findings with their cause and spec entry (its schema takes
    both fields from the report schema)."""
    from tests.acceptance.test_audit import audit, validator

    _append_byte(archive)
    rc, record, _ = audit(str(archive))
    assert rc == 1
    validator().validate(record)
    assert any("cause" in f for f in record["findings"])


def _blocked_lines(text: str) -> list[str]:
    """The lines under the cause's "N findings blocked by it" line, indented further."""
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if "findings blocked by it (" in x) + 1
    end = start
    while end < len(lines) and lines[end].startswith("    "):
        end += 1
    return lines[start:end]


def test_the_text_view_lists_the_blocked_findings_under_their_cause(archive: Path) -> None:
    """Each blocked finding under its cause, with its code, path and assertion id, folded to
    a count past BLOCKED_SHOWN, with the option that lists them all (issue 36: "28 findings
    blocked by it; --format json lists each", and a rerun to see which assertions broke)."""
    from tests.acceptance.test_sources_cli import cli
    from verifier.views.check import BLOCKED_SHOWN
    from verifier.views.interface import RenderSettings

    _append_byte(archive)
    report = verify(archive)
    blocked = [f for f in report.findings if f.cause is not None]
    assert len(blocked) > BLOCKED_SHOWN  # so the fold is tested
    under = _blocked_lines(CHECK["text"](report))
    assert len(under) == BLOCKED_SHOWN + 1
    for f, line in zip(blocked, under[:-1], strict=False):
        assert line.startswith(f"    {f.path}") and f": {f.code}: " in line, line
        if f.code == "assertion.error":
            ident = f.message.split(":", 1)[0]  # the assertion's id opens its message
            assert f": assertion.error: {ident}: " in line and "[spec entry " in line
    rest = len(blocked) - BLOCKED_SHOWN
    assert under[-1] == (
        f"    and {rest} more blocked by it: --all-blocked lists every one (so does --format json)"
    )
    every = _blocked_lines(CHECK["text"](report, RenderSettings(all_blocked=True)))
    assert len(every) == len(blocked) and "--all-blocked" not in "".join(every)
    ids = {f.message.split(":", 1)[0] for f in blocked}
    assert all(any(f" {i}: " in x for x in every) for i in ids)
    # the command's option, documented in its help
    proc = cli("check", str(archive), "--format", "text", "--all-blocked")
    assert proc.returncode == 1 and _blocked_lines(proc.stdout) == every
    assert "--all-blocked" in cli("check", "--help").stdout


def test_the_rich_view_lists_the_blocked_findings_under_their_cause(archive: Path) -> None:
    """The same in the rich view, as a table and stacked (a narrow terminal)."""
    import io

    from rich.console import Console

    from verifier.views.check import BLOCKED_SHOWN
    from verifier.views.check.rich_view import show
    from verifier.views.interface import RenderSettings

    _append_byte(archive)
    report = verify(archive)
    blocked = [f for f in report.findings if f.cause is not None]
    for width in (250, 60):
        for every in (False, True):
            out = io.StringIO()
            show(report, Console(file=out, width=width), RenderSettings(all_blocked=every))
            shown = out.getvalue()
            listed = BLOCKED_SHOWN if not every and len(blocked) > BLOCKED_SHOWN else len(blocked)
            codes = shown.count("assertion.error") + shown.count("catalogue.unresolved")
            summary = 2  # "28 findings blocked by it (23 assertion.error, 5 catalogue....)"
            assert codes == listed + summary, (width, every)
            assert ("--all-blocked lists every one" in shown) is (listed < len(blocked))
