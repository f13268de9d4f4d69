"""examples/witness: a witness log that contradicts the transcript's interruption marker,
checked and tabled as its README says; stating the run (``ranDespiteMarker``) makes the
witness the evidence for it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, rewrite_manifest

EXAMPLE = REPO / "examples" / "witness"
TRUST = (
    "--witness-key",
    str(EXAMPLE / "gateway.pub"),
    "--checkpoint",
    str(EXAMPLE / "kept-checkpoint.json"),
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args], capture_output=True, text=True, check=False
    )


def _cells(root: Path) -> dict[str, dict[str, object]]:
    proc = cli("table", str(root), "--format", "json", *TRUST)
    table = json.loads(proc.stdout)
    return {c["label"]: c for c in table["cases"][0]["outcomes"]}


def test_the_example_fails_on_the_contradiction_and_the_table_shows_it() -> None:
    proc = cli("check", str(EXAMPLE / "archive"), "--format", "json", *TRUST)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert [(f["code"], f["message"].split(":")[0]) for f in errors] == [
        ("assertion.failed", "run.witnessed")
    ]
    assert "the tool did run" in errors[0]["message"]
    cells = _cells(EXAMPLE / "archive")
    assert cells["tool result"]["text"] == "not run: the turn was interrupted"
    assert cells["witnessed outcome"]["text"] == "succeeded"
    assert cells["witnessed by"]["text"] == "gateway (signatures checked)"
    agrees = cells["agrees with transcript"]
    assert (agrees["text"], agrees["verified"], agrees["how"]) == ("no", False, "assertion")


def test_without_the_key_the_table_says_the_signatures_were_not_checked() -> None:
    proc = cli("table", str(EXAMPLE / "archive"), "--format", "json")
    cells = {c["label"]: c for c in json.loads(proc.stdout)["cases"][0]["outcomes"]}
    assert cells["witnessed by"]["text"] == "gateway (signatures not checked)"


def test_stating_the_run_makes_the_witness_its_evidence(tmp_path: Path) -> None:
    root = tmp_path / "archive"
    shutil.copytree(EXAMPLE / "archive", root)
    spec_path = root / "evidence" / "assertions.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    witnessed = next(a for a in spec["assertions"] if a["id"] == "run.witnessed")
    witnessed["ranDespiteMarker"] = ["call-1"]
    spec_path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(root)
    proc = cli("check", str(root), "--format", "json", *TRUST)
    assert proc.returncode == 0, proc.stdout
    assert _cells(root)["agrees with transcript"]["text"] == "yes"
    # the log changed after it was signed: the witness's word no longer counts
    log = root / "evidence" / "example-run" / "audit.jsonl"
    log.write_bytes(log.read_bytes().replace(b'"durationMs":10', b'"durationMs":11'))
    rewrite_manifest(root)
    proc = cli("check", str(root), "--format", "json", *TRUST)
    assert proc.returncode == 1
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert {"chain.bad-signature", "chain.unlinked", "assertion.error"} <= codes


def test_coverage_names_the_witness_log_as_not_audited_and_says_why() -> None:
    proc = cli("coverage", str(EXAMPLE / "archive"), "--format", "json")
    report = json.loads(proc.stdout)
    unaudited = {e["path"]: e["why"] for e in report["notAudited"]}
    assert "a witness log" in unaudited["evidence/example-run/audit.jsonl"]
    assert "evidence/example-run/audit.jsonl" not in {f["path"] for f in report["files"]}
