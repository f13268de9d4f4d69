"""--ignore, --select, --baseline and --write-baseline through the real command."""

from __future__ import annotations

import json
from pathlib import Path

from tests.acceptance.test_formats import cli, tampered
from tests.hostile.harness import validate_report


def test_unknown_code_is_exit_2_one_line_before_reading(tmp_path: Path) -> None:
    proc = cli("check", str(tmp_path / "absent"), "--select", "schema.invalidd")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "did you mean 'schema.invalid'" in proc.stderr


def test_bad_baseline_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text("{", encoding="utf-8")
    proc = cli("check", str(tmp_path / "absent"), "--baseline", str(bad))
    assert proc.returncode == 2 and proc.stderr.startswith("verify-evidence: error: --baseline")
    proc = cli("check", str(tmp_path), "--baseline", str(tmp_path / "none.json"))
    assert proc.returncode == 2 and "cannot read it" in proc.stderr


def test_write_then_use_a_baseline(archive: Path, tmp_path: Path) -> None:
    broken = tampered(archive)
    assert cli("check", str(broken), "-q").returncode == 1
    base = tmp_path / "baseline.json"
    proc = cli("check", str(broken), "--write-baseline", str(base), "--format", "text")
    assert proc.returncode == 0, proc.stdout
    assert "Accepted, not counted:" in proc.stdout
    entries = json.loads(base.read_text(encoding="utf-8"))["findings"]
    assert entries
    proc = cli("check", str(broken), "--baseline", str(base), "--format", "json")
    assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    validate_report(report)
    assert report["acceptance"]["accepted"]["baseline"] == len(entries)
    assert sum(len(s.get("accepted", [])) for s in report["stages"]) == len(entries)
    # a new problem is not accepted
    (broken / "evidence/another.json").write_text("{}\n", encoding="utf-8")
    assert cli("check", str(broken), "--baseline", str(base), "-q").returncode == 1


