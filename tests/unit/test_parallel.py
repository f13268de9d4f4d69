"""Work spread over processes gives the same report, byte for byte, as one process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import verifier.parallel
from tests.conftest import write_archive
from verifier import verify
from verifier.formats import FORMATS
from verifier.parallel import map_batches
from verifier.pipeline import Options


def test_map_batches_keeps_input_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verifier.parallel, "MIN_ITEMS", 2)
    monkeypatch.setattr(verifier.parallel, "BATCH_ITEMS", 3)
    seen: list[int] = []
    out = map_batches(_double, list(range(50)), workers=2, progress=seen.append)
    assert out == [2 * i for i in range(50)]
    assert sum(seen) == 50


def _double(batch: list[int]) -> list[int]:
    return [2 * i for i in batch]


def test_parallel_and_serial_reports_are_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verifier.parallel, "MIN_ITEMS", 2)
    files: dict[str, bytes | str] = {f"blobs/b{i}.bin": bytes([i]) * (1000 + i) for i in range(40)}
    files["blobs/text.txt"] = "line\n" * 100
    root = write_archive(tmp_path, files)
    (root / "blobs/b3.bin").write_bytes(b"changed")
    (root / "blobs/text.txt").write_bytes(b"line\r\n" * 100)
    serial = FORMATS["json"](verify(root, Options(workers=1)))
    parallel = FORMATS["json"](verify(root, Options(workers=2)))
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
