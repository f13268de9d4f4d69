"""A zip file, read in place: the central directory is the list of entries the safety policy
admits; each member is decompressed as a stream when it is hashed, never extracted.

The name the policy sees is the raw one (``ZipInfo.orig_filename``: :mod:`zipfile` cuts
``filename`` at a NUL). A zip can give a member more than one name, and tools do not agree on
which they use, so a member is refused (``source.unsafe-member``) when its names disagree:

* the central directory's name and the local file header's name (tools that read a zip from
  its start, as a stream, see the local one), or their UTF-8 flags;
* an Info-ZIP Unicode Path extra field (``0x7075``) that names another path (7-Zip and
  Info-ZIP use it, :mod:`zipfile` does not);
* a name with bytes beyond ASCII and no UTF-8 flag: :mod:`zipfile` decodes it as cp437, most
  unzip programs on Linux as UTF-8, Windows as the local code page.
"""

from __future__ import annotations

import lzma
import os
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO

from verifier.sources.capabilities import SizeHints, WorkerReads
from verifier.sources.indexed import GuardedStream, IndexedSource, file_stamp, handle_sha256
from verifier.sources.interface import By, C, Opener, SourceError, Stream
from verifier.sources.safety import EntryType, IndexBuilder, Limits

_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,  # a damaged LZMA member (bzip2 members raise OSError)
    struct.error,
    EOFError,
    NotImplementedError,
    RuntimeError,
    ValueError,
)

_OPEN_ERRORS: tuple[type[BaseException], ...] = (*_ERRORS, OSError)
_UTF8 = 0x800
_LOCAL = struct.Struct("<4s2B4HL2L2H")  # the local file header, as zipfile reads it
_UNICODE_PATH = 0x7075


def _raw_name(info: zipfile.ZipInfo) -> bytes:
    encoding = "utf-8" if info.flag_bits & _UTF8 else "cp437"
    return info.orig_filename.encode(encoding, "surrogateescape")


def _unicode_paths(extra: bytes) -> list[bytes]:
    """The names in Info-ZIP Unicode Path extra fields (version 1, a CRC, UTF-8 bytes)."""
    out: list[bytes] = []
    while len(extra) >= 4:
        kind, length = struct.unpack("<HH", extra[:4])
        body = extra[4 : 4 + length]
        if kind == _UNICODE_PATH and len(body) >= 5:
            out.append(body[5:])
        extra = extra[4 + length :]
    return out


def name_problem(info: zipfile.ZipInfo, handle: BinaryIO) -> str:
    """Why tools would read this member's name differently, or ``""``."""
    raw = _raw_name(info)
    if not info.flag_bits & _UTF8 and not raw.isascii():
        return (
            "the name has bytes beyond ASCII and the zip does not mark it as UTF-8: tools "
            "decode it differently (cp437, UTF-8, the local code page); re-create the zip "
            "with UTF-8 names"
        )
    for other in _unicode_paths(info.extra):
        if other != info.orig_filename.encode("utf-8", "surrogateescape"):
            return (
                "the member carries a second name (an Info-ZIP Unicode Path field) that "
                "differs from its name; tools disagree on which one is meant"
            )
    try:
        handle.seek(info.header_offset)
        head = handle.read(_LOCAL.size)
        if len(head) < _LOCAL.size:
            return ""  # damage: opening the member reports it
        fields = _LOCAL.unpack(head)
        if fields[0] != b"PK\x03\x04":
            return ""
        local = handle.read(fields[10])
        local_extra = handle.read(fields[11])
    except OSError:
        return ""
    if local != raw or (fields[3] & _UTF8) != (info.flag_bits & _UTF8):
        shown = local.decode("utf-8" if fields[3] & _UTF8 else "cp437", "replace")
        if len(shown) > 200:
            shown = shown[:200] + "..."
        return (
            f"its local file header names it '{shown}', the central directory otherwise; a "
            "tool that reads the zip from its start sees the other name"
        )
    for other in _unicode_paths(local_extra):
        if other != info.orig_filename.encode("utf-8", "surrogateescape"):
            return (
                "its local file header carries a second name (an Info-ZIP Unicode Path "
                "field) that differs from its name; tools disagree on which one is meant"
            )
    return ""


def entry_type(info: zipfile.ZipInfo) -> EntryType:
    mode = info.external_attr >> 16
    if mode and info.create_system == 3:  # Unix attributes
        if stat.S_ISLNK(mode):
            return EntryType.SYMLINK
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            return EntryType.DEVICE
        if stat.S_ISDIR(mode):
            return EntryType.DIRECTORY
    return EntryType.DIRECTORY if info.orig_filename.endswith("/") else EntryType.FILE


