"""OpenPGP detached signatures (``.asc``, ``.gpg``, ``.sign``): recognised here; verified by
``gpgv`` (a later step)."""

from __future__ import annotations

from verifier.authenticity.interface import SignatureFile, Trust, Verdict
from verifier.findings import Finding

ARMOUR = b"-----BEGIN PGP SIGNATURE-----"


class OpenPGP:
    NAME = "openpgp"
    LABEL = "OpenPGP signature"
    TRUST = "--keyring"

    def detect(self, data: bytes) -> bool:
        head = data.lstrip()
        # armoured, or a binary signature packet (old or new format, tag 2)
        return head.startswith(ARMOUR) or (
            bool(data) and (data[0] in (0x88, 0x89, 0x8A) or data[0] == 0xC2)
        )

    def has_trust(self, trust: Trust) -> bool:
        return trust.keyring is not None

    def verify(self, message: bytes, signature: SignatureFile, trust: Trust) -> Verdict:
        verdict = Verdict("openpgp", "not verified")
        verdict.findings.append(
            Finding(
                "signature.unsupported",
                signature.name,
                "OpenPGP signatures are not verified yet.",
            )
        )
        return verdict


FORMAT = OpenPGP()

__all__ = ["FORMAT"]
