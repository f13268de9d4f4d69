"""A tarball (``.tar``, ``.tar.gz``/``.tgz``, ``.tar.xz``, ``.tar.bz2``), read in place.

A tarball can only be read from the start, so every read is one forward pass: a first pass
reads the headers (the safety policy sees each entry's size before its content is
decompressed, so a bomb is refused before it expands); each later :meth:`read_many` is one
more pass that hands out the members asked for, in archive order. No member is extracted and
no member's bytes are hashed twice.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import tarfile
import zlib
from collections.abc import Iterable, Iterator
from typing import IO, Any

from verifier.sources.indexed import GuardedStream, IndexedSource, file_sha256
from verifier.sources.interface import SourceError, Stream
from verifier.sources.safety import EntryType, IndexBuilder, Limits

_ERRORS: tuple[type[BaseException], ...] = (
    tarfile.TarError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    OSError,
    ValueError,
)
_MAGIC = {b"\x1f\x8b": "gzip", b"\xfd7zXZ\x00": "xz", b"BZh": "bzip2"}
SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz")
HEADER = 512


def compression_of(head: bytes) -> str:
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return name
    return "none"


def looks_like_tar(path: str) -> bool:
    if path.lower().endswith(SUFFIXES):
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEADER)
    except OSError:
        return False
    return compression_of(head) != "none" or head[257:262] == b"ustar"


def entry_type(member: tarfile.TarInfo) -> EntryType:
    if member.isreg():
        return EntryType.FILE
    if member.isdir():
        return EntryType.DIRECTORY
    if member.issym():
        return EntryType.SYMLINK
    if member.islnk():
        return EntryType.HARDLINK
    if member.ischr() or member.isblk() or member.isfifo():
        return EntryType.DEVICE
    return EntryType.OTHER


class TarSource(IndexedSource):
    """The members of a tarball, plain or compressed with gzip, xz or bzip2."""

    name = "tar"

    def __init__(self, path: str, limits: Limits | None = None) -> None:
        self.path = path
        self.description = path
        limits = limits or Limits()
        try:
            self._handle = open(path, "rb")  # noqa: SIM115 (held open until close())
            head = self._handle.read(HEADER)
            size = os.fstat(self._handle.fileno()).st_size
        except OSError as exc:
            raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
        self.compression = compression_of(head)
        expand = None
        if self.compression != "none":
            expand = max(limits.ratio_floor, int(limits.max_ratio * size))
        builder = IndexBuilder(limits, expand)
        number = 0
        last: str | None = None
        try:
            for member in self._members():
                size_of = member.size if member.isreg() else 0
                if not builder.add(member.name, entry_type(member), size_of, number, None, HEADER):
                    break
                number += 1
                last = member.name
        except _ERRORS as exc:
            if number == 0:
                self._handle.close()
                raise SourceError(f"{path} is not a readable tarball: {exc}") from None
            builder.damaged(last, str(exc) or type(exc).__name__)
        self.index = builder.finish()

    def _stream(self) -> IO[bytes] | gzip.GzipFile | lzma.LZMAFile | bz2.BZ2File:
        self._handle.seek(0)
        if self.compression == "gzip":
            return gzip.GzipFile(fileobj=self._handle, mode="rb")
        if self.compression == "xz":
            return lzma.LZMAFile(self._handle)
        if self.compression == "bzip2":
            return bz2.BZ2File(self._handle)
        return self._handle

    def _members(self) -> Iterator[tarfile.TarInfo]:
        """One forward pass over the headers; the caller reads a member before the next."""
        with tarfile.open(fileobj=self._stream(), mode="r|") as archive:
            self._archive = archive
            while True:
                member = archive.next()
                if member is None:
                    return
                yield member

    def open(self, name: str) -> Stream:
        for _, stream in self.read_many([name]):
            if isinstance(stream, OSError):
                raise stream
            return stream
        raise OSError(f"{name} was not found in {self.description}")

    def read_many(self, names: Iterable[str]) -> Iterator[tuple[str, Stream | OSError]]:
        wanted: dict[int, str] = {}
        for name in set(names):
            try:
                wanted[self.entry(name).ref] = name
            except OSError as exc:
                yield name, exc
        if not wanted:
            return
        number = 0
        try:
            for member in self._members():
                if number not in wanted:
                    number += 1
                    continue
                name = wanted.pop(number)
                number += 1
                inner = self._archive.extractfile(member)
                if inner is None:
                    yield name, OSError("not a regular member")
                else:
                    yield name, GuardedStream(inner, _ERRORS, member.size, "damaged member")
                if not wanted:
                    return
        except _ERRORS as exc:
            for name in wanted.values():
                yield name, OSError(f"the archive is damaged before this member: {exc}")
            return
        for name in wanted.values():
            yield name, OSError("the archive changed while it was read")

    def identity(self) -> dict[str, Any]:
        digest, size = file_sha256(self.path)
        return {
            **super().identity(),
            "sha256": digest,
            "size": size,
            "compression": self.compression,
        }

    def close(self) -> None:
        self._handle.close()
