"""A small reader of tar headers (POSIX ustar and pax, GNU, v7), one 512-byte block at a time.

:mod:`tarfile` reads a GNU long name or a pax header whole into memory before anything can
look at its size, treats a header with a bad checksum, or cut in half, as the end of the
archive, and never looks past the end-of-archive marker. This reader is built for hostile
input instead:

* every byte is charged to a budget (:class:`Charge`) *before* it is read or skipped, so a
  size or ratio limit refuses a header bomb without reading it;
* a GNU long name or long link name holds at most :data:`MAX_LONG_NAME` bytes and a pax
  extended header (per file or global) at most :data:`MAX_PAX`: a bigger one is refused
  unread (:class:`HeaderTooLarge`); of a pax header only the keys that change what a member
  is are kept (``path``, ``linkpath``, ``size``, ``GNU.sparse.*``);
* a bad checksum, a malformed number or pax record, a header or content cut short, an archive
  that ends without its end-of-archive marker, a non-file header that claims content (tar
  programs disagree on whether it follows) are :class:`TarDamage`;
* after the end-of-archive marker (two zero blocks) the rest of the stream is read to its end
  and must be zero bytes (as GNU tar pads its records); anything else is
  :class:`TarTrailing`, since ``tar --ignore-zeros`` would read members there;
* names are decoded as UTF-8 with surrogate escapes (as :mod:`tarfile` does); the NUL that
  ends a GNU long name is dropped, a NUL inside it is kept, so the safety policy refuses the
  name instead of reading the part before it, as tools that stop at the NUL would; a ustar
  ``prefix`` on a header that is not POSIX ustar (tarfile applies it, GNU tar does not) makes
  the name ambiguous (:attr:`TarMember.problem`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import BinaryIO

from verifier.sources.safety import EntryType

BLOCK = 512
MAX_LONG_NAME = 8 * 1024
MAX_PAX = 1024 * 1024
MAX_SPARSE_BLOCKS = 1024
_SKIP = 64 * 1024

Charge = Callable[[int], bool]

_TYPES = MappingProxyType(
    {
        b"0": EntryType.FILE,
        b"\0": EntryType.FILE,
        b"7": EntryType.FILE,  # contiguous file
        b"1": EntryType.HARDLINK,
        b"2": EntryType.SYMLINK,
        b"3": EntryType.DEVICE,
        b"4": EntryType.DEVICE,
        b"5": EntryType.DIRECTORY,
        b"6": EntryType.DEVICE,  # FIFO
    }
)
_NO_CONTENT = (EntryType.DIRECTORY, EntryType.SYMLINK, EntryType.HARDLINK, EntryType.DEVICE)
_KEPT = ("path", "linkpath", "size", "hdrcharset")


class TarDamage(Exception):
    """The tar stream is truncated or malformed."""


class TarTrailing(Exception):
    """Non-zero bytes follow the end-of-archive marker."""


class HeaderTooLarge(Exception):
    """An extension header is larger than its cap; it was not read."""


class LimitReached(Exception):
    """The budget refused to read further (the finding is the budget's)."""


@dataclass(slots=True)
class TarMember:
    name: str
    etype: EntryType
    size: int  # content bytes that follow the header
    offset: int  # where the content starts in the (decompressed) stream
    problem: str = ""  # why tar programs would read the name differently, if they would
    header: bytes = b""  # a digest of the header block just before the content


def _name(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _field(buf: bytes) -> bytes:
    return buf.split(b"\0", 1)[0]


def number(field: bytes) -> int:
    """A numeric header field: octal (space or NUL ended) or GNU base-256."""
    if field[:1] in (b"\x80", b"\xff"):
        value = int.from_bytes(field[1:], "big")
        if field[0] == 0xFF:
            raise TarDamage("a header holds a negative number")
        return value
    text = _field(field).strip(b" ")
    if not text:
        return 0
    if any(c not in b"01234567" for c in text):
        raise TarDamage(f"a header holds a malformed number {text[:20]!r}")
    return int(text, 8)


def header_digest(block: bytes) -> bytes:
    """What a worker compares the header block before a member's content with, to know the
    tarball it opens is the one indexed (:class:`verifier.sources.tar.TarOpener`)."""
    return hashlib.blake2b(block, digest_size=16).digest()


def checksum_ok(block: bytes) -> bool:
    stored = number(block[148:156])
    unsigned = sum(block[:148]) + 8 * 32 + sum(block[156:])
    signed = unsigned - sum(256 for b in block[:148] + block[156:] if b > 127)
    return stored in (unsigned, signed)


def parse_pax(data: bytes) -> dict[str, bytes]:
    """The records of a pax extended header (``"%d %s=%s\\n"``), the kept keys only."""
    out: dict[str, bytes] = {}
    pos = 0
    while pos < len(data):
        if data[pos] == 0:  # some writers pad with NULs
            if data[pos:].strip(b"\0"):
                raise TarDamage("a pax header holds bytes after NUL padding")
            break
        space = data.find(b" ", pos, pos + 24)
        digits = data[pos:space] if space > pos else b""
        if not digits.isdigit() or not digits.isascii():
            raise TarDamage("a pax header record has no valid length")
        length = int(digits)
        end = pos + length
        if length <= len(digits) + 1 or end > len(data) or data[end - 1 : end] != b"\n":
            raise TarDamage("a pax header record's length does not match it")
        key, eq, value = data[space + 1 : end - 1].partition(b"=")
        if not eq or not key:
            raise TarDamage("a pax header record has no key")
        text = key.decode("utf-8", "replace")
        if text in _KEPT or text.startswith("GNU.sparse."):
            out[text] = value
        pos = end
    return out


class TarReader:
    """The members of one tar stream, in order. ``size``: the stream's length when known (a
    plain file, read with ``seek``); ``charge``: the budget, asked before any byte is read."""

    def __init__(self, stream: BinaryIO, charge: Charge, size: int | None = None) -> None:
        self._stream = stream
        self._charge = charge
        self._size = size
        self.pos = 0  # offset in the tar stream
        self._next_header = 0  # where the next header starts
        self._global: dict[str, bytes] = {}
        self.last = ""  # the last member's name, for messages
        self.ended = False  # the end-of-archive marker was read

    def _pay(self, n: int) -> None:
        if n and not self._charge(n):
            raise LimitReached

    def _read(self, n: int, what: str, eof_ok: bool = False) -> bytes:
        self._pay(n)
        chunks: list[bytes] = []
        left = n
        while left:
            data = self._stream.read(left)
            if not data:
                break
            chunks.append(data)
            left -= len(data)
        out = b"".join(chunks)
        self.pos += len(out)
        if len(out) < n and (out or not eof_ok):
            raise TarDamage(f"the archive ends inside {what} (it is truncated)")
        return out

    def _skip(self, n: int) -> None:
        if n <= 0:
            return
        if self._size is not None:
            self._pay(n)
            if self.pos + n > self._size:
                raise TarDamage(f"the archive ends inside the content of {self.last} (truncated)")
            self._stream.seek(n, 1)
            self.pos += n
            return
        while n:
            step = min(n, _SKIP)
            self._read(step, f"the content of {self.last}")
            n -= step

    def content(self, member: TarMember) -> _Bounded:
        """The member's content, to be read before :meth:`next` is called again."""
        return _Bounded(self, member.size)

    def _block(self, what: str) -> bytes:
        block = self._read(BLOCK, what, eof_ok=True)
        if not block:
            raise TarDamage("the archive ends without its end-of-archive marker (truncated)")
        return block

    def _extension(self, size: int, cap: int, what: str) -> bytes:
        if size > cap:
            raise HeaderTooLarge(
                f"a {what} of {size} bytes follows {self.last or 'the start'} (the cap is "
                f"{cap} bytes); it was not read"
            )
        padded = -(-size // BLOCK) * BLOCK
        data = self._read(padded, f"a {what}")
        return data[:size]

    def next(self) -> TarMember | None:
        """The next member (its extension headers applied), or ``None`` after the
        end-of-archive marker and a verified tail."""
        self._skip(self._next_header - self.pos)
        long_name: bytes | None = None
        local: dict[str, bytes] = {}
        sparse_ext = 0
        while True:
            block = self._block("a header")
            if not block.strip(b"\0"):
                second = self._read(BLOCK, "the end-of-archive marker")
                if len(second) < BLOCK:
                    raise TarDamage("the archive ends after a lone zero block (truncated)")
                if second.strip(b"\0"):
                    raise TarDamage("a zero block is followed by a header (a damaged archive)")
                if long_name is not None or local:
                    raise TarDamage("an extension header is followed by no member")
                self.ended = True
                self._tail()
                return None
            if not checksum_ok(block):
                raise TarDamage(f"a header after {self.last or 'the start'} has a bad checksum")
            typeflag = block[156:157]
            size = number(block[124:136])
            if typeflag in (b"L", b"K"):
                data = self._extension(size, MAX_LONG_NAME, "GNU long name")
                if typeflag == b"L":
                    long_name = data.rstrip(b"\0")
                continue
            if typeflag in (b"x", b"g", b"X"):
                records = parse_pax(self._extension(size, MAX_PAX, "pax header"))
                (self._global if typeflag == b"g" else local).update(records)
                continue
            break
        pax = {**self._global, **local}
        magic = block[257:265]
        problem = ""
        name = _field(block[0:100])
        prefix = _field(block[345:500])
        if magic[:6] == b"ustar\0":
            if prefix:
                name = prefix + b"/" + name
        elif prefix and typeflag != b"S" and long_name is None and "path" not in pax:
            problem = (
                "the header is not POSIX ustar but holds a name prefix: tarfile reads it as "
                "part of the name, GNU tar does not"
            )
        if long_name is not None:
            name = long_name
        if "path" in pax:
            name = pax["path"]
        if "size" in pax:
            text = pax["size"]
            if not text.isdigit() or not text.isascii() or len(text) > 20:
                raise TarDamage("a pax header holds a malformed size")
            size = int(text)
        etype = _TYPES.get(typeflag, EntryType.OTHER)
        if typeflag == b"\0" and name.endswith(b"/"):
            etype = EntryType.DIRECTORY
        if any(k.startswith("GNU.sparse.") for k in pax):
            etype = EntryType.OTHER  # a sparse file's content is a map and pieces, not its bytes
        if typeflag == b"S":
            etype = EntryType.OTHER
            extended = block[482]
            while extended:
                sparse_ext += 1
                if sparse_ext > MAX_SPARSE_BLOCKS:
                    raise TarDamage("a sparse header has too many extension blocks")
                extended = self._block("a sparse header")[504]
        if size and etype in _NO_CONTENT:
            raise TarDamage(
                f"the {etype.value} header {_name(name)} declares {size} bytes of "
                "content; tar programs disagree on whether they follow"
            )
        member = TarMember(_name(name), etype, size, self.pos, problem, header_digest(block))
        self._next_header = self.pos + -(-size // BLOCK) * BLOCK
        self.last = member.name
        return member

    def _tail(self) -> None:
        """Read what follows the end-of-archive marker to its end: zeros only."""
        while True:
            if self._size is not None:
                left = self._size - self.pos
                if left <= 0:
                    return
                step = min(left, _SKIP)
            else:
                step = _SKIP
            # charged once read (at most one buffer more), so zero padding that ends short of
            # a full buffer is not charged as a full one
            data = self._stream.read(step)
            self.pos += len(data)
            if not data:
                return
            self._pay(len(data))
            if data.strip(b"\0"):
                at = self.pos - len(data) + (len(data) - len(data.lstrip(b"\0")))
                raise TarTrailing(
                    f"non-zero bytes follow the end-of-archive marker at byte {at} of the "
                    "tar stream (tar --ignore-zeros would read members there)"
                )


class _Bounded:
    """A member's content: at most its size, then end of file; a short stream is damage."""

    def __init__(self, reader: TarReader, size: int) -> None:
        self._reader = reader
        self._left = size

    def read(self, n: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        want = self._left if n < 0 else min(n, self._left)
        data = self._reader._stream.read(want)
        if not data:
            raise TarDamage(f"the archive ends inside the content of {self._reader.last}")
        self._left -= len(data)
        self._reader.pos += len(data)
        return data

    def close(self) -> None:
        pass
