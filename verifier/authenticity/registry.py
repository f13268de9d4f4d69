"""The signature formats, in the order a signature's bytes are tried against them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from verifier.authenticity.interface import Format
from verifier.registry import Registry, said


@dataclass(frozen=True, slots=True)
class SignatureFormat:
    """A registry line: the format's name, where its module's ``FORMAT`` is, and what
    ``--help`` calls it."""

    name: str
    where: str
    called: str


FORMATS: Registry[Format] = Registry(
    "signature formats",
    SignatureFormat("sshsig", "verifier.authenticity.sshsig:FORMAT", "SSH"),
    SignatureFormat("minisign", "verifier.authenticity.minisign:FORMAT", "minisign"),
    SignatureFormat("openpgp", "verifier.authenticity.openpgp:FORMAT", "OpenPGP"),
)

#: the names looked for beside a manifest, in this order
SUFFIXES = (".sig", ".minisig", ".asc", ".gpg", ".sign")

#: a signature file larger than this is refused unread
MAX_SIGNATURE_BYTES = 1 << 20


def help_text() -> str:
    """What ``--signature`` says of the formats and the names looked for (no format imported)."""
    called = said(cast(SignatureFormat, FORMATS.entry(name)).called for name in FORMATS)
    return (
        f"The signature over the manifest ({called}; recognised by its content). Default: "
        f"the manifest's name with {said(SUFFIXES)} beside it."
    )


def detect(data: bytes) -> str | None:
    """The format whose shape ``data`` has (by content, never by name), or ``None``."""
    for name in FORMATS:
        if FORMATS[name].detect(data):
            return name
    return None


__all__ = ["FORMATS", "MAX_SIGNATURE_BYTES", "SUFFIXES", "SignatureFormat", "detect", "help_text"]
