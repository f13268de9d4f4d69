"""What zip, tar and git sources share: an :class:`~verifier.sources.safety.Index` built once
by the safety policy answers ``kind`` and ``walk``; streams turn a library's errors into
``OSError`` and never yield more bytes than the entry declared."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from verifier.findings import Finding
from verifier.sources.interface import Kind, Source
from verifier.sources.safety import Entry, Index


class GuardedStream(io.RawIOBase):
    """A read-only stream over another that raises only ``OSError`` and stops at ``limit``."""

    def __init__(
        self, inner: Any, errors: tuple[type[BaseException], ...], limit: int, what: str
    ) -> None:
        super().__init__()
        self._inner = inner
        self._errors = errors
        self._left = limit
        self._what = what

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._left <= 0:
            return 0
        want = min(len(view), self._left)
        try:
            data = self._inner.read(want)
        except self._errors as exc:
            raise OSError(f"{self._what}: {exc}") from None
        n = len(data)
        view[:n] = data
        self._left -= n
        if self._left <= 0 and n:
            # one more read at the declared end lets the library check what it checks there
            # (a zip member's CRC-32) and shows a member longer than declared
            try:
                extra = self._inner.read(1)
            except self._errors as exc:
                raise OSError(f"{self._what}: {exc}") from None
            if extra:
                raise OSError(f"{self._what}: it holds more bytes than its header declares")
        return n

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(*self._errors):
                self._inner.close()
        super().close()


_CHUNK = 1 << 20


def file_stamp(st: os.stat_result) -> tuple[int, ...]:
    """What says an archive file is still the one the source read (inode, size and
    modification time): a worker checks it before reading at the offsets it was given. Not
    the device number: machines that mount the same share number it differently."""
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def handle_sha256(handle: BinaryIO) -> tuple[str, int]:
    """The SHA-256 and size of an archive file itself (its identity in the report), read
    from its start through the handle already open."""
    digest = hashlib.sha256()
    size = 0
    handle.seek(0)
    for chunk in iter(lambda: handle.read(_CHUNK), b""):
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


class OnePass:
    """An archive file read forward once, hashed as it goes: the pass that indexes a tarball
    reads through this, so the tarball's own SHA-256 (its identity) costs no pass of its own.

    ``head``: the bytes already read from the handle's start (the magic-number peek), handed
    out first. A forward relative ``seek`` (skipping a member's content) reads through and
    hashes what it skips; :meth:`finish` hashes what the pass left unread (it stopped at a
    limit or at damage) and gives the digest and size of the whole file."""

    def __init__(self, handle: BinaryIO, head: bytes) -> None:
        self._handle = handle
        self._pending = head
        self._pos = 0
        self._hash = hashlib.sha256()

    def read(self, n: int = -1) -> bytes:
        if n < 0:
            n = sys.maxsize
        data = self._pending[:n]
        self._pending = self._pending[len(data) :]
        if len(data) < n:
            more = self._handle.read(n - len(data) if n != sys.maxsize else -1)
            data = data + more if data else more
        self._hash.update(data)
        self._pos += len(data)
        return data

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence != 1 or offset < 0:
            raise OSError("the indexing pass reads the archive forward only")
        while offset > 0:
            got = len(self.read(min(offset, _CHUNK)))
            if not got:
                break
            offset -= got
        return self._pos

    def finish(self) -> tuple[str, int]:
        while self.read(_CHUNK):
            pass
        return self._hash.hexdigest(), self._pos


class IndexedSource(Source):
    """A source whose entries were all admitted up front by the safety policy."""

    index: Index
    root_folder: str = ""  # the single top folder a release archive was re-rooted at

    def kind(self, name: str) -> Kind:
        return self.index.kind(name)

    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        return self.index.walk(folder)

    def entry(self, name: str) -> Entry:
        entry = self.index.entries.get(name)
        if entry is None or self.index.kind(name) is not Kind.FILE:
            raise OSError(f"{name} is not a regular file in {self.description}")
        return entry

    def findings(self) -> list[Finding]:
        return list(self.index.findings)

    def complete(self) -> bool:
        return self.index.complete

    def reroot_for(self, wanted: tuple[str, ...]) -> None:
        """A release zip or tarball often holds one folder (``project-1.0/``) with everything
        in it: read from inside it when none of ``wanted`` is at the top but one is there."""
        top = self.index.single_top_folder()
        if top is None or any(self.index.kind(w) is not Kind.MISSING for w in wanted):
            return
        if any(self.index.kind(f"{top}/{w}") is Kind.FILE for w in wanted):
            self.index = self.index.reroot(top)
            self.root_folder = top

    def identity(self) -> dict[str, Any]:
        out = super().identity()
        if self.root_folder:
            out["rootFolder"] = self.root_folder
        out["complete"] = self.index.complete
        return out
