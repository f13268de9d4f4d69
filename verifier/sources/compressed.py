"""The decompressed bytes of a gzip, xz or bzip2 file, read to the very end and verified.

The standard library's file wrappers stop wherever their reader stops (a tar reader stops at
the end-of-archive marker, long before a gzip trailer), and :class:`lzma.LZMAFile` and
:class:`bz2.BZ2File` silently ignore bytes after the last stream. This stream drives the
decompressors itself so that a reader that reads it to its end has verified all of it:

* every stream of the file in turn (a multi-member gzip, concatenated xz or bzip2 streams);
* each stream's own check, by the decompressor: a gzip member's CRC-32 and ISIZE, an xz
  block's check and index, a bzip2 block's and stream's CRC;
* a file that ends inside a stream is damage (:class:`CompressedDamage`);
* an xz stream whose decoder would need more than :data:`XZ_MEMLIMIT` is damage, not an
  allocation;
* between and after streams only zero bytes are allowed, as ``gzip -t`` and ``xz -t`` allow
  them (xz: in multiples of four); anything else is :class:`TrailingData`.

Output is bounded per call (``max_length``), so a stream never holds more than one buffer.
"""

from __future__ import annotations

import bz2
import io
import lzma
import zlib
from types import MappingProxyType
from typing import Any, BinaryIO

CHUNK = 64 * 1024
#: what an xz stream's decoder may allocate (``xz -9`` needs 65 MiB): a header can ask for a
#: dictionary of up to 4 GiB, which is refused instead of allocated
XZ_MEMLIMIT = 256 * 1024 * 1024
MAGIC = MappingProxyType({"gzip": b"\x1f\x8b", "xz": b"\xfd7zXZ\x00", "bzip2": b"BZh"})
_ERRORS: tuple[type[BaseException], ...] = (zlib.error, lzma.LZMAError, OSError, EOFError)


class CompressedDamage(Exception):
    """The compressed stream is truncated or corrupt."""


class TrailingData(Exception):
    """Bytes that are not a compressed stream follow the last one."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"bytes that are not compressed data follow at byte {offset} of the file")
        self.offset = offset


def _decompressor(kind: str) -> Any:
    if kind == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if kind == "xz":
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ, memlimit=XZ_MEMLIMIT)
    return bz2.BZ2Decompressor()


class Decompressed(io.RawIOBase):
    """A read-only stream of the decompressed bytes of ``raw`` (``kind``: gzip, xz, bzip2)."""

    def __init__(self, raw: BinaryIO, kind: str) -> None:
        super().__init__()
        if kind not in MAGIC:
            raise ValueError(f"unknown compression {kind}")
        self._raw = raw
        self._kind = kind
        self._dec: Any = None
        self._input = b""
        self._done = False
        self.streams = 0

    def readable(self) -> bool:
        return True

    def _more(self) -> bytes:
        try:
            return self._raw.read(CHUNK)
        except OSError as exc:
            raise CompressedDamage(f"the file cannot be read: {exc}") from None

    def _offset(self) -> int:
        try:
            return self._raw.tell() - len(self._input)
        except OSError:
            return -1

    def _start(self) -> bool:
        """Begin the next stream; ``False`` at a proper end of the file."""
        padding = 0
        while True:
            if not self._input:
                self._input = self._more()
                if not self._input:
                    break
            if self._kind == "bzip2":
                break
            stripped = self._input.lstrip(b"\0")
            padding += len(self._input) - len(stripped)
            self._input = stripped
            if stripped:
                break
        if self._kind == "xz" and padding % 4:
            raise CompressedDamage("the xz stream padding is not a multiple of four bytes")
        magic = MAGIC[self._kind]
        while self._input and len(self._input) < len(magic):
            more = self._more()
            if not more:
                break
            self._input += more
        if not self._input:
            if self.streams == 0:
                raise CompressedDamage(f"the file holds no {self._kind} stream")
            return False
        if not self._input.startswith(magic):
            if self.streams == 0:
                raise CompressedDamage(f"the file is not a {self._kind} stream")
            raise TrailingData(self._offset())
        self._dec = _decompressor(self._kind)
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        want = len(view)
        if want == 0:
            return 0
        while not self._done:
            if self._dec is None and not self._start():
                self._done = True
                break
            dec = self._dec
            data, self._input = self._input, b""
            try:
                out = dec.decompress(data, want)
            except _ERRORS as exc:
                raise CompressedDamage(f"the {self._kind} stream is corrupt: {exc}") from None
            if self._kind == "gzip":
                self._input = dec.unconsumed_tail
            if dec.eof:
                self._input = dec.unused_data + self._input
                self._dec = None
                self.streams += 1
            if out:
                view[: len(out)] = out
                return len(out)
            if self._dec is not None and not data:
                self._input = self._more()
                if not self._input:
                    raise CompressedDamage(
                        f"the {self._kind} stream ends before its end marker (the file is "
                        "truncated)"
                    )
        return 0
