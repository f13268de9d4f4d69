"""Work spread over processes gives the same report, byte for byte, as one process.

Each serial-versus-parallel comparison also proves the parallel path ran: the run says how
many processes read the archive's files (``Run.read_processes``), and the ``spread`` fixture
makes this process's first batch wait until a forked worker has read one, so the count does
not depend on how the scheduler happened to share the batches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import verifier.execute.interface
import verifier.judge.integrity
from tests.conftest import REPO, require_module, write_archive
from tests.spread import spread_reads
from verifier import verify
from verifier.pipeline import Options, run
from verifier.views.check import CHECK as FORMATS


@pytest.fixture
def spread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parallel reads from two files on, in batches of three; this process waits for a
    forked worker to read a batch before it reads its first (tests/spread.py)."""
    spread_reads(monkeypatch.setattr)


def serial_and_parallel(root: Path) -> tuple[str, str]:
    """The JSON report of one process and of two; the second run must have forked a worker
    that read files."""
    one = run(root, Options(workers=1))
    two = run(root, Options(workers=2))
    assert one.read_processes == 1
    assert two.read_processes == 2, "the parallel path did not run: no worker read a file"
    return FORMATS["json"](one.report), FORMATS["json"](two.report)


def test_parallel_and_serial_reports_are_identical(tmp_path: Path, spread: None) -> None:
    files: dict[str, bytes | str] = {f"blobs/b{i}.bin": bytes([i]) * (1000 + i) for i in range(40)}
    files["blobs/text.txt"] = "line\n" * 100
    root = write_archive(tmp_path, files)
    (root / "blobs/b3.bin").write_bytes(b"changed")
    (root / "blobs/text.txt").write_bytes(b"line\r\n" * 100)
    serial, parallel = serial_and_parallel(root)
    assert serial == parallel
    report = json.loads(serial)
    codes = [f["code"] for s in report["stages"] for f in s["findings"]]
    assert codes == ["manifest.mismatch", "manifest.mismatch"]
    hints = [f.get("hint", "") for s in report["stages"] for f in s["findings"]]
    assert any("CRLF" in h for h in hints)


def test_stages_can_be_skipped(tmp_path: Path) -> None:
    from tests.conftest import REPO

    report = verify(REPO, Options(stages=frozenset({"integrity"})))
    assert [s.status.value for s in report.stages] == ["passed", "skipped", "skipped"]
    assert report.ok and report.assertions == []
    both = verify(REPO, Options(stages=frozenset({"integrity", "consistency"})))
    assert both.validity.status.value == "skipped"
    assert both.consistency.status.value == "passed" and both.assertions


def test_progress_is_reported(tmp_path: Path) -> None:
    files: dict[str, bytes | str] = {f"data/f{i}.txt": str(i) for i in range(2500)}
    root = write_archive(tmp_path, files)
    calls: list[tuple[str, int, int]] = []
    verify(root, Options(workers=1, progress=lambda *a: calls.append(a)))
    assert calls and calls[-1][0] == "integrity" and calls[-1][2] == 2500


def _generated(root: Path, records: int) -> Path:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "generate", Path(__file__).parents[2] / "benchmarks" / "generate.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(str(root), records, 7, 0, 0)
    return root


