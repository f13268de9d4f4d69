"""Every input a user gives the command that is read as JSON or TOML (a configuration file, a
pyproject.toml table, a --baseline file, a transcript to check or repair, an attestation
statement, a --catalogue file, and the archive's own assertion spec and case catalogue) is
hostile: deep nesting, numbers past any range, lone surrogates and repeated keys give a
finding or one line on standard error and exit 2, never a traceback or exit 3 (issue 34,
siblings of class 9: a deep `ignore = [[[...]]]` was a RecursionError, a 5,000-digit `jobs`
a ValueError)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.acceptance.test_formats import cli

DEPTH = 100_000

JSON: dict[str, bytes] = {
    "deep-array": b"[" * DEPTH + b"]" * DEPTH,
    "deep-object": b'{"a":' * DEPTH + b"1" + b"}" * DEPTH,
    "huge-float": b'{"a": 1e999999}',
    "huge-int": b'{"a": ' + b"9" * 100_000 + b"}",
    "escaped-lone-surrogate": b'{"a": "\\ud800"}',
    "raw-surrogate": b'{"a": "\xed\xa0\x80"}',
    "duplicate-keys": b'{"a": 1, "a": 2}',
}

TOML: dict[str, bytes] = {
    "deep-array": b"ignore = " + b"[" * DEPTH + b"]" * DEPTH + b"\n",
    "deep-inline-table": b"ignore = " + b"{a=" * DEPTH + b"1" + b"}" * DEPTH + b"\n",
    "huge-int": b"jobs = " + b"9" * 5_000 + b"\n",
    "huge-max-bytes": b"max-bytes = " + b"9" * 5_000 + b"\n",
    "huge-max-bytes-text": b'max-bytes = "' + b"9" * 5_000 + b'"\n',
    "inf": b"max-ratio = inf\n",
    "nan": b"max-ratio = nan\n",
    "escaped-lone-surrogate": b'ignore = "\\ud800"\n',
    "duplicate-keys": b'fail-on = "error"\nfail-on = "warning"\n',
}


def _config(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "c.toml").write_bytes(data)
    return ["check", str(archive), "--config", str(tmp / "c.toml"), "-q"]


def _pyproject(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "pyproject.toml").write_bytes(b"[tool.verify-evidence]\n" + data)
    return ["coverage", str(archive), "--config", str(tmp / "pyproject.toml"), "-q"]


def _baseline(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "b.json").write_bytes(data)
    return ["check", str(archive), "--no-config", "--baseline", str(tmp / "b.json"), "-q"]


def _transcript(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "t.json").write_bytes(data)
    return ["transcript", "check", str(tmp / "t.json")]


def _transcript_lines(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "t.jsonl").write_bytes(b'{"role": "user", "content": "hi"}\n' + data + b"\n")
    return ["transcript", "check", str(tmp / "t.jsonl"), "--format", "sarif"]


def _repair(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "t.json").write_bytes(data)
    return ["transcript", "repair", str(tmp / "t.json"), "-o", str(tmp / "out.json")]


def _attestation(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "s.json").write_bytes(data)
    signers = tmp / "allowed_signers"
    signers.write_text(
        "a@example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKpbD0a6v2xw2z0X0m0yqk1dGq5rJ0yq2cMvV"
        "HnEo4Hn\n",
        encoding="utf-8",
    )
    return ["attestation", "verify", str(tmp / "s.json"), "--allowed-signers", str(signers)]


def _catalogue(tmp: Path, archive: Path, data: bytes) -> list[str]:
    (tmp / "cases.json").write_bytes(data)
    return ["table", str(archive), "--no-config", "--catalogue", str(tmp / "cases.json")]


def _spec(tmp: Path, archive: Path, data: bytes) -> list[str]:
    copy = Path(shutil.copytree(archive, tmp / "copy"))
    (copy / "evidence/assertions.json").write_bytes(data)
    (copy / "evidence/cases.json").write_bytes(data)
    return ["check", str(copy), "--no-config", "--format", "sarif"]


Make = Callable[[Path, Path, bytes], list[str]]
CASES: list[tuple[str, Make, str, bytes]] = [
    *((f"config-{k}", _config, k, v) for k, v in TOML.items()),
    *((f"pyproject-{k}", _pyproject, k, v) for k, v in TOML.items() if "huge" in k or "deep" in k),
    *((f"baseline-{k}", _baseline, k, v) for k, v in JSON.items()),
    *((f"transcript-{k}", _transcript, k, v) for k, v in JSON.items()),
    *((f"transcript-jsonl-{k}", _transcript_lines, k, v) for k, v in JSON.items()),
    *((f"repair-{k}", _repair, k, v) for k, v in JSON.items()),
    *((f"attestation-{k}", _attestation, k, v) for k, v in JSON.items()),
    *((f"catalogue-{k}", _catalogue, k, v) for k, v in JSON.items()),
    *((f"spec-and-catalogue-{k}", _spec, k, v) for k, v in JSON.items()),
]


@pytest.mark.parametrize(("make", "data"), [pytest.param(m, d, id=i) for i, m, _, d in CASES])
def test_hostile_user_inputs_never_crash(
    make: Make, data: bytes, archive: Path, tmp_path: Path
) -> None:
    work = tmp_path / "in"
    work.mkdir()
    proc = cli(*make(work, archive, data), cwd=work)
    assert proc.returncode in (0, 1, 2), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    if proc.returncode == 2:
        assert proc.stderr.count("\n") == 1, proc.stderr
