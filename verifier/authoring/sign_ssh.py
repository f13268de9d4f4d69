"""Signing a manifest with an OpenSSH key (SSHSIG, namespace ``file``): through
``ssh-keygen -Y sign`` when it is installed (any key type it supports, a passphrase asked on
the terminal by ssh-keygen itself), else natively for an unencrypted Ed25519 key."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

from verifier.authenticity.sshblob import string
from verifier.authenticity.sshsig import BEGIN, END, MAGIC, signed_data
from verifier.errors import UsageError

TIMEOUT_SECONDS = 300


def sign_ssh(key: Path, message: bytes, namespace: str = "file", *, native: bool = False) -> bytes:
    """The armoured SSH signature of ``message`` by the private key at ``key``."""
    if not key.is_file():
        raise UsageError(f"--sign-ssh {key}: no such file")
    exe = None if native else shutil.which("ssh-keygen")
    if exe is not None:
        try:
            proc = subprocess.run(
                [exe, "-q", "-Y", "sign", "-f", str(key), "-n", namespace],
                input=message,
                capture_output=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise UsageError("ssh-keygen -Y sign did not finish") from None
        if proc.returncode != 0 or BEGIN not in proc.stdout:
            why = proc.stderr.decode(errors="replace").strip().splitlines()
            raise UsageError(f"ssh-keygen -Y sign failed: {why[-1] if why else proc.returncode}")
        return proc.stdout
    return _native(key, message, namespace)


def _native(key: Path, message: bytes, namespace: str) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        PublicFormat,
        load_ssh_private_key,
    )

    try:
        private = load_ssh_private_key(key.read_bytes()[: 1 << 20], password=None)
    except (ValueError, TypeError) as exc:
        raise UsageError(
            f"--sign-ssh {key}: without ssh-keygen only an unencrypted OpenSSH Ed25519 key can "
            f"sign ({exc}); install openssh-client"
        ) from None
    if not isinstance(private, Ed25519PrivateKey):
        raise UsageError(
            f"--sign-ssh {key}: without ssh-keygen only Ed25519 keys can sign; install "
            "openssh-client"
        )
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    blob = string(b"ssh-ed25519") + string(raw)
    data = signed_data(namespace.encode(), b"", "sha512", message)
    signature = string(b"ssh-ed25519") + string(private.sign(data))
    sshsig = (
        MAGIC
        + (1).to_bytes(4, "big")
        + string(blob)
        + string(namespace.encode())
        + string(b"")
        + string(b"sha512")
        + string(signature)
    )
    body = base64.b64encode(sshsig)
    lines = [body[i : i + 70] for i in range(0, len(body), 70)]
    return BEGIN + b"\n" + b"\n".join(lines) + b"\n" + END + b"\n"


__all__ = ["sign_ssh"]
