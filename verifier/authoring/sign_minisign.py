"""Signing a manifest with a minisign secret key, natively.

The secret key file is base64 of: the signature algorithm (``Ed``), the key derivation
(``Sc``: scrypt, or two zero bytes: unencrypted), the checksum algorithm (``B2``), the scrypt
salt (32 bytes), opslimit and memlimit (little-endian 64-bit), then the key id (8), the
Ed25519 secret key (64) and a BLAKE2b-256 checksum (32), those 104 bytes XORed with an
scrypt stream when encrypted. scrypt's N, r and p come from opslimit and memlimit as
libsodium's ``crypto_pwhash_scryptsalsa208sha256`` picks them. The signature is minisign's
current (prehashed ``ED``) form, with a trusted comment ``timestamp:...\\tfile:...\\thashed``
(the time from ``SOURCE_DATE_EPOCH`` when set, for reproducible releases).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import time
from collections.abc import Callable

from verifier.authenticity.minisign import b64_to_bin, key_file_line
from verifier.errors import UsageError

PASSWORD_ENV = "VERIFY_EVIDENCE_MINISIGN_PASSWORD"
SECRET_LENGTH = 158
#: refuse key files that ask scrypt for more than this (libsodium's "sensitive" is 1 GiB)
MAX_MEMLIMIT = 1 << 31


def scrypt_params(opslimit: int, memlimit: int) -> tuple[int, int, int]:
    """(N, r, p) as libsodium's ``pickparams`` derives them."""
    opslimit = max(opslimit, 32768)
    r = 8
    if opslimit < memlimit // 32:
        p = 1
        max_n = opslimit // (r * 4)
        n_log2 = 1
        while n_log2 < 63 and (1 << n_log2) <= max_n // 2:
            n_log2 += 1
    else:
        max_n = memlimit // (r * 128)
        n_log2 = 1
        while n_log2 < 63 and (1 << n_log2) <= max_n // 2:
            n_log2 += 1
        max_rp = min((opslimit // 4) // (1 << n_log2), 0x3FFFFFFF)
        p = max_rp // r
    return 1 << n_log2, r, max(p, 1)


def read_secret_key(data: bytes, password: Callable[[], str]) -> tuple[bytes, bytes]:
    """The key id (8 bytes) and Ed25519 secret key (64) of a minisign secret key file;
    ``password`` is asked only when the key is encrypted. :class:`UsageError` otherwise."""
    try:  # read as minisign's seckey_load reads it: the comment line, then the key line
        raw = b64_to_bin(key_file_line(data, SECRET_LENGTH), SECRET_LENGTH) or b""
    except ValueError:
        raw = b""
    if len(raw) != SECRET_LENGTH or raw[:2] != b"Ed" or raw[4:6] != b"B2":
        raise UsageError("--sign-minisign: not a minisign secret key")
    kdf, salt = raw[2:4], raw[6:38]
    opslimit = int.from_bytes(raw[38:46], "little")
    memlimit = int.from_bytes(raw[46:54], "little")
    body = raw[54:]
    if kdf == b"Sc":
        if memlimit > MAX_MEMLIMIT:
            raise UsageError(f"--sign-minisign: the key asks scrypt for {memlimit} bytes")
        n, r, p = scrypt_params(opslimit, memlimit)
        secret = password().encode("utf-8")
        stream = hashlib.scrypt(
            secret, salt=salt, n=n, r=r, p=p, maxmem=128 * r * (n + p + 2) + (1 << 20), dklen=104
        )
        body = bytes(a ^ b for a, b in zip(body, stream, strict=True))
    elif kdf != b"\0\0":
        raise UsageError("--sign-minisign: unknown key derivation in the secret key")
    key_id, secret_key, check = body[:8], body[8:72], body[72:104]
    want = hashlib.blake2b(raw[:2] + key_id + secret_key, digest_size=32).digest()
    unencrypted = kdf == b"\0\0" and check == bytes(32)  # minisign -W writes no checksum
    if not unencrypted and not hmac.compare_digest(want, check):
        raise UsageError("--sign-minisign: wrong password (the key's checksum does not match)")
    if not _consistent(secret_key):
        raise UsageError("--sign-minisign: the secret key is damaged (its halves disagree)")
    return key_id, secret_key


def _consistent(secret_key: bytes) -> bool:
    """Whether the Ed25519 secret key's public half is the one its seed derives."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = Ed25519PrivateKey.from_private_bytes(secret_key[:32]).public_key()
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw) == secret_key[32:]


def ask_password() -> str:
    """The password: ``VERIFY_EVIDENCE_MINISIGN_PASSWORD``, else asked on the terminal."""
    given = os.environ.get(PASSWORD_ENV)
    if given is not None:
        return given
    import getpass
    import sys

    if not sys.stdin.isatty():
        raise UsageError(
            f"--sign-minisign: the key is encrypted; set {PASSWORD_ENV} or run on a terminal"
        )
    return getpass.getpass("minisign key password: ")


def sign_minisign(
    data: bytes, message: bytes, file_name: str, password: Callable[[], str] = ask_password
) -> bytes:
    """The ``.minisig`` text of ``message`` signed by the secret key ``data``."""
    return minisign_signature(read_secret_key(data, password), message, file_name)


def minisign_signature(secret: tuple[bytes, bytes], message: bytes, file_name: str) -> bytes:
    """The ``.minisig`` text of ``message`` signed by a key read by :func:`read_secret_key`."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key_id, secret_key = secret
    private = Ed25519PrivateKey.from_private_bytes(secret_key[:32])
    signature = private.sign(hashlib.blake2b(message, digest_size=64).digest())
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    when = int(epoch) if epoch.isdigit() else int(time.time())
    safe_name = "".join(c if c.isprintable() and c not in "\t" else "_" for c in file_name)
    comment = f"timestamp:{when}\tfile:{safe_name}\thashed".encode()
    global_signature = private.sign(signature + comment)
    return b"".join(
        (
            b"untrusted comment: signature from minisign secret key\n",
            base64.b64encode(b"ED" + key_id + signature) + b"\n",
            b"trusted comment: " + comment + b"\n",
            base64.b64encode(global_signature) + b"\n",
        )
    )


__all__ = [
    "PASSWORD_ENV",
    "ask_password",
    "minisign_signature",
    "read_secret_key",
    "scrypt_params",
    "sign_minisign",
]