def test_write_baseline_cannot_be_an_output(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    proc = cli(
        "check", str(tmp_path), "--format", "json", "-o", str(out), "--write-baseline", str(out)
    )
    assert proc.returncode == 2 and "--write-baseline" in proc.stderr


def test_ignore_by_group_passes_with_counts(archive: Path) -> None:
    broken = tampered(archive)
    proc = cli(
        "check", str(broken), "--ignore", "manifest,assertion", "--ignore", "schema.invalid",
        "--ignore", "record.no-schema,catalogue", "--format", "text",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout
    assert "ignored" in proc.stdout
    assert "Accepted, not counted:" in proc.stdout


def test_the_human_verdict_follows_fail_on(archive: Path, tmp_path: Path) -> None:
    """A baseline whose entries match nothing leaves only warnings: the run passes at the
    default --fail-on and fails at --fail-on warning, and the Markdown and GitHub verdicts say
    what the exit code says."""
    import shutil

    base = tmp_path / "baseline.json"
    broken = tampered(Path(shutil.copytree(archive, tmp_path / "broken")))
    cli("check", str(broken), "--write-baseline", str(base), "-q")
    stale = ("check", str(archive), "--baseline", str(base))
    proc = cli(*stale, "--format", "markdown")
    assert proc.returncode == 0 and "## verify-evidence: passed" in proc.stdout, proc.stdout
    assert "::notice title=verify-evidence::" in cli(*stale, "--format", "github").stdout
    proc = cli(*stale, "--format", "markdown", "--fail-on", "warning")
    assert proc.returncode == 1
    assert "## verify-evidence: FAILED (" in proc.stdout
    assert "at --fail-on warning or above)" in proc.stdout
    proc = cli(*stale, "--format", "github", "--fail-on", "warning")
    assert proc.returncode == 1 and "::error title=verify-evidence::" in proc.stdout


def test_an_accepted_file_counts_again_when_its_bytes_change(archive: Path, tmp_path: Path) -> None:
    """Issue 34, class 14: a baseline entry accepting an unlisted file (or a record's findings)
    carries the SHA-256 of the bytes it was accepted for; rewritten bytes are not accepted."""
    broken = tampered(archive)
    stray = broken / "evidence/stray, name: 100%.json"
    base = tmp_path / "baseline.json"
    assert cli("check", str(broken), "--write-baseline", str(base), "-q").returncode == 0
    assert cli("check", str(broken), "--baseline", str(base), "-q").returncode == 0  # unchanged
    stray.write_text('{"$schema": "anything at all", "now": "other bytes"}\n', encoding="utf-8")
    proc = cli("check", str(broken), "--baseline", str(base), "--format", "json")
    assert proc.returncode == 1, proc.stdout
    report = json.loads(proc.stdout)
    validate_report(report)
    counted = {(f["code"], f["path"]) for f in report["findings"]}
    assert ("manifest.unlisted", "evidence/stray, name: 100%.json") in counted
    assert ("baseline.unmatched", "evidence/stray, name: 100%.json") in counted
    # the same bytes again: accepted again
    stray.write_text("{}\n", encoding="utf-8")
    assert cli("check", str(broken), "--baseline", str(base), "-q").returncode == 0


def test_every_written_entry_about_a_file_carries_its_digest(archive: Path, tmp_path: Path) -> None:
    broken = tampered(archive)
    base = tmp_path / "baseline.json"
    proc = cli("check", str(broken), "--write-baseline", str(base), "--format", "json")
    files = {f["path"]: f["sha256"] for f in json.loads(proc.stdout)["files"] if f["sha256"]}
    entries = json.loads(base.read_text(encoding="utf-8"))["findings"]
    assert {e["code"] for e in entries} >= {"manifest.unlisted", "manifest.mismatch"}
    for entry in entries:
        assert entry["path"] in files, entry
        assert "sha256" in entry, entry
    unlisted = next(e for e in entries if e["code"] == "manifest.unlisted")
    assert unlisted["sha256"] == files[unlisted["path"]]


def test_an_older_baseline_without_digests_accepts_no_finding_about_bytes(
    archive: Path, tmp_path: Path
) -> None:
    """An entry written before digests (no sha256) for a finding about a file's bytes no
    longer accepts it: the finding counts, and a baseline.no-digest warning says to re-accept."""
    broken = tampered(archive)
    base = tmp_path / "baseline.json"
    cli("check", str(broken), "--write-baseline", str(base), "-q")
    doc = json.loads(base.read_text(encoding="utf-8"))
    for entry in doc["findings"]:
        entry.pop("sha256", None)
    base.write_text(json.dumps(doc), encoding="utf-8")
    proc = cli("check", str(broken), "--baseline", str(base), "--format", "json")
    assert proc.returncode == 1, proc.stdout
    report = json.loads(proc.stdout)
    validate_report(report)
    codes = [f["code"] for f in report["findings"]]
    assert "manifest.unlisted" in codes and "baseline.no-digest" in codes
    assert "baseline.unmatched" not in codes  # said once, by its own code
    assert codes.count("baseline.no-digest") == len(doc["findings"])
    # rewriting the baseline gives every entry its digest again
    assert cli("check", str(broken), "--baseline", str(base), "--write-baseline",
               str(base), "-q").returncode == 0  # fmt: skip
    assert cli("check", str(broken), "--baseline", str(base), "-q").returncode == 0


def test_sarif_results_carry_their_baseline_state(archive: Path, tmp_path: Path) -> None:
    """With --baseline, each SARIF result says how it stands to the baseline (§3.27.24): the
    baselined findings are results again, ``unchanged`` and suppressed (not counted); a new
    finding is ``new``; a baseline entry that matched nothing is ``absent``. Without one,
    no result has a baseline state."""
    from tests.acceptance.test_formats import sarif_validator

    broken = tampered(archive)
    base = tmp_path / "baseline.json"
    cli("check", str(broken), "--write-baseline", str(base), "-q")
    accepted = len(json.loads(base.read_text(encoding="utf-8"))["findings"])
    plain = json.loads(cli("check", str(broken), "--format", "sarif").stdout)
    assert all("baselineState" not in r for r in plain["runs"][0]["results"])
    (broken / "evidence" / "NEW.md").write_text("new\n", encoding="utf-8")  # one more finding
    proc = cli("check", str(broken), "--baseline", str(base), "--format", "sarif")
    log = json.loads(proc.stdout)
    sarif_validator().validate(log)
    results = log["runs"][0]["results"]
    states = [r["baselineState"] for r in results]
    assert states.count("unchanged") == accepted
    assert [r["ruleId"] for r in results if r["baselineState"] == "new"] == ["manifest.unlisted"]
    for result in results:
        suppressed = [s["justification"] for s in result["suppressions"]]
        assert (result["baselineState"] == "unchanged") == any("baseline" in s for s in suppressed)
    # a fixed finding leaves its baseline entry matching nothing: that result is absent
    (broken / "evidence" / "stray, name: 100%.json").unlink()
    log = json.loads(cli("check", str(broken), "--baseline", str(base), "--format", "sarif").stdout)
    sarif_validator().validate(log)
    absent = [r for r in log["runs"][0]["results"] if r["baselineState"] == "absent"]
    assert absent and {r["ruleId"] for r in absent} == {"baseline.unmatched"}
    assert all(
        r["baselineState"] == "absent"
        for r in log["runs"][0]["results"]
        if r["ruleId"] == "baseline.unmatched"
    )
