"""Machine outputs (#16): the JSON report's version 2 fields (flat findings, the source's
identity, per-file digests), JSON Lines, and the table's CSV with a plain header row."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from pathlib import Path

from tests.acceptance.test_formats import cli
from tests.conftest import REPO
from tests.tampered import E6, tamper
from verifier import verify
from verifier.views.check import CHECK


def _schema_ok(report: dict[str, object]) -> None:
    from jsonschema import Draft202012Validator

    schema = json.loads((REPO / "verifier/schemas/report.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(report)


def test_the_json_report_has_flat_findings_source_and_digests(archive: Path) -> None:
    tamper(archive)
    proc = cli("check", ".", "--format", "json", cwd=archive)
    report = json.loads(proc.stdout)
    _schema_ok(report)
    assert report["reportVersion"] == 2
    nested = [f for s in report["stages"] for f in s["findings"]]
    flat = report["findings"]
    assert [{k: v for k, v in f.items() if k != "stage"} for f in flat] == nested
    assert {f["stage"] for f in flat} == {"integrity", "validity", "consistency"}
    assert report["source"] == {"kind": "directory", "location": "."}
    manifest = (archive / "manifest.sha256").read_bytes()
    assert report["manifestSha256"] == hashlib.sha256(manifest).hexdigest()
    files = {f["path"]: f for f in report["files"]}
    bad = files[E6]
    assert bad["status"] == "mismatch" and bad["algorithm"] == "sha256"
    assert bad["sha256"] == hashlib.sha256((archive / E6).read_bytes()).hexdigest()
    listed = {
        line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in manifest.decode().splitlines()
    }
    assert bad["expected"] == listed[E6] != bad["sha256"]


def test_a_zip_source_names_its_digest_and_no_absolute_path(archive: Path, tmp_path: Path) -> None:
    zipped = tmp_path / "a.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        for path in sorted(archive.rglob("*")):
            if path.is_file():
                z.write(path, str(path.relative_to(archive)))
    report = json.loads(CHECK["json"](verify(zipped)))
    _schema_ok(report)
    assert report["source"]["kind"] == "zip"
    assert report["source"]["sha256"] == hashlib.sha256(zipped.read_bytes()).hexdigest()
    assert str(tmp_path) not in json.dumps(report)  # the location is its name, not a path
    assert report["source"]["location"] == "a.zip"


def test_jsonl_is_one_finding_a_line_then_a_summary(archive: Path) -> None:
    report = verify(tamper(archive))
    lines = CHECK["jsonl"](report).splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["type"] for r in records] == ["finding"] * (len(records) - 1) + ["summary"]
    assert [{k: v for k, v in r.items() if k != "type"} for r in records[:-1]] == (
        json.loads(CHECK["json"](report))["findings"]
    )
    summary = records[-1]
    assert summary["findings"] == len(records) - 1 and summary["ok"] is False
    assert summary["stages"] == {s.stage.value: s.status.value for s in report.stages}
    clean = [json.loads(line) for line in CHECK["jsonl"](verify(REPO)).splitlines()]
    assert [r["type"] for r in clean] == ["summary"] and clean[0]["ok"] is True


def test_the_csv_table_has_a_plain_header_row() -> None:
    out = cli("table", str(REPO), "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    assert rows and rows[0]["Case id"] == "local-stripe"
    for row in rows:
        assert row["Verification"] == "passed"
        assert row["Verification detail"].startswith("Verification passed")
        assert (row["Integrity"], row["Validity"], row["Consistency"]) == ("passed",) * 3


def test_the_csv_table_of_a_broken_archive_says_failed(archive: Path) -> None:
    out = cli("table", str(tamper(archive)), "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    assert rows and {r["Verification"] for r in rows} == {"failed"}
    assert {r["Integrity"] for r in rows} == {"failed"}


def _html(root: Path, *env: tuple[str, str]) -> str:
    import os
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "verifier", "table", ".", "--format", "html"],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
        env={**os.environ, **dict(env)},
    )
    return proc.stdout


def test_the_html_table_says_what_was_verified_and_when(archive: Path) -> None:
    page = _html(archive, ("SOURCE_DATE_EPOCH", "1767225600"))
    manifest = hashlib.sha256((archive / "manifest.sha256").read_bytes()).hexdigest()
    from verifier.version import __version__

    assert f"verify-evidence {__version__}" in page
    assert "<th>Source</th><td><code>directory .</code>" in page
    assert f"manifest.sha256, SHA-256 {manifest}" in page
    assert "<code>2026-01-01T00:00:00Z</code>" in page
    for stage in ("integrity", "validity", "consistency"):
        assert f'<span class="stage-passed">{stage} passed</span>' in page
    broken = _html(tamper(archive), ("SOURCE_DATE_EPOCH", "0"))
    assert "1970-01-01T00:00:00Z" in broken
    assert '<span class="stage-failed">integrity failed</span>' in broken


def test_a_malformed_source_date_epoch_stops_the_table_before_it_reads() -> None:
    proc = cli("table", str(REPO), "--format", "html")
    assert proc.returncode in (0, 1)
    import os
    import subprocess
    import sys

    bad = subprocess.run(
        [sys.executable, "-m", "verifier", "table", str(REPO), "--format", "html"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "SOURCE_DATE_EPOCH": "soon"},
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert "SOURCE_DATE_EPOCH" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


# The page in a real browser (headless Chromium, both widths, console, scroll): see
# tests/acceptance/test_table_browser.py.
