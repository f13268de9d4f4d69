"""Signing where the archive is made: ``manifest --write --sign-ssh`` and ``--sign-minisign``
write signatures that the real tools accept (``ssh-keygen -Y verify``, ``minisign -V``) and
that ``check`` verifies; the native Ed25519 SSH signer and the scrypt-protected minisign key
reader, against keys the tools themselves made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_tool
from tests.signing import (
    check,
    minisign_key,
    minisign_verifies,
    signer_line,
    small_archive,
    ssh_key,
    ssh_keygen_verifies,
)
from verifier.authenticity.minisign import parse_public_key
from verifier.authoring.sign_minisign import PASSWORD_ENV, scrypt_params
from verifier.authoring.sign_ssh import sign_ssh
from verifier.errors import UsageError


def _manifest(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", "manifest", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("kind", ["ed25519", "ecdsa"])
def test_sign_ssh_through_ssh_keygen(tmp_path: Path, kind: str) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k", kind=kind)
    proc = _manifest(root, "--write", "--sign-ssh", str(key))
    assert proc.returncode == 0, proc.stderr
    allowed = tmp_path / "allowed"
    allowed.write_text(signer_line(key))
    manifest = root / "manifest.sha256"
    sig = root / "manifest.sha256.sig"
    assert ssh_keygen_verifies(allowed, "alice@example.com", sig, manifest)
    assert check(root, allowed_signers=allowed.read_bytes()).signers


def test_sign_ssh_natively_with_an_ed25519_key(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    key = ssh_key(tmp_path / "k")
    manifest = root / "manifest.sha256"
    sig = root / "manifest.sha256.sig"
    sig.write_bytes(sign_ssh(key, manifest.read_bytes(), native=True))
    allowed = tmp_path / "allowed"
    allowed.write_text(signer_line(key))
    assert ssh_keygen_verifies(allowed, "alice@example.com", sig, manifest)
    assert check(root, allowed_signers=allowed.read_bytes()).signers


def test_native_ssh_signing_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    ecdsa = ssh_key(tmp_path / "k", kind="ecdsa")
    with pytest.raises(UsageError, match="Ed25519"):
        sign_ssh(ecdsa, b"m", native=True)
    exe = require_tool("ssh-keygen")
    locked = tmp_path / "locked"
    subprocess.run(
        [exe, "-q", "-t", "ed25519", "-N", "secret", "-f", str(locked)],
        check=True,
        capture_output=True,
    )
    with pytest.raises(UsageError, match="unencrypted"):
        sign_ssh(locked, b"m", native=True)


def test_sign_minisign_with_an_unencrypted_key(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    pub, sec = minisign_key(tmp_path / "k")
    proc = _manifest(
        root, "--write", "--sign-minisign", str(sec), env={"SOURCE_DATE_EPOCH": "1700000000"}
    )
    assert proc.returncode == 0, proc.stderr
    assert minisign_verifies(pub, root / "manifest.sha256", prehashed_only=True)
    report = check(root, minisign_key=parse_public_key(pub.read_bytes()))
    signer = report.signers[0].verdict.signer
    assert signer is not None
    assert signer.comment == "timestamp:1700000000\tfile:manifest.sha256\thashed"


def test_sign_minisign_with_an_encrypted_key(tmp_path: Path) -> None:
    """A key minisign itself encrypted (scrypt at minisign's own 1 GiB setting), its password
    from the environment; a wrong password is exit 2 and nothing is written."""
    exe = require_tool("minisign")
    root = small_archive(tmp_path / "a")
    pub, sec = tmp_path / "e.pub", tmp_path / "e.key"
    subprocess.run(
        [exe, "-G", "-p", str(pub), "-s", str(sec)],
        input=b"correct horse\ncorrect horse\n",
        check=True,
        capture_output=True,
    )
    before = (root / "manifest.sha256").read_bytes()
    bad = _manifest(root, "--write", "--sign-minisign", str(sec), env={PASSWORD_ENV: "wrong"})
    assert bad.returncode == 2 and "wrong password" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    assert not (root / "manifest.sha256.minisig").exists()
    assert (root / "manifest.sha256").read_bytes() == before
    proc = _manifest(
        root, "--write", "--sign-minisign", str(sec), env={PASSWORD_ENV: "correct horse"}
    )
    assert proc.returncode == 0, proc.stderr
    assert minisign_verifies(pub, root / "manifest.sha256", prehashed_only=True)


def test_an_encrypted_key_without_a_password_source_is_a_usage_error(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    raw = bytearray(b"Ed" + b"Sc" + b"B2" + bytes(152))
    import base64

    key = tmp_path / "k.key"
    key.write_bytes(b"untrusted comment: x\n" + base64.b64encode(bytes(raw)) + b"\n")
    env = {k: v for k, v in os.environ.items() if k != PASSWORD_ENV}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "verifier",
            "manifest",
            str(root),
            "--write",
            "--sign-minisign",
            str(key),
        ],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 2 and PASSWORD_ENV in proc.stderr


def test_signing_needs_write(tmp_path: Path) -> None:
    root = small_archive(tmp_path / "a")
    proc = _manifest(root, "--sign-ssh", str(tmp_path / "none"))
    assert proc.returncode == 2 and "--write" in proc.stderr


def test_scrypt_parameters_are_libsodiums() -> None:
    assert scrypt_params(33554432, 1073741824) == (1 << 20, 8, 1)  # minisign's default
    assert scrypt_params(524288, 16777216) == (1 << 14, 8, 1)  # libsodium's interactive
