"""minisign signatures (``.minisig``), verified natively.

Four lines: an untrusted comment; base64 of the algorithm (``ED``: Ed25519 over the
BLAKE2b-512 of the file, the default; ``Ed``: over the file itself, legacy, refused unless
``--allow-legacy-minisign``), the key id (8 bytes) and the signature (64); the trusted
comment; base64 of the global signature, Ed25519 over the signature and the trusted comment.
The key id must be the trusted key's; the trusted comment is shown only once both signatures
verified. The public key is base64 of ``Ed``, its key id and the Ed25519 key (32 bytes).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from verifier.authenticity.interface import SignatureFile, Signer, Trust, Verdict
from verifier.authenticity.sshblob import WireError, b64decode
from verifier.errors import UsageError
from verifier.findings import Finding

UNTRUSTED = b"untrusted comment:"
TRUSTED = b"trusted comment: "


class Minisign:
    NAME = "minisign"
    LABEL = "minisign signature"
    TRUST = "--minisign-key"

    def detect(self, data: bytes) -> bool:
        lines = data.split(b"\n")
        return (
            data.startswith(UNTRUSTED)
            and len(lines) >= 3
            and lines[2].startswith(b"trusted comment")
        )

    def has_trust(self, trust: Trust) -> bool:
        return trust.minisign_key is not None

    def verify(self, message: bytes, signature: SignatureFile, trust: Trust) -> Verdict:
        return verify(message, signature, trust)


FORMAT = Minisign()


def key_id(raw: bytes) -> str:
    """The key id as minisign prints it: the little-endian 64-bit number in upper-case hex,
    without leading zeros (``%" PRIX64``)."""
    return format(int.from_bytes(raw, "little"), "X")


def parse_public_key(text: bytes) -> bytes:
    """The 42 bytes of a public key from its base64 line, or from a ``.pub`` file's text
    (:class:`ValueError` if it is neither)."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    if lines and lines[0].startswith(UNTRUSTED):
        lines = lines[1:]
    if len(lines) != 1:
        raise ValueError("not one base64 line")
    try:
        raw = b64decode(lines[0])
    except WireError:
        raise ValueError("not base64") from None
    if len(raw) != 42 or raw[:2] != b"Ed":
        raise ValueError("not a minisign Ed25519 public key")
    return raw


def key_bytes(value: str, read: Callable[[Path, str], bytes]) -> tuple[bytes, str]:
    """``--minisign-key``: the key's bytes and how findings name it. A value that names a
    file is read (``read``); otherwise it is the base64 line itself."""
    if os.path.lexists(value):
        try:
            return parse_public_key(read(Path(value), "--minisign-key")), value
        except ValueError as exc:
            raise UsageError(f"--minisign-key {value}: not a minisign public key ({exc})") from None
    try:
        raw = parse_public_key(value.encode("ascii", errors="replace"))
    except ValueError:
        raise UsageError(
            f"--minisign-key {value}: neither a file nor a minisign public key's base64 line"
        ) from None
    return raw, f"minisign key {key_id(raw[2:10])}"


def verify(message: bytes, signature: SignatureFile, trust: Trust) -> Verdict:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    name = signature.name
    key = trust.minisign_key or b""
    trusted_id = key_id(key[2:10])
    verdict = Verdict("minisign", f"minisign against {trust.minisign_key_label}")

    def fail(code: str, text: str) -> Verdict:
        verdict.findings.append(Finding(code, name, text))
        return verdict

    lines = [x.rstrip(b"\r") for x in signature.data.split(b"\n")]
    if len(lines) < 4 or not lines[0].startswith(UNTRUSTED) or not lines[2].startswith(TRUSTED):
        return fail("signature.unparsable", "Not a minisign signature (four lines expected).")
    if any(x for x in lines[4:]):
        return fail("signature.unparsable", "Text after the minisign signature's four lines.")
    try:
        sig, global_sig = b64decode(lines[1]), b64decode(lines[3])
    except WireError:
        return fail("signature.unparsable", "A minisign signature line is not base64.")
    if len(sig) != 74 or len(global_sig) != 64:
        return fail("signature.unparsable", "A minisign signature line has the wrong length.")
    algorithm, sig_id, raw = sig[:2], sig[2:10], sig[10:]
    if algorithm not in (b"ED", b"Ed"):
        return fail("signature.unsupported", f"minisign algorithm {algorithm!r} is unknown.")
    if algorithm == b"Ed" and not trust.allow_legacy_minisign:
        return fail(
            "signature.legacy-minisign",
            "A legacy minisign signature (Ed: over the file itself, not its BLAKE2b-512 hash); "
            "re-sign with a current minisign, or accept it with --allow-legacy-minisign.",
        )
    if sig_id != key[2:10]:
        return fail(
            "signature.untrusted-key",
            f"Signed by minisign key {key_id(sig_id)}, not the trusted key {trusted_id}.",
        )
    public = Ed25519PublicKey.from_public_bytes(key[10:])
    signed = hashlib.blake2b(message, digest_size=64).digest() if algorithm == b"ED" else message
    try:
        public.verify(raw, signed)
    except InvalidSignature:
        return fail(
            "signature.bad",
            f"The minisign signature by key {trusted_id} does not verify over the manifest's "
            "bytes: the manifest or the signature was changed after signing.",
        )
    comment = lines[2][len(TRUSTED) :]
    try:
        public.verify(global_sig, raw + comment)
    except InvalidSignature:
        return fail(
            "signature.bad",
            f"The global signature by key {trusted_id} does not verify over the trusted "
            "comment: the comment was changed after signing (it is not shown).",
        )
    verdict.method = (
        f"minisign ({'prehashed BLAKE2b-512' if algorithm == b'ED' else 'legacy'}) against "
        f"{trust.minisign_key_label}"
    )
    verdict.signer = Signer(
        "minisign Ed25519", trusted_id, comment=comment.decode("utf-8", errors="replace")
    )
    return verdict


__all__ = ["FORMAT", "key_bytes", "key_id", "parse_public_key", "verify"]
