"""``check --witness-key --checkpoint`` on a copy of the bundled archive holding a witness log
named in its spec's ``witnesses``: an honest log passes, a log cut behind a kept checkpoint
fails, and what could not be checked is said, never passed in silence."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_bundled, rewrite_manifest
from tests.gateway import Gateway

KEY = bytes(range(32))
LOG = "evidence/witness/audit.jsonl"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args], capture_output=True, text=True, check=False
    )


def _gateway() -> Gateway:
    gateway = Gateway(hmac_key=KEY)
    for n in range(4):
        gateway.call(f"payments/step_{n}")
        if n % 2:
            gateway.checkpoint()
    return gateway


@pytest.fixture
def witnessed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The archive (with the log), the key file and a kept checkpoint file."""
    root = copy_bundled(tmp_path / "archive")
    gateway = _gateway()
    (root / LOG).parent.mkdir()
    (root / LOG).write_bytes(gateway.log())
    spec_path = root / "evidence" / "assertions.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    spec["witnesses"] = [{"files": "evidence/witness/*.jsonl"}]
    spec_path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(root)
    key = tmp_path / "key.hex"
    key.write_text(KEY.hex() + "\n")
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps(gateway.external()))
    return root, key, kept


def _chain(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    report = json.loads(proc.stdout)
    return sorted(
        (f["code"], f["severity"]) for f in report["findings"] if f["code"].startswith("chain.")
    )


def test_an_honest_log_with_its_key_and_kept_checkpoint_passes(
    witnessed: tuple[Path, Path, Path],
) -> None:
    root, key, kept = witnessed
    proc = cli(
        "check",
        str(root),
        "--format",
        "json",
        "--witness-key",
        f"hmac-sha256:{key}",
        "--checkpoint",
        str(kept),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _chain(proc) == []


def test_without_key_or_checkpoint_notes_say_what_was_not_checked(
    witnessed: tuple[Path, Path, Path],
) -> None:
    root, _, _ = witnessed
    proc = cli("check", str(root), "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _chain(proc) == [
        ("chain.signatures-unchecked", "note"),
        ("chain.tail-unanchored", "note"),
    ]


def test_a_log_cut_behind_the_kept_checkpoint_fails(witnessed: tuple[Path, Path, Path]) -> None:
    root, key, kept = witnessed
    lines = (root / LOG).read_bytes().splitlines(keepends=True)
    (root / LOG).write_bytes(b"".join(lines[:-3]))  # the last checkpoint and two records
    rewrite_manifest(root)  # (whoever cut it also rewrote the manifest)
    proc = cli(
        "check",
        str(root),
        "--format",
        "json",
        "--witness-key",
        f"hmac-sha256:{key}",
        "--checkpoint",
        str(kept),
    )
    assert proc.returncode == 1
    assert _chain(proc) == [("chain.head-missing", "error")]


def test_a_zip_of_the_archive_gives_the_same_verdict(
    witnessed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    root, key, kept = witnessed
    record = json.loads((root / LOG).read_bytes().splitlines()[1])
    record["success"] = False  # (changed after it was signed; the manifest rewritten)
    lines = (root / LOG).read_bytes().splitlines()
    lines[1] = json.dumps(record, separators=(",", ":")).encode()
    (root / LOG).write_bytes(b"\n".join(lines) + b"\n")
    rewrite_manifest(root)
    zipped = shutil.make_archive(str(tmp_path / "archive"), "zip", root)
    args = ("--format", "json", "--witness-key", f"hmac-sha256:{key}", "--checkpoint", str(kept))
    folder, packed = cli("check", str(root), *args), cli("check", zipped, *args)
    assert folder.returncode == packed.returncode == 1
    assert _chain(folder) == _chain(packed)
    assert ("chain.bad-signature", "error") in _chain(folder)
    assert ("chain.unlinked", "error") in _chain(folder)


def test_a_checkpoint_of_no_log_and_a_pattern_of_no_file_are_findings(
    witnessed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    root, _, _ = witnessed
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps({"previousHash": "f" * 64, "sequence": 1, "recordCount": 1, "file": "x.jsonl"})
    )
    spec_path = root / "evidence" / "assertions.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    spec["witnesses"].append({"files": "evidence/nowhere/*.jsonl"})
    spec_path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(root)
    proc = cli("check", str(root), "--format", "json", "--checkpoint", str(other))
    assert proc.returncode == 1
    codes = [c for c, _ in _chain(proc)]
    assert "chain.checkpoint-unmatched" in codes
    assert "chain.unmatched-pattern" in codes


@pytest.mark.parametrize(
    ("option", "content", "says"),
    [
        ("--witness-key", b"not hex", "Ed25519 public key"),
        ("--witness-key", b"zz", "HMAC key file"),
        ("--checkpoint", b'{"sequence": 1}', "needs previousHash"),
        ("--checkpoint", b"[", "not JSON"),
    ],
)
def test_a_key_or_checkpoint_that_cannot_be_used_stops_the_run(
    witnessed: tuple[Path, Path, Path], tmp_path: Path, option: str, content: bytes, says: str
) -> None:
    root, _, _ = witnessed
    given = tmp_path / "given"
    given.write_bytes(content)
    value = f"hmac-sha256:{given}" if says == "HMAC key file" else str(given)
    proc = cli("check", str(root), option, value)
    assert proc.returncode == 2
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_worker_processes_check_the_log_with_the_key_as_this_process_does(
    witnessed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The witness key and the kept checkpoint travel to worker processes with the schema
    bundle: read by two workers (tests/spread.py makes both read, and counts them), the report
    is the same bytes as read here, with the signatures checked."""
    import os

    from tests.conftest import REPO

    root, key, kept = witnessed
    args: tuple[str, ...] = ("check", str(root), "--format", "json")
    args += ("--witness-key", f"hmac-sha256:{key}", "--checkpoint", str(kept))
    here = cli(*args, "--jobs", "1")
    counts = tmp_path / "processes.txt"
    workers = subprocess.run(
        [sys.executable, "-m", "tests.spread", str(counts), *args, "--jobs", "2"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert counts.read_text(encoding="utf-8") == "2\n"  # two processes read the archive
    assert here.returncode == workers.returncode == 0, workers.stderr
    assert here.stdout == workers.stdout
    assert _chain(here) == []  # signed and anchored: the key and checkpoint were applied
