"""Hashing one file: the SHA-256 (and any further algorithm its manifests use) from one
streaming read, its size, and for a text file that does not match, the digests it would have
with other line endings (for hints). Pure: bytes or a stream in, a :class:`Digest` out."""

from __future__ import annotations

import hashlib
import io
import os
import stat
from typing import Any, NamedTuple

from verifier.sources.interface import Stream

_CHUNK = 1 << 17
_new = tuple.__new__
_SNIFF = 8000  # git's rule: a NUL in the first 8000 bytes makes a file binary


class Digest(NamedTuple):
    """What one read of a file gives: its SHA-256 and size, and for text files the SHA-256 it
    would have with LF line endings turned into CRLF (``crlf``) or CRLF into LF (``lf``),
    where that differs (a file hashed on a Windows checkout, or the reverse)."""

    sha256: str
    size: int
    crlf: str | None = None
    lf: str | None = None
    #: (algorithm, hex digest) for each further algorithm asked for (a bag's SHA-512 or MD5
    #: manifests), from the same read
    others: tuple[tuple[str, str], ...] = ()

    def hexdigest(self, algorithm: str) -> str | None:
        """The digest for a hashlib algorithm name, if this read computed it."""
        if algorithm == "sha256":
            return self.sha256
        return dict(self.others).get(algorithm)


VARIANT_CAP = 1 << 20  # text files up to this size get line-ending variants only on mismatch
_WHOLE = 1 << 20  # files up to this size (by their size before the read) are read in one call


def _line_variants(data: bytes) -> tuple[str, str]:
    unix = data.replace(b"\r\n", b"\n")
    return (
        hashlib.sha256(unix.replace(b"\n", b"\r\n")).hexdigest(),
        hashlib.sha256(unix).hexdigest(),
    )


def _others(data: bytes, extra: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((name, hashlib.new(name, data).hexdigest()) for name in extra)


def _digest_bytes(
    data: bytes, variants: bool, expected: str | None, extra: tuple[str, ...] = ()
) -> Digest:
    """The digest of bytes read whole (with line-ending variants only on a mismatch), and the
    digests for the ``extra`` algorithms."""
    digest = hashlib.sha256(data).hexdigest()
    others = _others(data, extra) if extra else ()
    if not variants or digest == expected or b"\0" in data[:_SNIFF]:
        # (made as a tuple: once per record, the keyword call cost more than the hash)
        return _new(Digest, (digest, len(data), None, None, others))
    crlf, lf = _line_variants(data)
    return Digest(
        digest, len(data), crlf if crlf != digest else None, lf if lf != digest else None, others
    )


class _Fan:
    """Several hashlib objects updated from the same bytes (one read for every algorithm)."""

    __slots__ = ("hashers",)

    def __init__(self, hashers: list[Any]) -> None:
        self.hashers = hashers

    def update(self, data: Any) -> None:
        for hasher in self.hashers:
            hasher.update(data)


_MAP_WINDOW = 8 << 20
_MAP_ALIGN = 1 << 16  # mmap offsets must be multiples of the allocation granularity
_MAP_MIN = 4 << 20


def _hash_mapped(stream: Stream, offset: int, hasher: Any) -> int:
    """Hash a regular file from ``offset`` to its current size through windows of a memory
    map (no copy into a buffer: about 10% faster on large files; each window is unmapped
    before the next, so memory stays small). Returns the bytes hashed, with the stream
    positioned just after them (0 for a small or unmappable file: the caller reads on)."""
    if not isinstance(stream, io.FileIO):  # a file of its own (not a member of a zip, say)
        return 0
    position = offset
    try:
        import mmap

        fd = stream.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return 0
        end = os.fstat(fd).st_size
        if end - offset < _MAP_MIN or _MAP_ALIGN % mmap.ALLOCATIONGRANULARITY:
            return 0
        while position < end:
            length = min(_MAP_WINDOW, end - position)
            with mmap.mmap(fd, length, offset=position, access=mmap.ACCESS_READ) as window:
                hasher.update(window)
            position += length
    except (OSError, ValueError, AttributeError):
        pass  # not mappable (any more): the caller reads on from where this stopped
    if position != offset:
        stream.seek(position)
    return position - offset


def _digest(
    stream: Stream,
    keep: bool,
    variants: bool,
    expected: str | None = None,
    extra: tuple[str, ...] = (),
) -> tuple[Digest, bytes | None]:
    """One streaming read: the SHA-256, the bytes if kept, and for a text file whose digest
    is not the expected one, the digests it would have with other line endings (for hints).
    Small files are held in memory and their variants computed only on a mismatch; larger
    text files compute them as they stream."""
    if keep:  # a record: it is held whole anyway, so read it in one call
        data = stream.read()
        return _digest_bytes(data, variants, expected, extra), data
    main = hashlib.sha256()
    others = [(name, hashlib.new(name)) for name in extra]
    every: Any = _Fan([main, *(h for _, h in others)]) if others else main
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    held = bytearray() if (keep or variants) else None
    as_crlf = as_lf = None
    size = 0
    text = variants
    carry = b""
    while True:
        n = stream.readinto(view)
        if not n:
            break
        part = view[:n]
        if size == 0 and text and b"\0" in bytes(part[:_SNIFF]):
            text = False
            held = None  # line-ending variants are for text files: nothing to hold
        size += n
        every.update(part)
        if held is None and as_crlf is None and size % _MAP_ALIGN == 0:
            size += _hash_mapped(stream, size, every)  # the rest of a large file, unmapped
        if held is not None:
            held += part
            if not keep and size > VARIANT_CAP:
                if text and as_crlf is None:  # too big to hold: variants while streaming
                    as_crlf, as_lf = hashlib.sha256(), hashlib.sha256()
                    data = bytes(held)
                    carry = b"\r" if data.endswith(b"\r") else b""
                    unix = (data[:-1] if carry else data).replace(b"\r\n", b"\n")
                    as_lf.update(unix)
                    as_crlf.update(unix.replace(b"\n", b"\r\n"))
                held = None
            continue
        if as_crlf is not None and as_lf is not None:
            data = carry + bytes(part)
            carry = b"\r" if data.endswith(b"\r") else b""
            unix = (data[:-1] if carry else data).replace(b"\r\n", b"\n")
            as_lf.update(unix)
            as_crlf.update(unix.replace(b"\n", b"\r\n"))
    digest = main.hexdigest()
    crlf = lf = None
    if text and digest != expected:
        if as_crlf is not None and as_lf is not None:
            as_lf.update(carry)
            as_crlf.update(carry)
            crlf, lf = as_crlf.hexdigest(), as_lf.hexdigest()
        elif held is not None:
            crlf, lf = _line_variants(bytes(held))
    return (
        Digest(
            digest,
            size,
            crlf if crlf != digest else None,
            lf if lf != digest else None,
            tuple((name, h.hexdigest()) for name, h in others),
        ),
        bytes(held) if keep and held is not None else None,
    )
