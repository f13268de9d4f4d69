"""What every signature format shares: the trust the user supplies (:class:`Trust`), a
signature file as read (:class:`SignatureFile`), who signed (:class:`Signer`) and a format's
verdict (:class:`Verdict`). A format is a module with ``NAME``, ``TRUST`` (the option that
supplies its trust), ``detect(data)`` and ``verify(message, signature, trust)``.

Everything here is data: the trust files' bytes are read once, by the command (or the
library's caller), before the archive is opened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from verifier.findings import Finding


@dataclass(frozen=True, slots=True)
class Trust:
    """What the user trusts and asks for. ``*_label``: how findings name the file given."""

    signature: str | None = None  # --signature: a path; None: look beside the manifest
    require: bool = False  # --require-signature
    allowed_signers: bytes | None = None
    allowed_signers_label: str = "allowed_signers"
    identity: str | None = None
    namespace: str = "file"
    #: the time validity windows are evaluated at (seconds since the epoch); None: the clock
    verify_time: int | None = None
    minisign_key: bytes | None = None
    minisign_key_label: str = "minisign key"
    allow_legacy_minisign: bool = False
    keyring: bytes | None = None  # an OpenPGP keyring, binary or armoured, for gpgv
    keyring_label: str = "the keyring"
    gpgv: str = "gpgv"  # the program (tests point it elsewhere)
    #: a signature is expected of another manifest, not this one: a bag's own manifest, when
    #: its payload's manifest (the evidence archive's, the one publishers sign) is checked too
    expected_elsewhere: bool = False

    @property
    def anchors(self) -> tuple[str, ...]:
        """The trust anchors given (the options' names): each means a signature is expected."""
        return tuple(
            option
            for option, value in (
                ("--allowed-signers", self.allowed_signers),
                ("--minisign-key", self.minisign_key),
                ("--keyring", self.keyring),
            )
            if value is not None
        )

    @property
    def given(self) -> bool:
        """Whether any authenticity option was given at all."""
        return bool(
            self.signature
            or self.require
            or self.allowed_signers is not None
            or self.minisign_key is not None
            or self.keyring is not None
        )


@dataclass(frozen=True, slots=True)
class SignatureFile:
    """A signature as read: its name (in the source, or a local path) and bytes."""

    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Signer:
    """Who signed, as the check established it."""

    key_type: str  # ssh-ed25519, ecdsa-sha2-nistp256, minisign Ed25519, OpenPGP, ...
    fingerprint: str  # SHA256:... (OpenSSH), the key id (minisign), the fingerprint (OpenPGP)
    principal: str | None = None  # the allowed_signers principals, or the OpenPGP user id
    identity: str | None = None  # the identity asked for (--identity)
    comment: str | None = None  # minisign's trusted comment (shown only once verified)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"keyType": self.key_type, "fingerprint": self.fingerprint}
        for key, value in (
            ("principal", self.principal),
            ("identity", self.identity),
            ("trustedComment", self.comment),
        ):
            if value is not None:
                out[key] = value
        return out

    def line(self) -> str:
        """One line for a human: ``principal (identity) key SHA256:...``."""
        who = self.principal or "a trusted key"
        if self.identity is not None and self.identity != self.principal:
            who += f" as {self.identity}"
        return f"{who}, {self.key_type} key {self.fingerprint}"


@dataclass(slots=True)
class Verdict:
    """A format's outcome for one signature: its findings (none: verified), who signed, and
    how it was checked (``method``: a line for the report)."""

    format: str
    method: str
    findings: list[Finding] = field(default_factory=list)
    signer: Signer | None = None

    @property
    def verified(self) -> bool:
        return self.signer is not None and not self.findings


class Format(Protocol):
    """A signature format module."""

    NAME: str
    LABEL: str
    TRUST: str

    def detect(self, data: bytes) -> bool: ...

    def has_trust(self, trust: Trust) -> bool: ...

    def verify(self, message: bytes, signature: SignatureFile, trust: Trust) -> Verdict: ...


__all__ = ["Format", "SignatureFile", "Signer", "Trust", "Verdict"]
