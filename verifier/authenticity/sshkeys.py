"""SSH public keys: the types accepted, loading one from its wire blob (with
``cryptography``), and checking a raw signature with it. Ed25519, ECDSA over NIST P-256,
P-384 and P-521, and RSA (2048 to 16384 bits) with SHA-2 signatures only."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from verifier.authenticity.sshblob import Reader, WireError
from verifier.findings import a_or_an

#: key type -> the signature formats its signatures may use
SIGNATURE_FORMATS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "ssh-ed25519": ("ssh-ed25519",),
        "ecdsa-sha2-nistp256": ("ecdsa-sha2-nistp256",),
        "ecdsa-sha2-nistp384": ("ecdsa-sha2-nistp384",),
        "ecdsa-sha2-nistp521": ("ecdsa-sha2-nistp521",),
        "ssh-rsa": ("rsa-sha2-256", "rsa-sha2-512"),
    }
)
MIN_RSA_BITS = 2048
MAX_RSA_BITS = 16384


def key_type(blob: bytes) -> str:
    """The type named at the head of a public key blob (:class:`WireError` if none)."""
    return Reader(blob).text()


def load(blob: bytes) -> Any:
    """The ``cryptography`` public key of an accepted type, or :class:`WireError`."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_ssh_public_key

    kind = key_type(blob)
    if kind not in SIGNATURE_FORMATS:
        raise WireError(f"key type {kind!r} is not supported")
    try:
        key = load_ssh_public_key(kind.encode() + b" " + base64.b64encode(blob))
    except (ValueError, TypeError):
        raise WireError(f"not a valid {kind} key") from None
    if isinstance(key, rsa.RSAPublicKey) and not MIN_RSA_BITS <= key.key_size <= MAX_RSA_BITS:
        raise WireError(f"an RSA key of {key.key_size} bits (accepted: 2048 to 16384)")
    return key


def check(blob: bytes, sig_format: str, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` (the raw blob of an SSH signature of ``sig_format``) is the key
    ``blob``'s signature over ``data``. :class:`WireError` for a format the key cannot use."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    kind = key_type(blob)
    if sig_format not in SIGNATURE_FORMATS.get(kind, ()):
        raise WireError(f"a {sig_format!r} signature from {a_or_an(kind)} key is not accepted")
    key = load(blob)
    try:
        if kind == "ssh-ed25519":
            key.verify(signature, data)
        elif kind.startswith("ecdsa-"):
            inner = Reader(signature)
            r, s = inner.mpint(), inner.mpint()
            if not inner.done():
                raise WireError("trailing bytes after an ECDSA signature")
            algorithm: Any = {
                "ecdsa-sha2-nistp256": hashes.SHA256(),
                "ecdsa-sha2-nistp384": hashes.SHA384(),
                "ecdsa-sha2-nistp521": hashes.SHA512(),
            }[kind]
            key.verify(encode_dss_signature(r, s), data, ec.ECDSA(algorithm))
        else:
            algorithm = hashes.SHA256() if sig_format == "rsa-sha2-256" else hashes.SHA512()
            key.verify(signature, data, padding.PKCS1v15(), algorithm)
    except InvalidSignature:
        return False
    except ValueError:
        return False
    return True


__all__ = ["SIGNATURE_FORMATS", "check", "key_type", "load"]
