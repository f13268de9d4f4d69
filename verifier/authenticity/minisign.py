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
from verifier.errors import UsageError
from verifier.findings import Finding

UNTRUSTED = b"untrusted comment: "  # minisign's COMMENT_PREFIX, its space included
TRUSTED = b"trusted comment: "

# minisign's buffers (src/minisign.h, src/minisign.c): fgets(buf, size) reads at most size - 1
# bytes of a line, its ``\n`` included; a line that does not fit is "too long"
COMMENT_MAX = 1024  # COMMENTMAXBYTES: the untrusted comment line (and a key file's first)
TRUSTED_COMMENT_MAX = 8192  # TRUSTEDCOMMENTMAXBYTES


def _b64_buffer(length: int) -> int:
    """minisign's buffer for the base64 of ``length`` bytes: B64_MAX_LEN_FROM_BIN_LEN + 2."""
    return (length + 2) // 3 * 4 + 1 + 2


SIG_LINE_MAX = _b64_buffer(74)  # algorithm, key id and signature
GLOBAL_SIG_LINE_MAX = _b64_buffer(64)
KEY_LINE_MAX = _b64_buffer(42)  # algorithm, key id and public key

_B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def b64_to_bin(text: bytes, size: int) -> bytes | None:
    """minisign's own base64 decoder (``b64_to_bin`` in src/base64.c): whole groups of four,
    ``=`` padding in the last group only, no other character (no white space); the unused low
    bits of a padded group are not checked. ``None`` unless exactly ``size`` bytes."""
    if not text or len(text) % 4 or len(text) // 4 * 3 - text[-2:].count(b"=") > size:
        return None
    out = bytearray()
    for start in range(0, len(text), 4):
        group = text[start : start + 4]
        last = start + 4 == len(text)
        if b"=" in group:
            pad = len(group) - len(group.rstrip(b"="))
            if not last or pad > 2 or b"=" in group[: 4 - pad]:
                return None
            group = group[: 4 - pad] + b"A" * pad
        else:
            pad = 0
        if any(c not in _B64 for c in group):
            return None
        n = 0
        for c in group:
            n = n << 6 | _B64.index(c)
        out += n.to_bytes(3, "big")[: 3 - pad]
    return bytes(out) if len(out) == size else None


