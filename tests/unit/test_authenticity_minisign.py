"""minisign signatures over the manifest: verified natively and compared with ``minisign -V``
on every variant (good, a tampered manifest, signature or trusted comment, a swapped key, a
legacy signature refused or allowed)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.signing import (
    check,
    codes,
    minisign_key,
    minisign_sign,
    minisign_verifies,
    small_archive,
)
from verifier.authenticity.interface import SignatureFile, Trust
from verifier.authenticity.minisign import parse_public_key, verify
from verifier.report import StageStatus


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = small_archive(tmp_path / "archive")
    pub, sec = minisign_key(tmp_path / "keys")
    minisign_sign(sec, root / "manifest.sha256", "timestamp:1700000000\tfile:manifest.sha256")
    return root, pub, tmp_path


def _run(root: Path, pub: Path, legacy: bool = False, prehashed_only: bool = True) -> list[str]:
    report = check(
        root, minisign_key=parse_public_key(pub.read_bytes()), allow_legacy_minisign=legacy
    )
    ours = bool(report.signers)
    theirs = minisign_verifies(pub, root / "manifest.sha256", prehashed_only=prehashed_only)
    assert ours == theirs, (codes(report), theirs)
    expected = StageStatus.PASSED if ours else StageStatus.FAILED
    assert report.authenticity.status is expected
    return codes(report)


def test_a_good_signature_verifies_and_shows_its_trusted_comment(
    signed: tuple[Path, Path, Path],
) -> None:
    root, pub, _ = signed
    assert _run(root, pub) == []
    report = check(root, minisign_key=parse_public_key(pub.read_bytes()))
    signer = report.signers[0].verdict.signer
    assert signer is not None
    key_id = pub.read_text().splitlines()[0].rsplit(" ", 1)[1]  # "... public key <ID>"
    assert signer.fingerprint == key_id
    assert signer.comment == "timestamp:1700000000\tfile:manifest.sha256"
    assert "prehashed BLAKE2b-512" in report.signers[0].verdict.method


def test_a_tampered_manifest_is_a_bad_signature(signed: tuple[Path, Path, Path]) -> None:
    root, pub, _ = signed
    manifest = root / "manifest.sha256"
    manifest.write_bytes(manifest.read_bytes().replace(b"a.json", b"A.json"))
    assert _run(root, pub) == ["signature.bad"]


def test_a_tampered_trusted_comment_is_refused_and_not_shown(
    signed: tuple[Path, Path, Path],
) -> None:
    root, pub, _ = signed
    sig = root / "manifest.sha256.minisig"
    sig.write_bytes(sig.read_bytes().replace(b"timestamp:1700000000", b"timestamp:1800000000"))
    assert _run(root, pub) == ["signature.bad"]
    report = check(root, minisign_key=parse_public_key(pub.read_bytes()))
    assert "1800000000" not in report.authenticity.findings[0].message
    assert not report.signers


def test_a_tampered_signature_is_refused(signed: tuple[Path, Path, Path]) -> None:
    root, pub, _ = signed
    sig = root / "manifest.sha256.minisig"
    lines = sig.read_bytes().split(b"\n")
    raw = bytearray(base64.b64decode(lines[1]))
    raw[20] ^= 0x01
    lines[1] = base64.b64encode(bytes(raw))
    sig.write_bytes(b"\n".join(lines))
    assert _run(root, pub) == ["signature.bad"]


def test_a_swapped_key_is_untrusted(signed: tuple[Path, Path, Path]) -> None:
    root, _, tmp = signed
    other, _ = minisign_key(tmp / "other")
    assert _run(root, other) == ["signature.untrusted-key"]


def test_legacy_signatures_are_refused_unless_allowed(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "archive")
    pub, sec = minisign_key(tmp_path / "keys")
    minisign_sign(sec, root / "manifest.sha256", legacy=True)
    assert _run(root, pub, prehashed_only=True) == ["signature.legacy-minisign"]
    assert _run(root, pub, legacy=True, prehashed_only=False) == []


def test_the_key_as_its_base64_line(signed: tuple[Path, Path, Path]) -> None:
    import subprocess
    import sys

    root, pub, _ = signed
    line = pub.read_text().splitlines()[1]
    for value in (line, str(pub)):
        proc = subprocess.run(
            [sys.executable, "-m", "verifier", "check", str(root), "--minisign-key", value],
            capture_output=True,
            text=True,
            check=False,
        )
        assert "trusted comment: timestamp:1700000000\\tfile:manifest.sha256" in proc.stdout
        assert "authenticity passed" in " ".join(proc.stdout.split())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=120), min_size=0, max_size=6))
def test_hostile_minisign_bytes_are_findings(lines: list[bytes]) -> None:
    data = b"\n".join([b"untrusted comment: x", *lines])
    key = b"Ed" + bytes(8) + bytes(32)
    verdict = verify(b"m", SignatureFile("x.minisig", data), Trust(minisign_key=key))
    assert verdict.findings and not verdict.verified


def test_a_weak_keys_forgery_is_refused() -> None:
    """#34 (sibling of class 7): with a trusted key of small order (here the identity point),
    "R = identity, S = 0" verifies any message under OpenSSL's Ed25519; libsodium, which
    minisign verifies with, refuses such a key, and so does the verifier."""
    key_id, forged = b"\x01" * 8, b"\x01" + bytes(63)
    key = b"Ed" + key_id + b"\x01" + bytes(31)
    data = b"\n".join(
        (
            b"untrusted comment: x",
            base64.b64encode(b"ED" + key_id + forged),
            b"trusted comment: forged",
            base64.b64encode(forged),
            b"",
        )
    )
    verdict = verify(b"any manifest", SignatureFile("x.minisig", data), Trust(minisign_key=key))
    assert not verdict.verified
    assert [f.code for f in verdict.findings] == ["signature.unsupported"]


def test_a_key_file_is_read_as_minisign_reads_it(signed: tuple[Path, Path, Path]) -> None:
    """#34 (sibling of class 7): a key file's first line is its comment, whatever it says;
    the key is the second line, ended at \\n (a form feed or U+2028 is no line end); a bare
    base64 line is a key given as its value (minisign -P), not a file."""
    _root, pub, _ = signed
    text = pub.read_bytes()
    line = text.split(b"\n")[1]
    assert parse_public_key(text) == base64.b64decode(line)
    assert parse_public_key(b"anything\n" + line) == base64.b64decode(line)
    for bad in (
        line + b"\n",
        text.replace(b"\n", b"\x0c", 1),
        text.replace(b"\n", b"\xe2\x80\xa8", 1),
    ):
        with pytest.raises(ValueError):
            parse_public_key(bad)


@pytest.mark.parametrize(
    "key", [b"", b"Ed" + b"\x05" * 39, b"Ed" + b"\x05" * 41, b"XX" + b"\x05" * 40]
)
def test_a_trusted_key_of_the_wrong_shape_is_a_finding(key: bytes) -> None:
    """A library caller's Trust with a key parse_public_key would refuse: a finding, never a
    traceback."""
    sig = b"\n".join(
        (
            b"untrusted comment: x",
            base64.b64encode(b"ED" + key[2:10].ljust(8, b"\0") + bytes(64)),
            b"trusted comment: c",
            base64.b64encode(bytes(64)),
            b"",
        )
    )
    verdict = verify(b"m", SignatureFile("x.minisig", sig), Trust(minisign_key=key))
    assert not verdict.verified and verdict.findings
