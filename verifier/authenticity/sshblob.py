"""The SSH wire encoding, read hostile-safe: length-prefixed strings, bounds-checked, a
reader that never reads past its buffer nor allocates more than it was given."""

from __future__ import annotations

import base64
import binascii
import hashlib


class WireError(ValueError):
    """The bytes are not the SSH structure expected."""


class Reader:
    __slots__ = ("_data", "_pos")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self._pos + n > len(self._data):
            raise WireError("truncated")
        out = self._data[self._pos : self._pos + n]
        self._pos += n
        return out

    def uint32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def string(self) -> bytes:
        return self.take(self.uint32())

    def text(self) -> str:
        raw = self.string()
        try:
            return raw.decode("ascii")
        except UnicodeDecodeError:
            raise WireError("a name is not ASCII") from None

    def mpint(self) -> int:
        raw = self.string()
        if raw and raw[0] & 0x80:
            raise WireError("a negative integer")
        return int.from_bytes(raw, "big")

    def done(self) -> bool:
        return self._pos == len(self._data)


def string(data: bytes) -> bytes:
    """``data`` as an SSH string (its length as a big-endian uint32, then the bytes)."""
    return len(data).to_bytes(4, "big") + data


def fingerprint(blob: bytes) -> str:
    """The OpenSSH fingerprint of a public key blob: ``SHA256:`` and unpadded base64."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def b64decode(text: bytes | str) -> bytes:
    """Strict base64 (no stray characters), or :class:`WireError`."""
    try:
        return binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):
        raise WireError("not base64") from None


__all__ = ["Reader", "WireError", "b64decode", "fingerprint", "string"]
