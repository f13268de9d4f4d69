"""An OpenPGP detached signature file read before ``gpgv`` sees it (RFC 4880, RFC 9580).

The file must be nothing but signature packets (tag 2): armoured (one ``PGP SIGNATURE``
block, its CRC-24 checked when present) or binary, old or new packet headers, versions 3, 4,
5 and 6, at most :data:`MAX_SIGNATURES` of them, each of definite length. Anything else (a
compressed or literal data packet, a key, a marker, a partial or indeterminate length, bytes
after the last packet) is refused before ``gpgv`` runs: a detached signature holds nothing
else, and a packet flood must not cost ``gpgv``'s time limit. ``gpgv`` is then given the
binary packets read here, so what it checks is what was read.

Each signature's class is read too: only class 0x00 (a signature of a binary document)
signs the manifest's exact bytes. Class 0x01 (canonical text) lets ``gpgv`` normalise line
endings first, so bytes changed after signing would still verify; it and every other class
are refused (:data:`NOT_EXACT`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

BEGIN = b"-----BEGIN PGP SIGNATURE-----"
END = b"-----END PGP SIGNATURE-----"
SIGNATURE_TAG = 2
BINARY = 0x00
MAX_SIGNATURES = 16
#: the finding code of a signature that does not sign the manifest's exact bytes
NOT_EXACT = "signature.not-exact-bytes"
TAGS: Mapping[int, str] = MappingProxyType(
    {
        1: "public-key encrypted session key",
        3: "symmetric-key encrypted session key",
        4: "one-pass signature",
        5: "secret key",
        6: "public key",
        7: "secret subkey",
        8: "compressed data",
        9: "symmetrically encrypted data",
        10: "marker",
        11: "literal data",
        12: "trust",
        13: "user id",
        14: "public subkey",
        17: "user attribute",
        18: "encrypted and integrity protected data",
        20: "AEAD encrypted data",
        21: "padding",
    }
)
CLASSES: Mapping[int, str] = MappingProxyType(
    {
        0x00: "binary document",
        0x01: "canonical text document",
        0x02: "standalone",
        0x10: "generic certification",
        0x11: "persona certification",
        0x12: "casual certification",
        0x13: "positive certification",
        0x18: "subkey binding",
        0x19: "primary key binding",
        0x1F: "direct key",
        0x20: "key revocation",
        0x28: "subkey revocation",
        0x30: "certification revocation",
        0x40: "timestamp",
        0x50: "third-party confirmation",
    }
)


class PacketError(ValueError):
    """The file is not a plain detached signature: ``code`` is the finding's code."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code


@dataclass(frozen=True, slots=True)
class SignaturePacket:
    version: int
    sig_class: int

    @property
    def class_name(self) -> str:
        return f"0x{self.sig_class:02x} ({CLASSES.get(self.sig_class, 'unknown')})"


def _unparsable(reason: str) -> PacketError:
    return PacketError("signature.unparsable", reason)


def _crc24(data: bytes) -> int:
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def unarmour(data: bytes) -> bytes:
    """The packets of one armoured ``PGP SIGNATURE`` block (only white space around it)."""
    lines = [line.rstrip(b" \t\r") for line in data.strip().split(b"\n")]
    if len(lines) < 3 or lines[0] != BEGIN or lines[-1] != END:
        raise _unparsable("not one armoured PGP SIGNATURE block")
    i = 1
    while i < len(lines) - 1 and lines[i]:  # armour headers ("Key: value"), then a blank line
        if b": " not in lines[i]:
            raise _unparsable("an armour header line without its blank line after")
        i += 1
    body: list[bytes] = []
    crc: bytes | None = None
    for line in lines[i + 1 : -1]:
        if crc is not None:
            raise _unparsable("text after the armour's checksum line")
        if line.startswith(b"="):
            crc = line[1:]
        else:
            body.append(line)
    try:
        packets = binascii.a2b_base64(b"".join(body), strict_mode=True)
        if crc is not None:
            want = int.from_bytes(binascii.a2b_base64(crc, strict_mode=True), "big")
            if len(crc) != 4 or want != _crc24(packets):
                raise _unparsable("the armour's CRC-24 does not match its contents")
    except (binascii.Error, ValueError) as exc:
        if isinstance(exc, PacketError):
            raise
        raise _unparsable("the armour is not base64") from None
    if not packets:
        raise _unparsable("an empty armour block")
    return packets


