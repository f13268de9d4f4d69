"""The tamper suite: break a copy of the bundled archive one way at a time and prove that the
real CLI reports the named finding code and exits 1. The untouched copy has no finding."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import rewrite_manifest

E1 = "evidence/e1-local-crash/runner-result.json"
E2 = "evidence/e2-hosted-original/runner-result.json"
E3_TRANSCRIPT = "evidence/e3-hosted-readback/transcript.json"
E7 = "evidence/e7-stripe-readback/payment-intents.json"
MARKER = "not run: the turn was interrupted"


def run_check(root: Path) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", "check", str(root), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stderr == ""
    return proc.returncode, json.loads(proc.stdout)


def codes(report: dict[str, Any]) -> set[str]:
    return {f["code"] for stage in report["stages"] for f in stage["findings"]}


def findings(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for s in report["stages"] for f in s["findings"] if f["code"] == code]


def edit_json(root: Path, name: str, change: Callable[[Any], None]) -> None:
    path = root / name
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rewrite_manifest(root)


def test_untouched_archive_has_no_findings(archive: Path) -> None:
    rc, report = run_check(archive)
    assert rc == 0
    assert codes(report) == set()
    assert report["ok"] is True
    assert [s["status"] for s in report["stages"]] == ["passed", "passed", "passed"]
    assert all(a["status"] == "passed" for a in report["assertions"])


# --- integrity -----------------------------------------------------------------------------


def byte_flip(root: Path) -> None:
    path = root / E7
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    path.write_bytes(bytes(data))


def missing_file(root: Path) -> None:
    (root / E7).unlink()


def unlisted_file(root: Path) -> None:
    (root / "evidence/e7-stripe-readback/extra.json").write_text("{}\n")


def manifest_append(line: str) -> Callable[[Path], None]:
    def tamper(root: Path) -> None:
        with (root / "manifest.sha256").open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    return tamper


def duplicate_entry(root: Path) -> None:
    first = (root / "manifest.sha256").read_text(encoding="utf-8").splitlines()[0]
    manifest_append(first)(root)


INTEGRITY = {
    "byte-flip": (byte_flip, "manifest.mismatch", E7),
    "missing-file": (missing_file, "manifest.missing", E7),
    "unlisted-file": (unlisted_file, "manifest.unlisted", "evidence/e7-stripe-readback/extra.json"),
    "unsafe-path": (
        manifest_append("0" * 64 + "  ../outside.json"),
        "manifest.unsafe-path",
        "../outside.json",
    ),
    "absolute-path": (
        manifest_append("0" * 64 + "  /etc/hostname"),
        "manifest.unsafe-path",
        "/etc/hostname",
    ),
    "malformed-line": (
        manifest_append("this is not a checksum line"),
        "manifest.malformed",
        "manifest.sha256",
    ),
    "duplicate-entry": (duplicate_entry, "manifest.duplicate", "evidence/README.md"),
    "self-listing": (
        manifest_append("0" * 64 + "  manifest.sha256"),
        "manifest.self-listed",
        "manifest.sha256",
    ),
}


# --- validity ------------------------------------------------------------------------------


def duplicate_key(root: Path) -> None:
    path = root / E2
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace('"scenario": "hosted",', '"scenario": "hosted",\n  "scenario": "hosted",', 1),
        encoding="utf-8",
    )
    rewrite_manifest(root)


def schema_violation(root: Path) -> None:
    def change(d: Any) -> None:
        d["response"]["data"][0]["amount"] = "100"

    edit_json(root, E7, change)


def invalid_json(root: Path) -> None:
    (root / E7).write_bytes((root / E7).read_bytes() + b"\n{}")
    rewrite_manifest(root)


VALIDITY = {
    "duplicate-key": (duplicate_key, "record.duplicate-key", E2),
    "schema-violation": (schema_violation, "schema.invalid", E7),
    "trailing-data": (invalid_json, "record.invalid-json", E7),
}


# --- consistency ---------------------------------------------------------------------------


def changed_payment_intent(root: Path) -> None:
    edit_json(root, E1, lambda d: d.update(paymentIntent="pi_3UTReLGbPfXt7ec50W8SyVvX"))


def changed_counter(root: Path) -> None:
    edit_json(root, E2, lambda d: d["counters"].update(stripeCreateRequests=2))


def acceptance_rewritten(root: Path) -> None:
    edit_json(root, E2, lambda d: d["acceptance"].update(result="passed"))


def marker_removed(root: Path) -> None:
    def change(d: Any) -> None:
        d["messages"] = [m for m in d["messages"] if m.get("content") != MARKER]

    edit_json(root, E3_TRANSCRIPT, change)


def marker_reworded(root: Path) -> None:
    def change(d: Any) -> None:
        for m in d["messages"]:
            if m.get("content") == MARKER:
                m["content"] = "ok"

    edit_json(root, E3_TRANSCRIPT, change)


CONSISTENCY = {
    "changed-payment-intent": (changed_payment_intent, "assertion.failed", E1),
    "changed-counter": (changed_counter, "assertion.failed", E2),
    "acceptance-rewritten-as-passed": (acceptance_rewritten, "assertion.failed", E2),
    "interruption-marker-removed": (marker_removed, "assertion.failed", E3_TRANSCRIPT),
    "interruption-marker-reworded": (marker_reworded, "assertion.failed", E3_TRANSCRIPT),
}

CASES = INTEGRITY | VALIDITY | CONSISTENCY


@pytest.mark.parametrize("name", sorted(CASES))
def test_tamper_fires_its_code(archive: Path, name: str) -> None:
    tamper, code, path = CASES[name]
    tamper(archive)
    rc, report = run_check(archive)
    assert rc == 1
    assert report["ok"] is False
    hits = findings(report, code)
    assert hits, f"{code} not reported; got {sorted(codes(report))}"
    assert path in {f["path"] for f in hits} | {
        r["path"] for a in report["assertions"] if a["status"] != "passed" for r in a["reads"]
    }


def test_acceptance_rewrite_names_the_separation_assertion(archive: Path) -> None:
    acceptance_rewritten(archive)
    _, report = run_check(archive)
    failed = {a["id"] for a in report["assertions"] if a["status"] == "failed"}
    assert "e3.acceptance-separation" in failed


def test_changed_payment_intent_breaks_the_cross_record_assertion(archive: Path) -> None:
    changed_payment_intent(archive)
    _, report = run_check(archive)
    failed = {a["id"] for a in report["assertions"] if a["status"] == "failed"}
    assert "e1.payment-intent.across-records" in failed
    # the manifest was regenerated, so integrity itself is clean: the stages stay apart
    assert report["stages"][0]["findings"] == []


def test_a_mismatch_does_not_hide_later_stages(archive: Path) -> None:
    """A changed record with a stale manifest: integrity and consistency both report."""
    path = archive / E2
    data = json.loads(path.read_text(encoding="utf-8"))
    data["acceptance"]["result"] = "passed"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    _, report = run_check(archive)
    assert {"manifest.mismatch", "assertion.failed"} <= codes(report)


def test_pointer_to_nothing_is_an_error_never_a_pass(archive: Path) -> None:
    def change(d: Any) -> None:
        del d["counters"]["toolExecutions"]

    spec = json.loads((archive / "evidence/assertions.json").read_text(encoding="utf-8"))
    edit_json(archive, E2, change)
    _, report = run_check(archive)
    errors = [a for a in report["assertions"] if a["status"] == "error"]
    reading = [
        a
        for a in spec["assertions"]
        if "/counters/toolExecutions" in json.dumps(a) and E2 in json.dumps(a)
    ]
    assert errors and reading
    assert "assertion.error" in codes(report)


# --- the case catalogue --------------------------------------------------------------------

CATALOGUE = "evidence/cases.json"


def test_a_catalogue_cell_selecting_nothing_is_a_finding(archive: Path) -> None:
    """The table's cells are claims about the records: a check reports one that selects
    nothing, where it is in the catalogue, even though every assertion still passes."""

    def break_cell(data: Any) -> None:
        data["cases"][0]["counts"][0]["select"]["pointer"] = "/counters/nothing"
        data["cases"][1]["outcomes"][0]["select"]["file"] = "evidence/absent.json"

    edit_json(archive, CATALOGUE, break_cell)
    rc, report = run_check(archive)
    assert rc == 1
    found = findings(report, "catalogue.unresolved")
    assert [(f["path"], f["pointer"]) for f in found] == [
        (CATALOGUE, "/cases/0/counts/0/select/pointer"),
        (CATALOGUE, "/cases/1/outcomes/0/select/file"),
    ]
    assert "resolves to nothing" in found[0]["message"]
    assert codes(report) == {"catalogue.unresolved"}
    assert all(a["status"] == "passed" for a in report["assertions"])


def test_a_catalogue_naming_an_unknown_assertion_is_a_finding(archive: Path) -> None:
    def rename(data: Any) -> None:
        data["cases"][0]["counts"][0]["assertions"] = ["no.such.assertion"]
        data["cases"][0]["assertions"].append("nothing.*")

    edit_json(archive, CATALOGUE, rename)
    rc, report = run_check(archive)
    assert rc == 1
    found = findings(report, "catalogue.unknown-assertion")
    patterns = json.loads((archive / CATALOGUE).read_text())["cases"][0]["assertions"]
    assert sorted(f["pointer"] for f in found) == [
        f"/cases/0/assertions/{len(patterns) - 1}",
        "/cases/0/counts/0/assertions/0",
    ]
    assert codes(report) == {"catalogue.unknown-assertion"}


def test_a_catalogue_count_cell_over_something_not_an_array_is_a_finding(archive: Path) -> None:
    def count_a_scalar(data: Any) -> None:
        cell = data["cases"][0]["counts"][0]
        cell["count"] = cell.pop("select")

    edit_json(archive, CATALOGUE, count_a_scalar)
    rc, report = run_check(archive)
    assert rc == 1
    found = findings(report, "catalogue.unresolved")
    assert [f["pointer"] for f in found] == ["/cases/0/counts/0/count/pointer"]
    assert "is not an array" in found[0]["message"]
