"""A tarball (``.tar``, ``.tar.gz``/``.tgz``, ``.tar.xz``, ``.tar.bz2``), read in place.

A tarball can only be read from the start, so every read is one forward pass: a first pass
reads the headers (the safety policy sees each entry's size before its content is
decompressed, so a bomb is refused before it expands) and then the rest of the stream, to its
very end: the tar stream's tail after the end-of-archive marker must be zeros, and a
compressed stream is decompressed and verified to its last byte (gzip CRC-32 and ISIZE of
every member, xz and bzip2 checks; :mod:`verifier.sources.compressed`). Every byte of it,
headers included, is charged to the limits before it is read
(:mod:`verifier.sources.tarformat`). Each later :meth:`read_many` is one more pass that hands
out the members asked for, in archive order. No member is extracted and no member's bytes
are hashed twice.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Iterator
from types import MappingProxyType
from typing import IO, Any

from verifier.sources.capabilities import SizeHints, WorkerReads
from verifier.sources.compressed import CompressedDamage, Decompressed, TrailingData
from verifier.sources.indexed import GuardedStream, IndexedSource, OnePass, file_stamp
from verifier.sources.interface import By, C, Opener, SourceError, Stream
from verifier.sources.safety import EntryType, IndexBuilder, Limits
from verifier.sources.tarformat import (
    Charge,
    HeaderTooLarge,
    LimitReached,
    TarDamage,
    TarReader,
    TarTrailing,
    header_digest,
)

_ERRORS: tuple[type[BaseException], ...] = (
    TarDamage,
    TarTrailing,
    CompressedDamage,
    TrailingData,
    OSError,
    ValueError,
)
_MAGIC = MappingProxyType({b"\x1f\x8b": "gzip", b"\xfd7zXZ\x00": "xz", b"BZh": "bzip2"})
SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz")
HEADER = 512


def compression_of(head: bytes) -> str:
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return name
    return "none"


def _recognised(exc: BaseException, head: bytes) -> bool:
    """Whether a tarball that fails before its first entry says it is one, so that the
    failure is damage (a finding) rather than a file of another kind (the command cannot
    run): its compressed stream (named by its magic number) is what is damaged, or its
    first header carries the ustar magic."""
    return isinstance(exc, CompressedDamage) or head[257:262] == b"ustar"


def looks_like_tar(path: str) -> bool:
    if path.lower().endswith(SUFFIXES):
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEADER)
    except OSError:
        return False
    return compression_of(head) != "none" or head[257:262] == b"ustar"


class TarSource(IndexedSource, WorkerReads, SizeHints):
    """The members of a tarball, plain or compressed with gzip, xz or bzip2."""

    name = "tar"

    def __init__(self, path: str, limits: Limits | None = None) -> None:
        self.path = path
        self.description = path
        limits = limits or Limits()
        try:
            self._handle = open(path, "rb")  # noqa: SIM115 (held open until close())
            head = self._handle.read(HEADER)
            self._size = os.fstat(self._handle.fileno()).st_size
        except OSError as exc:
            raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
        self.compression = compression_of(head)
        expand = None
        if self.compression != "none":
            expand = max(limits.ratio_floor, int(limits.max_ratio * self._size))
        builder = IndexBuilder(limits, expand)
        # where each member's content is in an uncompressed tarball: workers read it there
        plain = self.compression == "none"
        self._spans: dict[int, tuple[int, int, bytes]] = {}
        self._local: TarOpener | None = None  # this process's opener of the members in place
        self._stamp = _stamp(os.fstat(self._handle.fileno()))
        # the index pass reads the file through a hashing reader: the tarball's own SHA-256
        # (its identity in the report) comes from the same bytes, with no pass of its own
        self._once: OnePass | None = OnePass(self._handle, head)
        self._digest = ("", 0)
        once = self._once
        reader = self._reader(builder.charge)
        number = 0
        try:
            while (member := reader.next()) is not None:
                number += 1
                if member.problem:
                    builder.refuse_name(member.name, member.problem)
                    continue
                size_of = member.size if member.etype is EntryType.FILE else 0
                if not builder.add(member.name, member.etype, size_of, number - 1):
                    break
                if plain and member.etype is EntryType.FILE:
                    self._spans[number - 1] = (member.offset, member.size, member.header)
        except LimitReached:
            pass  # the builder's finding says which limit
        except HeaderTooLarge as exc:
            builder.refuse(
                "source.too-large",
                reader.last,
                f"Refused: {exc}. Long names and extended headers are capped so that a "
                "header cannot be a bomb; nothing after it was read.",
            )
            builder.index.complete = False
        except (TarTrailing, TrailingData) as exc:
            if not reader.ended:
                builder.damaged(reader.last or None, str(exc))
            else:
                builder.refuse(
                    "source.trailing-data",
                    reader.last,
                    f"The archive holds data after its end: {exc}. Tools that read on "
                    "would find entries that were not verified; re-create the archive.",
                )
        except _ERRORS as exc:
            if number == 0 and not reader.ended and not _recognised(exc, head):
                self._handle.close()
                raise SourceError(f"{path} is not a readable tarball: {exc}") from None
            builder.damaged(
                reader.last or None, str(exc) or type(exc).__name__, complete=reader.ended
            )
        try:  # what the pass left unread (it stopped at a limit or at damage)
            self._digest = once.finish()
        except OSError as exc:
            self._handle.close()
            raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
        self.index = builder.finish()

    def _stream(self) -> IO[bytes] | Decompressed | OnePass:
        raw: IO[bytes] | OnePass
        if self._once is not None:  # the index pass: from the start, hashed as it goes
            raw, self._once = self._once, None
        else:
            self._handle.seek(0)
            raw = self._handle
        if self.compression == "none":
            return raw
        return Decompressed(raw, self.compression)  # type: ignore[arg-type]

    def _reader(self, charge: Charge) -> TarReader:
        plain = self.compression == "none"
        return TarReader(self._stream(), charge, self._size if plain else None)  # type: ignore[arg-type]

    def open(self, name: str) -> Stream:
        span = self._spans.get(self.entry(name).ref)
        if span is not None:  # an uncompressed tarball: the member in place, not a pass
            if self._local is None:
                self._local = TarOpener(self.path, self._stamp)
            return self._local.open(name, span)
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
        reader = self._reader(lambda n: True)
        try:
            while (member := reader.next()) is not None:
                if number not in wanted:
                    number += 1
                    continue
                name = wanted.pop(number)
                number += 1
                inner = reader.content(member)
                yield name, GuardedStream(inner, _ERRORS, member.size, "damaged member")
                if not wanted:
                    return
        except _ERRORS as exc:
            for name in wanted.values():
                yield name, OSError(f"the archive is damaged before this member: {exc}")
            return
        for name in wanted.values():
            yield name, OSError("the archive changed while it was read")

    def capability(self, kind: Callable[..., C]) -> C | None:
        if kind is WorkerReads and not self._spans:
            return None  # a compressed tarball (or one without members) is read in one pass
        return super().capability(kind)

    def opener(self) -> Opener:
        """An uncompressed tarball's members are read where each worker runs, at the offsets
        the index pass found (a compressed one has no worker reads: it is read here, in one
        pass)."""
        return TarOpener(self.path, self._stamp)

    def locate(self, name: str) -> Any:
        # the member's span for a worker; a compressed tarball's tasks are read here by name
        return self._spans.get(self.entry(name).ref, name)

    def size_hint(self, name: str) -> int:
        entry = self.index.entries.get(name)
        span = self._spans.get(entry.ref) if entry is not None else None
        return span[1] if span is not None else 0

    def identity(self) -> dict[str, Any]:
        digest, size = self._digest  # hashed by the index pass
        return {
            **super().identity(),
            "sha256": digest,
            "size": size,
            "compression": self.compression,
        }

    def close(self) -> None:
        if self._local is not None:
            self._local.close()
        self._handle.close()


_stamp = file_stamp


class _Span(io.RawIOBase):
    """A member's content in an uncompressed tarball: ``size`` bytes from ``offset``, read
    with ``pread`` (so streams of one handle do not share a position); short is damage."""

    def __init__(self, fd: int, offset: int, size: int) -> None:
        super().__init__()
        self._fd, self._at, self._left = fd, offset, size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._left <= 0 or not len(view):
            return 0
        data = os.pread(self._fd, min(len(view), self._left), self._at)
        if not data:
            raise OSError("the archive ends inside this member's content (it changed)")
        n = len(data)
        view[:n] = data
        self._at += n
        self._left -= n
        return n


class TarOpener(Opener):
    """Opens the members of an uncompressed tarball in a worker, by the span each task
    carries (content offset, size, and a digest of the header block before it). The worker
    opens the tarball itself, checks that it is the file the index pass read (inode,
    size and modification time) and that each member's header block is the one indexed, then
    reads the content in place: the index pass's safety checks hold for what it reads."""

    def __init__(self, path: str, stamp: tuple[int, ...]) -> None:
        self.path = path
        self.stamp = stamp
        self._fd: int | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "stamp": self.stamp}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], tuple(state["stamp"]))  # type: ignore[misc]

    def _open(self, offset: int, header: bytes) -> int:
        if self._fd is None:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            if _stamp(os.fstat(fd)) != self.stamp:
                os.close(fd)
                raise OSError("the tarball changed while it was read")
            self._fd = fd
        block = os.pread(self._fd, HEADER, offset - HEADER) if offset >= HEADER else b""
        if header_digest(block) != header:
            raise OSError("the tarball changed while it was read (a member's header differs)")
        return self._fd

    def open(self, name: str, where: Any) -> Stream:
        offset, size, header = where
        return _Span(self._open(offset, header), offset, size)

    def read_whole(self, name: str, where: Any) -> bytes | None:
        offset, size, header = where
        fd = self._open(offset, header)
        parts: list[bytes] = []
        at, left = offset, size
        while left > 0:
            data = os.pread(fd, left, at)
            if not data:
                raise OSError("the archive ends inside this member's content (it changed)")
            parts.append(data)
            at += len(data)
            left -= len(data)
        return b"".join(parts)

    def __del__(self) -> None:  # a worker's copy: closed when the worker lets it go
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def probe(location: str, rev: str | None, by: By, limits: Limits) -> TarSource | None:
    """The registry's probe (:mod:`verifier.sources.registry`): a readable file named as a
    tarball, or whose first bytes are a compressed stream's or a tar header's."""
    return TarSource(location, limits) if by is By.HEAD and looks_like_tar(location) else None