def _length(data: bytes, pos: int, n: int) -> int:
    if pos + n > len(data):
        raise _unparsable("a truncated packet header")
    return int.from_bytes(data[pos : pos + n], "big")


def read_packets(data: bytes) -> tuple[bytes, list[SignaturePacket]]:
    """The binary packets (armour removed) and each signature in them, or
    :class:`PacketError` if the file is anything but signature packets."""
    binary = unarmour(data) if data.lstrip().startswith(BEGIN) else data
    out: list[SignaturePacket] = []
    pos = 0
    while pos < len(binary):
        if len(out) == MAX_SIGNATURES:
            raise _unparsable(f"more than {MAX_SIGNATURES} signature packets")
        head = binary[pos]
        pos += 1
        if not head & 0x80:
            raise _unparsable(f"byte {pos - 1} does not start an OpenPGP packet")
        if head & 0x40:  # new format: the tag in 6 bits, then 1, 2 or 5 length octets
            tag = head & 0x3F
            first = _length(binary, pos, 1)
            if first < 192:
                length, pos = first, pos + 1
            elif first < 224:
                length, pos = ((first - 192) << 8) + _length(binary, pos + 1, 1) + 192, pos + 2
            elif first == 255:
                length, pos = _length(binary, pos + 1, 4), pos + 5
            else:
                raise _unparsable("a packet of partial body lengths (a data stream)")
        else:  # old format: the tag in 4 bits, the length's size in 2
            tag, size = (head >> 2) & 0x0F, head & 0x03
            if size == 3:
                raise _unparsable("a packet of indeterminate length")
            length = _length(binary, pos, (1, 2, 4)[size])
            pos += (1, 2, 4)[size]
        if pos + length > len(binary):
            raise _unparsable("a packet longer than the file")
        body = binary[pos : pos + length]
        pos += length
        if tag != SIGNATURE_TAG:
            what = TAGS.get(tag, "unknown")
            raise _unparsable(
                f"a {what} packet (tag {tag}): a detached signature holds only signature "
                "packets, so gpgv was not run"
            )
        out.append(_signature(body))
    if not out:
        raise _unparsable("no signature packet")
    return binary, out


def _signature(body: bytes) -> SignaturePacket:
    if not body:
        raise _unparsable("an empty signature packet")
    version = body[0]
    if version == 3:  # version, 5 (the length of the hashed part), the class, ...
        if len(body) < 3 or body[1] != 5:
            raise _unparsable("a malformed version 3 signature packet")
        return SignaturePacket(3, body[2])
    if version in (4, 5, 6):  # version, the class, ...
        if len(body) < 2:
            raise _unparsable(f"a truncated version {version} signature packet")
        return SignaturePacket(version, body[1])
    raise PacketError("signature.unsupported", f"an OpenPGP signature of version {version}")


def inexact(signatures: list[SignaturePacket]) -> SignaturePacket | None:
    """The first signature that does not sign the exact bytes (class not 0x00), if any."""
    return next((s for s in signatures if s.sig_class != BINARY), None)


def armour(packets: bytes) -> bytes:
    """``packets`` armoured (for tests and messages)."""
    text = base64.encodebytes(packets)
    crc = base64.b64encode(_crc24(packets).to_bytes(3, "big"))
    return BEGIN + b"\n\n" + text + b"=" + crc + b"\n" + END + b"\n"


__all__ = [
    "NOT_EXACT",
    "PacketError",
    "SignaturePacket",
    "armour",
    "inexact",
    "read_packets",
    "unarmour",
]