def test_records_and_assertions_across_batches_match_serial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spread: None
) -> None:
    """A generated archive, damaged in every way a stage reports, with assertions that span
    batches, read globs, repeat ids: the report is the same byte for byte whether one
    process read it all or batches of seven files were read (and their local assertions
    evaluated) in two processes."""
    from tests.conftest import rewrite_manifest

    root = _generated(tmp_path / "gen", 150)
    cases = root / "evidence" / "cases" / "000"
    spec_path = root / "evidence" / "assertions.json"
    spec = json.loads(spec_path.read_text())
    first, last = "case-000000", "case-000049"
    spec["assertions"] += [
        {  # records far apart: never in one batch
            "id": "x.across",
            "kind": "same-value",
            "selects": [
                {"file": f"evidence/cases/000/{first}/readback.json", "pointer": "/object/amount"},
                {"file": f"evidence/cases/000/{last}/readback.json", "pointer": "/object/amount"},
            ],
        },
        {
            "id": "x.glob",
            "kind": "count",
            "files": "evidence/cases/000/*/run.json",
            "distinct": "/status",
            "equals": 1,
        },
        {
            "id": "x.glob-intact",
            "kind": "count",
            "files": "evidence/cases/000/case-00002?/run.json",
            "distinct": "/status",
            "equals": 1,
        },
        {"id": "x.across", "kind": "equals", "select": {"file": "a", "pointer": ""}, "value": 1},
        {"id": "x.unknown", "kind": "no-such-kind"},
        {"id": "x.missing", "kind": "equals", "select": {"file": "nope.json", "pointer": "/a"}},
    ]
    spec_path.write_text(json.dumps(spec, indent=1))
    (cases / "case-000003" / "readback.json").write_text(
        (cases / "case-000003" / "readback.json").read_text().replace('"pi_', '"px_', 1)
    )
    (cases / "case-000005" / "run.json").write_text("{not json")
    (cases / "case-000007" / "transcript.json").unlink()
    run = json.loads((cases / "case-000009" / "run.json").read_text())
    run["counters"]["toolExecutions"] += 1
    run["status"] = "sideways"
    (cases / "case-000009" / "run.json").write_text(json.dumps(run))
    rewrite_manifest(root)
    (cases / "case-000011" / "readback.json").write_text("{}")  # a mismatch, and invalid
    (cases / "case-000013" / "stray.json").write_text('{"a": 1}')  # unlisted

    monkeypatch.setattr(verifier.execute.interface, "BATCH_ITEMS", 7)
    serial, parallel = serial_and_parallel(root)
    assert serial == parallel
    report = json.loads(serial)
    codes = {f["code"] for s in report["stages"] for f in s["findings"]}
    assert {
        "manifest.mismatch",
        "manifest.unlisted",
        "record.invalid-json",
        "schema.invalid",
        "assertion.failed",
        "assertion.error",
    } <= codes
    statuses: dict[str, str] = {}
    for a in report["assertions"]:
        statuses.setdefault(a["id"], a["status"])
    assert statuses["c000003.same-payment"] == "failed"
    assert statuses["c000009.unchanged"] == "failed"
    assert statuses["c000007.messages"] == "error"
    assert statuses["x.across"] == "passed"
    assert statuses["x.glob"] == "error"  # case-000005's run.json does not parse
    assert statuses["x.glob-intact"] == "passed"
    assert [a["status"] for a in report["assertions"] if a["id"] == "x.across"][1] == "error"


def test_a_bag_on_a_folder_is_read_in_parallel(tmp_path: Path, spread: None) -> None:
    """A bag on a folder forks workers like the folder does, and its report is the same as
    one process's (it used to be read in one process whatever -j said)."""
    import shutil

    bagit: Any = require_module("bagit")
    root = tmp_path / "bag"
    shutil.copytree(REPO / "evidence", root / "evidence")
    shutil.copytree(REPO / "schemas", root / "schemas")
    shutil.copy2(REPO / "manifest.sha256", root / "manifest.sha256")
    bagit.make_bag(str(root), checksums=["sha256"])
    (root / "data/evidence/e7-stripe-readback/payment-intents.json").write_text("{}")
    serial, parallel = serial_and_parallel(root)
    assert serial == parallel
    codes = {f["code"] for s in json.loads(serial)["stages"] for f in s["findings"]}
    assert "manifest.mismatch" in codes


def test_a_streamed_source_says_it_read_in_one_process(tmp_path: Path) -> None:
    """The count is a fact, not a setting: a tarball cannot be read by forked workers, so
    -j 2 on it reports one reading process."""
    from tests.archives import tar_tree

    root = write_archive(tmp_path / "a", {f"data/f{i}.txt": str(i) for i in range(10)})
    tarball = tar_tree(root, tmp_path / "a.tar.gz")
    assert run(tarball, Options(workers=2)).read_processes == 1