class _Lines:
    """A file read as minisign reads it: ``fgets`` from the start, one line at a time (a
    line ends at ``\n`` only, or where the buffer is full, or at the end of the file)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def fgets(self, size: int) -> bytes | None:
        """The next at most ``size - 1`` bytes, up to and with a ``\n``; ``None`` at the end."""
        if self.pos >= len(self.data):
            return None
        limit = min(self.pos + size - 1, len(self.data))
        end = self.data.find(b"\n", self.pos, limit)
        stop = limit if end < 0 else end + 1
        line, self.pos = self.data[self.pos : stop], stop
        return line


def trim(line: bytes) -> tuple[bytes, bool]:
    """minisign's ``trim()`` of a C string: the bytes before the first NUL (strlen), cut at
    the first ``\r`` or ``\n`` (each becomes a NUL); and whether a ``\n`` was there (a
    line that fitted its buffer)."""
    text = line.split(b"\0", 1)[0]
    whole = b"\n" in text
    for end in (b"\r", b"\n"):
        text = text.split(end, 1)[0]
    return text, whole


class Minisign:
    NAME = "minisign"
    LABEL = "minisign signature"
    TRUST = "--minisign-key"

    def detect(self, data: bytes) -> bool:
        lines = data.split(b"\n")
        return (
            data.startswith(b"untrusted comment:")
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


def key_file_line(text: bytes, length: int) -> bytes:
    """The base64 line of a minisign key file (public or secret) of ``length`` bytes, read as
    minisign reads it (``pubkey_load_file``, ``seckey_load``): the first line, whatever it
    says, is the comment; the second holds the base64, read up to its first ``\r``, ``\n``
    or NUL within minisign's buffer; what follows is not read. :class:`ValueError` when the
    file has no second line."""
    lines = _Lines(text)
    if lines.fgets(COMMENT_MAX) is None:
        raise ValueError("an empty file")
    line = lines.fgets(_b64_buffer(length))
    if line is None:
        raise ValueError("no second line: the first line is the comment, the key the second")
    return trim(line)[0]


def parse_public_key_line(line: bytes) -> bytes:
    """The 42 bytes of a public key given as its base64 line, read as ``minisign -P`` reads it
    (``pubkey_load_string``): the whole value is the base64, nothing trimmed
    (:class:`ValueError` otherwise)."""
    raw = b64_to_bin(line, 42)
    if raw is None:
        raise ValueError("not the base64 of a minisign public key")
    if raw[:2] != b"Ed":
        raise ValueError("not a minisign Ed25519 public key")
    return raw


def parse_public_key(text: bytes) -> bytes:
    """The 42 bytes of a public key from a ``.pub`` file's bytes, read as ``minisign -p``
    reads it (``pubkey_load_file``): the first line, whatever it says, is the comment; the
    second holds the base64 (read up to its first ``\r``, ``\n`` or NUL, within minisign's
    buffer); what follows is not read. :class:`ValueError` otherwise."""
    return parse_public_key_line(key_file_line(text, 42))


def key_bytes(value: str, read: Callable[[Path, str], bytes]) -> tuple[bytes, str]:
    """``--minisign-key``: the key's bytes and how findings name it. A value that names a
    file is read (``read``) as ``minisign -p`` reads it; otherwise it is the base64 line
    itself, as ``minisign -P`` reads it."""
    if os.path.lexists(value):
        try:
            return parse_public_key(read(Path(value), "--minisign-key")), value
        except ValueError as exc:
            raise UsageError(f"--minisign-key {value}: not a minisign public key ({exc})") from None
    try:
        raw = parse_public_key_line(value.encode("utf-8", errors="replace"))
    except ValueError:
        raise UsageError(
            f"--minisign-key {value}: neither a file nor a minisign public key's base64 line"
        ) from None
    return raw, f"minisign key {key_id(raw[2:10])}"


_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
#: the y coordinates libsodium's ge25519_has_small_order refuses (points of order 1, 2, 4 and
#: 8, and their non-canonical encodings), compared with the sign bit cleared
_SMALL_ORDER_Y = frozenset(
    {
        0,
        1,
        2707385501144840649318225287225658788936804267575313519463743609750303402022,
        _P - 2707385501144840649318225287225658788936804267575313519463743609750303402022,
        _P - 1,
        _P,
        _P + 1,
    }
)


def _y(point: bytes) -> int:
    return int.from_bytes(point, "little") & ((1 << 255) - 1)


def weak_key(public: bytes) -> bool:
    """Whether libsodium's Ed25519 verification (minisign's) refuses this public key
    whatever the signature: a non-canonical encoding or a point of small order (with such a
    key anyone can make a signature that OpenSSL's Ed25519 accepts)."""
    return _y(public) >= _P or _y(public) in _SMALL_ORDER_Y


def weak_signature(signature: bytes) -> bool:
    """Whether libsodium refuses this Ed25519 signature before any arithmetic: its R of small
    order, or its S not below the group order."""
    return _y(signature[:32]) in _SMALL_ORDER_Y or int.from_bytes(signature[32:], "little") >= _L


class SignatureFormatError(ValueError):
    """A signature file minisign would refuse to read (its message: why)."""


def read_signature(data: bytes) -> tuple[bytes, bytes, bytes]:
    """A ``.minisig`` file's signature (74 bytes: algorithm, key id, Ed25519 signature),
    trusted comment and global signature (64), read as minisign reads it (``sig_load``):
    lines end at ``\n``; each line is read up to its first ``\r`` (or NUL) and the rest of
    it is not read; the first three lines must end with ``\n`` within minisign's buffers;
    the fourth is read to at most 90 bytes; nothing after it is read.
    :class:`SignatureFormatError` otherwise."""
    lines = _Lines(data)
    first = lines.fgets(COMMENT_MAX)
    comment, whole = trim(first or b"")
    if first is None or not whole:
        raise SignatureFormatError("its untrusted comment line is missing or too long")
    if not comment.startswith(UNTRUSTED):
        raise SignatureFormatError('its first line does not start with "untrusted comment: "')
    sig_line, whole = trim(lines.fgets(SIG_LINE_MAX) or b"")
    if not whole:
        raise SignatureFormatError("its signature line is missing or too long")
    third = lines.fgets(TRUSTED_COMMENT_MAX)
    if third is None or not third.startswith(TRUSTED):
        raise SignatureFormatError('its third line does not start with "trusted comment: "')
    trusted, whole = trim(third[len(TRUSTED) :])
    if not whole:
        raise SignatureFormatError("its trusted comment line is too long")
    fourth = lines.fgets(GLOBAL_SIG_LINE_MAX)
    if fourth is None:
        raise SignatureFormatError("its global signature line is missing")
    sig = b64_to_bin(sig_line, 74)
    global_sig = b64_to_bin(trim(fourth)[0], 64)
    if sig is None or global_sig is None:
        raise SignatureFormatError("a signature line is not the base64 of a signature")
    return sig, trusted, global_sig


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

    try:
        sig, comment, global_sig = read_signature(signature.data)
    except SignatureFormatError as exc:
        return fail(
            "signature.unparsable", f"Not a minisign signature as minisign reads it: {exc}."
        )
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
    if len(key) != 42 or key[:2] != b"Ed":  # a library caller's Trust, not parse_public_key's
        return fail(
            "signature.unsupported",
            "The trusted minisign key is not a minisign Ed25519 public key (42 bytes, Ed "
            "first): give the .pub file or its base64 line.",
        )
    if weak_key(key[10:]):
        return fail(
            "signature.unsupported",
            f"The trusted minisign key {trusted_id} is not a usable Ed25519 key (a point of "
            "small order or a non-canonical encoding: anyone could sign for it); minisign "
            "refuses it too. Give the publisher's real key.",
        )
    public = Ed25519PublicKey.from_public_bytes(key[10:])
    signed = hashlib.blake2b(message, digest_size=64).digest() if algorithm == b"ED" else message
    try:
        if weak_signature(raw):  # refused by libsodium, which minisign verifies with
            raise InvalidSignature
        public.verify(raw, signed)
    except InvalidSignature:
        return fail(
            "signature.bad",
            f"The minisign signature by key {trusted_id} does not verify over the manifest's "
            "bytes: the manifest or the signature was changed after signing.",
        )
    try:
        if weak_signature(global_sig):
            raise InvalidSignature
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


__all__ = [
    "FORMAT",
    "b64_to_bin",
    "key_bytes",
    "key_file_line",
    "key_id",
    "parse_public_key",
    "parse_public_key_line",
    "read_signature",
    "verify",
]
