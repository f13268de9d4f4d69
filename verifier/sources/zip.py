"""A zip file, read in place: the central directory is the list of entries the safety policy
admits; each member is decompressed as a stream when it is hashed, never extracted."""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from typing import Any

from verifier.sources.indexed import GuardedStream, IndexedSource, file_sha256
from verifier.sources.interface import SourceError, Stream
from verifier.sources.safety import EntryType, IndexBuilder, Limits

_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    RuntimeError,
    ValueError,
)

_OPEN_ERRORS: tuple[type[BaseException], ...] = (*_ERRORS, OSError)


def entry_type(info: zipfile.ZipInfo) -> EntryType:
    mode = info.external_attr >> 16
    if mode and info.create_system == 3:  # Unix attributes
        if stat.S_ISLNK(mode):
            return EntryType.SYMLINK
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            return EntryType.DEVICE
        if stat.S_ISDIR(mode):
            return EntryType.DIRECTORY
    return EntryType.DIRECTORY if info.filename.endswith("/") else EntryType.FILE


class ZipSource(IndexedSource):
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
        try:
            self._zip = zipfile.ZipFile(self._handle)
            infos = self._zip.infolist()
        except _OPEN_ERRORS as exc:
            self._handle.close()
            raise SourceError(f"{path} is not a readable zip file: {exc}") from None
        builder = IndexBuilder(limits)
        for info in infos:
            if not builder.add(
                info.filename, entry_type(info), info.file_size, info, info.compress_size
            ):
                break
        self.index = builder.finish()

    def open(self, name: str) -> Stream:
        info: zipfile.ZipInfo = self.entry(name).ref
        if info.flag_bits & 0x1:
            raise OSError("the member is encrypted")
        try:
            inner = self._zip.open(info)
        except _OPEN_ERRORS as exc:
            raise OSError(f"cannot open the member: {exc}") from None
        return GuardedStream(inner, _ERRORS, info.file_size, "damaged member")

    def identity(self) -> dict[str, Any]:
        digest, size = file_sha256(self.path)
        return {**super().identity(), "sha256": digest, "size": size}

    def close(self) -> None:
        self._zip.close()
        self._handle.close()


def is_zip(path: str) -> bool:
    if path.lower().endswith(".zip"):
        return True
    try:
        return zipfile.is_zipfile(path) and not os.path.isdir(path)
    except OSError:
        return False
