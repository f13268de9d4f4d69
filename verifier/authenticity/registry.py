"""The signature formats, in the order a signature's bytes are tried against them."""

from __future__ import annotations

from verifier.authenticity.interface import Format
from verifier.registry import Plugin, Registry

FORMATS: Registry[Format] = Registry(
    "signature formats",
    Plugin("sshsig", "verifier.authenticity.sshsig:FORMAT"),
    Plugin("minisign", "verifier.authenticity.minisign:FORMAT"),
    Plugin("openpgp", "verifier.authenticity.openpgp:FORMAT"),
)

#: the names looked for beside a manifest, in this order
SUFFIXES = (".sig", ".minisig", ".asc", ".gpg", ".sign")

#: a signature file larger than this is refused unread
MAX_SIGNATURE_BYTES = 1 << 20


def detect(data: bytes) -> str | None:
    """The format whose shape ``data`` has (by content, never by name), or ``None``."""
    for name in FORMATS:
        if FORMATS[name].detect(data):
            return name
    return None


__all__ = ["FORMATS", "MAX_SIGNATURE_BYTES", "SUFFIXES", "detect"]