class ZipSource(IndexedSource, WorkerReads, SizeHints):
    """The members of a ``.zip`` file."""

    name = "zip"

    def __init__(self, path: str, limits: Limits | None = None) -> None:
        self.path = path
        self.description = path
        limits = limits or Limits()
        try:
            self._handle = open(path, "rb")  # noqa: SIM115 (held open until close())
        except OSError as exc:
            raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
        # the zip's own SHA-256 (its identity in the report): one read from its start, through
        # the handle just opened, before the central directory is parsed. No pass the source
        # makes covers every byte (the central directory is at the end, members are read at
        # their offsets, by workers), so this is the one full read of the zip itself; its
        # central directory and local headers are read again after it (small, and cached)
        try:
            self._digest = handle_sha256(self._handle)
            self._stamp = file_stamp(os.fstat(self._handle.fileno()))
        except OSError as exc:
            self._handle.close()
            raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
        builder = IndexBuilder(limits)
        self._zip: zipfile.ZipFile | None = None
        try:
            self._zip = zipfile.ZipFile(self._handle)
            infos = self._zip.infolist()
        except _OPEN_ERRORS as exc:
            if not has_zip_signature(self._handle):
                self._handle.close()
                raise SourceError(f"{path} is not a readable zip file: {exc}") from None
            # a zip whose central directory cannot be read: damage, reported as a finding
            builder.refuse(
                "source.unreadable",
                "",
                f"The zip is damaged: its central directory (the list of its entries, at its "
                f"end) cannot be read ({exc}), so no entry was read. Re-create or re-download "
                "it.",
            )
            builder.index.complete = False
            infos = []
        for info in infos:
            problem = name_problem(info, self._handle)
            if problem:
                builder.refuse_name(info.orig_filename, problem)
                continue
            if not builder.add(
                info.orig_filename, entry_type(info), info.file_size, info, info.compress_size
            ):
                break
        self.index = builder.finish()

    def open(self, name: str) -> Stream:
        info: zipfile.ZipInfo = self.entry(name).ref
        if self._zip is None:  # no entry was admitted: entry() raised before this
            raise OSError("the zip's central directory cannot be read")
        return open_member(self._zip, info)

    def capability(self, kind: Callable[..., C]) -> C | None:
        if kind is WorkerReads and self._zip is None:
            return None  # no central directory: nothing for a worker to open
        return super().capability(kind)

    def size_hint(self, name: str) -> int:
        entry = self.index.entries.get(name)
        return entry.ref.compress_size if entry is not None else 0

    def opener(self) -> Opener:
        return ZipOpener(self.path, self._stamp)

    def locate(self, name: str) -> Any:
        info: zipfile.ZipInfo = self.entry(name).ref
        return (info.orig_filename, info.header_offset, info.file_size)

    def identity(self) -> dict[str, Any]:
        digest, size = self._digest  # read when the zip was opened
        return {**super().identity(), "sha256": digest, "size": size}

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
        self._handle.close()


def open_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Stream:
    """A guarded stream of one member (never more bytes than it declares; a library error
    as ``OSError``)."""
    if info.flag_bits & 0x1:
        raise OSError("the member is encrypted")
    try:
        inner = archive.open(info)
    except _OPEN_ERRORS as exc:
        raise OSError(f"cannot open the member: {exc}") from None
    return GuardedStream(inner, _ERRORS, info.file_size, "damaged member")


class ZipOpener(Opener):
    """Opens a zip's members in a worker. The worker opens the zip itself, checks that it is
    the file the source hashed and indexed (inode, size and modification time), reads
    its central directory, and opens a member only if the entry at the task's offset has the
    task's name and size."""

    def __init__(self, path: str, stamp: tuple[int, ...]) -> None:
        self.path = path
        self.stamp = stamp
        self._handle: Any = None
        self._zip: zipfile.ZipFile | None = None
        self._by_offset: dict[int, zipfile.ZipInfo] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "stamp": self.stamp}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], tuple(state["stamp"]))  # type: ignore[misc]

    def open(self, name: str, where: Any) -> Stream:
        member, offset, size = where
        if self._zip is None:
            self._handle = open(self.path, "rb")  # noqa: SIM115 (held until close())
            if file_stamp(os.fstat(self._handle.fileno())) != self.stamp:
                self.close()
                raise OSError("the zip changed while it was read")
            try:
                self._zip = zipfile.ZipFile(self._handle)
            except _OPEN_ERRORS as exc:
                raise OSError(f"the zip's central directory cannot be read: {exc}") from None
            self._by_offset = {i.header_offset: i for i in self._zip.infolist()}
        info = self._by_offset.get(offset)
        if info is None or info.orig_filename != member or info.file_size != size:
            raise OSError("the zip changed while it was read")
        return open_member(self._zip, info)

    def __del__(self) -> None:  # a worker's copy: closed when the worker lets it go
        self.close()

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
            self._zip = None
        if self._handle is not None:
            self._handle.close()
            self._handle = None


_LOCAL_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")  # entry, empty, spanned
_END_SIGNATURES = (b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07")  # EOCD, zip64 EOCD, locator
_TAIL = 22 + 65535 + 20 + 56  # the end record, its longest comment, the zip64 locator, record


def has_zip_signature(handle: BinaryIO) -> bool:
    """Whether the file says it is a zip: it starts with a zip record (a local file header,
    the end record of an empty zip, a spanning marker), or its tail, where the end of the
    central directory lives, holds an end-record signature. A zip with such a signature
    that cannot be opened is damaged (a finding); a file with none is not a zip at all."""
    try:
        handle.seek(0)
        if handle.read(4) in _LOCAL_SIGNATURES:
            return True
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - _TAIL))
        tail = handle.read(_TAIL)
    except OSError:
        return False
    return any(signature in tail for signature in _END_SIGNATURES)


def is_zip(path: str) -> bool:
    if path.lower().endswith(".zip"):
        return True
    try:
        if os.path.isdir(path):
            return False
        with open(path, "rb") as handle:
            return has_zip_signature(handle)
    except OSError:
        return False


def probe(location: str, rev: str | None, by: By, limits: Limits) -> ZipSource | None:
    """The registry's probe (:mod:`verifier.sources.registry`): a file named ``.zip``, and a
    readable file with a zip's signature (at its start or an end record in its tail)."""
    if by is By.NAME:
        found = location.lower().endswith(".zip")
    else:
        found = by is By.BYTES and is_zip(location)
    return ZipSource(location, limits) if found else None
