"""Inspect ``.eval`` zips: reading a member under the project's zip rules, and writing a
repaired copy.

A member is read only if :mod:`verifier.sources.zip` would read it: a safe name read the same
way by every tool, a regular file, within the size, ratio and total limits, not encrypted; a
zstd member (method 93) through the ``zstandard`` package, bounded to the size it declares and
checked against its CRC-32. Anything else is ``transcript.unreadable-member``.

:func:`rewrite_eval` writes the repaired copy: every member of the input, in its order, read
under those rules (one that is not readable refuses the repair: nothing is copied blind),
with the repaired samples replaced. The zip is written deterministically: a fixed timestamp,
Unix attributes ``0644``, deflate at level 6 for every member (a zstd member is written back
deflated, which every Inspect reads), no comment, no extra fields. A member's name is only
ever a name inside the new zip, never a path on disk (the caller writes the one output file).
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any

from verifier.sources.safety import MIB, EntryType, Limits, member_name
from verifier.sources.zip import entry_type, name_problem, open_member
from verifier.transcripts.containers.interface import ContainerError

ZSTD = 93
UNREADABLE = "transcript.unreadable-member"
MEMBER_LIMIT = 256 * MIB  # one sample decompressed
TOTAL_LIMIT = 1024 * MIB  # every sample read from one log
LIMITS = Limits()
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the zip epoch: no clock in the output
LEVEL = 6


def member_data(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, handle: Any, budget: list[int]
) -> bytes:
    name, problem = member_name(info.orig_filename)
    problem = problem or name_problem(info, handle)
    if name is None or problem:
        raise ContainerError(f"{info.orig_filename!r}: {problem}", UNREADABLE)
    if entry_type(info) is not EntryType.FILE:
        raise ContainerError(f"{name}: not a regular file", UNREADABLE)
    size = info.file_size
    if size > MEMBER_LIMIT or size > budget[0]:
        raise ContainerError(f"{name}: {size} bytes is over the limit", UNREADABLE)
    if size > LIMITS.ratio_floor and size > LIMITS.max_ratio * max(info.compress_size, 1):
        raise ContainerError(
            f"{name}: the compression ratio is over the limit (a bomb)", UNREADABLE
        )
    budget[0] -= size
    if info.compress_type == ZSTD:
        try:
            import zstandard  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise ContainerError(
                f"{name} is compressed with zstd (zip method 93), which this Python cannot "
                "decode; install the 'zstandard' package (pip install 'verify-evidence[zstd]')",
                UNREADABLE,
            ) from None
        handle.seek(info.header_offset + 26)
        n, m = int.from_bytes(handle.read(2), "little"), int.from_bytes(handle.read(2), "little")
        handle.seek(info.header_offset + 30 + n + m)
        raw = handle.read(info.compress_size)
        try:
            out: bytes = zstandard.ZstdDecompressor().decompress(raw, max_output_size=size)
        except zstandard.ZstdError as exc:
            raise ContainerError(f"{name}: damaged zstd member ({exc})", UNREADABLE) from None
        if len(out) != size or zlib.crc32(out) != info.CRC:
            raise ContainerError(
                f"{name}: the zstd member is not the size or CRC-32 it declares", UNREADABLE
            )
        return out
    try:
        with open_member(archive, info) as stream:
            return stream.read(size + 1)
    except OSError as exc:
        raise ContainerError(f"{name}: {exc}", UNREADABLE) from None


def open_eval(data: bytes) -> tuple[zipfile.ZipFile, io.BytesIO, list[zipfile.ZipInfo]]:
    """The zip, the handle it reads from, and its members (at most the limit's count)."""
    handle = io.BytesIO(data)
    try:
        archive = zipfile.ZipFile(handle)
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise ContainerError(f"the zip cannot be read ({exc})", UNREADABLE) from None
    if len(infos) > LIMITS.max_entries:
        raise ContainerError("the zip has too many members", UNREADABLE)
    return archive, handle, infos


def rewrite_eval(data: bytes, replace: dict[str, bytes]) -> bytes:
    """The zip ``data`` with the members named in ``replace`` replaced, written
    deterministically; raises :class:`ContainerError` if a member cannot be read safely."""
    archive, handle, infos = open_eval(data)
    budget = [TOTAL_LIMIT]
    seen: set[str] = set()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as z:
        for info in infos:
            body = member_data(archive, info, handle, budget)
            name = info.orig_filename
            if name in seen:
                raise ContainerError(f"{name}: the zip holds this member twice", UNREADABLE)
            seen.add(name)
            z.writestr(_info(name), replace.get(name, body), zipfile.ZIP_DEFLATED, LEVEL)
    if set(replace) - seen:
        raise ContainerError("a repaired sample is not a member of the zip")
    return out.getvalue()


def _info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix, on every platform
    info.external_attr = 0o100644 << 16
    return info


__all__ = ["LIMITS", "TOTAL_LIMIT", "UNREADABLE", "member_data", "open_eval", "rewrite_eval"]
