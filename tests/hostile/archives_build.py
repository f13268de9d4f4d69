"""Builders of hostile zip files and tarballs, byte by byte where the libraries refuse."""

from __future__ import annotations

import gzip
import hashlib
import io
import struct
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from verifier.manifest import format_manifest

BLOCK = 512
GOOD = {"evidence/study.json": b'{"study": 1}\n', "evidence/notes.txt": b"notes\n"}


def manifest(files: dict[str, bytes]) -> bytes:
    return format_manifest([(n, hashlib.sha256(d).hexdigest()) for n, d in files.items()])


def zip_of(dest: Path, members: Iterable[tuple[str | zipfile.ZipInfo, bytes]]) -> Path:
    """A zip of the good files and their manifest, then ``members``."""
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.sha256", manifest(GOOD))
        for name, data in GOOD.items():
            archive.writestr(name, data)
        for info, data in members:
            archive.writestr(info, data)
    return dest


def patch(path: Path, old: bytes, new: bytes, count: int = -1) -> None:
    """Replace ``old`` by ``new`` (same length) in the file's bytes, ``count`` times."""
    assert len(old) == len(new)
    raw = path.read_bytes()
    assert old in raw
    path.write_bytes(raw.replace(old, new, count) if count >= 0 else raw.replace(old, new))


def central_offsets(path: Path) -> dict[str, int]:
    """Where each member's central directory record starts."""
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        start = archive.start_dir
    out: dict[str, int] = {}
    pos = start
    while raw[pos : pos + 4] == b"PK\x01\x02":
        name_len, extra_len, comment_len = struct.unpack("<3H", raw[pos + 28 : pos + 34])
        name = raw[pos + 46 : pos + 46 + name_len].decode("utf-8", "replace")
        out[name] = pos
        pos += 46 + name_len + extra_len + comment_len
    return out


def set_u16(path: Path, at: int, value: int) -> None:
    raw = bytearray(path.read_bytes())
    raw[at : at + 2] = struct.pack("<H", value)
    path.write_bytes(bytes(raw))


def header(name: bytes, size: int, typeflag: bytes = b"0", magic: bytes = b"ustar  \0") -> bytes:
    """One tar header block (GNU magic by default) with a correct checksum."""
    block = bytearray(BLOCK)
    block[0 : min(len(name), 100)] = name[:100]
    block[100:108] = b"0000644\0"
    block[108:116] = b"0000000\0"
    block[116:124] = b"0000000\0"
    block[124:136] = b"%011o\0" % size
    block[136:148] = b"%011o\0" % 0
    block[156:157] = typeflag
    block[257:265] = magic
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


def padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % BLOCK)


def member(name: str, data: bytes) -> bytes:
    return header(name.encode(), len(data)) + padded(data)


def good_tar_members() -> bytes:
    out = member("manifest.sha256", manifest(GOOD))
    for name, data in GOOD.items():
        out += member(name, data)
    return out


END = b"\0" * (2 * BLOCK)


def tar_of(dest: Path, members: Iterable[tuple[str | tarfile.TarInfo, bytes]], fmt: int) -> Path:
    """A plain or compressed (by suffix) tarball of the good files, then ``members``."""
    mode = {".gz": "w:gz", ".xz": "w:xz", ".bz2": "w:bz2"}.get(dest.suffix, "w")
    with tarfile.open(dest, mode, format=fmt) as archive:  # type: ignore[call-overload]
        for name, data in [("manifest.sha256", manifest(GOOD)), *GOOD.items(), *members]:
            info = name if isinstance(name, tarfile.TarInfo) else tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return dest


def gzip_bomb(dest: Path, head: bytes, payload_size: int, tail: bytes) -> Path:
    """``head``, ``payload_size`` bytes of ``a`` (compressed as they are written), ``tail``."""
    chunk = b"a" * (1 << 20)
    with gzip.open(dest, "wb", compresslevel=6) as out:
        out.write(head)
        left = payload_size
        while left:
            step = min(left, len(chunk))
            out.write(chunk[:step])
            left -= step
        out.write(tail)
    return dest
