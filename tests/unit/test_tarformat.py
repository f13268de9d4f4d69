"""The tar reader and the decompressing stream against the standard library on archives that
are not hostile: the same members (name, type, size, bytes) as :mod:`tarfile` in every format
it writes and GNU tar writes, and the same bytes as :mod:`gzip`, :mod:`lzma` and :mod:`bz2`."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import subprocess
import tarfile
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.archives import drain
from tests.conftest import require_tool
from verifier.sources.compressed import CompressedDamage, Decompressed, TrailingData
from verifier.sources.safety import EntryType
from verifier.sources.tarformat import (
    MAX_LONG_NAME,
    HeaderTooLarge,
    LimitReached,
    TarDamage,
    TarReader,
    number,
    parse_pax,
)

Row = tuple[str, str, int, bytes]


def ours(raw: bytes) -> list[Row]:
    reader = TarReader(io.BytesIO(raw), lambda n: True, len(raw))
    out: list[Row] = []
    while (member := reader.next()) is not None:
        data = reader.content(member).read() if member.etype is EntryType.FILE else b""
        out.append((member.name.rstrip("/"), member.etype.value, member.size, data))
    return out


def _kind(member: tarfile.TarInfo) -> str:
    if member.isreg():
        return "file"
    if member.isdir():
        return "directory"
    if member.issym():
        return "symlink"
    if member.islnk():
        return "hardlink"
    if member.ischr() or member.isblk() or member.isfifo():
        return "device"
    return "other"


def theirs(raw: bytes) -> list[Row]:
    out: list[Row] = []
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r|") as archive:
        for member in archive:
            handle = archive.extractfile(member) if member.isreg() else None
            data = handle.read() if handle is not None else b""
            size = member.size if member.isreg() else 0
            out.append((member.name.rstrip("/"), _kind(member), size, data))
    return out


_NAME = st.text(alphabet=st.sampled_from("abcz019_-.é中/"), min_size=1, max_size=160).filter(
    lambda n: not n.startswith("/") and "//" not in n and n not in (".", "..")
)
_MEMBER = st.tuples(
    _NAME,
    st.sampled_from([tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE]),
    st.binary(max_size=1500),
)


@settings(max_examples=60, deadline=None)
@given(
    members=st.lists(_MEMBER, max_size=6),
    fmt=st.sampled_from([tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT]),
)
def test_the_reader_reads_what_tarfile_reads(
    members: list[tuple[str, bytes, bytes]], fmt: int
) -> None:
    buf = io.BytesIO()
    try:
        with tarfile.open(fileobj=buf, mode="w", format=fmt) as archive:
            for name, kind, data in members:
                info = tarfile.TarInfo(name)
                info.type = kind
                if kind == tarfile.SYMTYPE:
                    info.linkname = name[::-1]
                info.size = len(data) if kind == tarfile.REGTYPE else 0
                archive.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
    except ValueError:
        return  # a name ustar cannot hold
    raw = buf.getvalue()
    assert ours(raw) == theirs(raw)


@pytest.mark.parametrize("fmt", ["gnu", "oldgnu", "posix", "ustar", "v7"])
def test_the_reader_reads_what_tarfile_reads_in_gnu_tars_formats(tmp_path: Path, fmt: str) -> None:
    require_tool("tar", "tar (GNU tar) is not installed")
    root = tmp_path / "root"
    deep = root / "d" / ("long" * 20) / ("deeper" * 10)
    deep.mkdir(parents=True)
    (deep / "file.txt").write_bytes(b"x" * 700)
    (root / "empty").write_bytes(b"")
    (root / "d" / "a.txt").write_bytes(b"a\n")
    (root / "link").symlink_to("d/a.txt")
    names = ["d/a.txt", "empty", "link"]
    if fmt not in ("ustar", "v7"):  # these cannot hold the deep name
        names.append(str((deep / "file.txt").relative_to(root)))
    out = tmp_path / "x.tar"
    proc = subprocess.run(
        ["tar", f"--format={fmt}", "-cf", str(out), "-C", str(root), *names],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    raw = out.read_bytes()
    assert ours(raw) == theirs(raw)
    assert len(ours(raw)) == len(names)


def test_numbers_octal_and_base_256() -> None:
    assert number(b"0000644\0") == 0o644
    assert number(b"       \0") == 0
    assert number(b"\x80" + (5 << 33).to_bytes(11, "big")) == 5 << 33
    with pytest.raises(TarDamage):
        number(b"\xff" * 12)
    with pytest.raises(TarDamage):
        number(b"12x4\0")


def test_pax_records_keep_only_what_changes_a_member() -> None:
    def record(text: bytes) -> bytes:
        n = len(text) + 3
        n = len(text) + 2 + len(str(n))
        return b"%d %s\n" % (n, text)

    data = b"".join(
        record(t) for t in (b"path=a/b/c.txt", b"size=42", b"mtime=1.5", b"SCHILY.xattr.x=yz")
    )
    assert data.startswith(b"18 path=a/b/c.txt\n")
    assert parse_pax(data) == {"path": b"a/b/c.txt", "size": b"42"}
    for bad in (b"99 path=a\n", b"x path=a\n", b"8 patha\n", b"7 =abc\n", b"8 path=ab"):
        with pytest.raises(TarDamage):
            parse_pax(bad)


def test_an_oversized_long_name_is_refused_before_it_is_read() -> None:
    from tests.hostile.archives_build import header

    raw = header(b"././@LongLink", MAX_LONG_NAME + 1, b"L") + b"a" * (MAX_LONG_NAME + 512)
    stream = io.BytesIO(raw)
    with pytest.raises(HeaderTooLarge):
        TarReader(stream, lambda n: True, len(raw)).next()
    assert stream.tell() == 512  # only the header block


def test_the_budget_is_asked_before_a_header_is_read() -> None:
    from tests.hostile.archives_build import END, good_tar_members

    raw = good_tar_members() + END
    asked: list[int] = []

    def charge(n: int) -> bool:
        asked.append(n)
        return sum(asked) <= 1024

    stream = io.BytesIO(raw)
    reader = TarReader(stream, charge, len(raw))
    with pytest.raises(LimitReached):
        while reader.next() is not None:
            pass
    assert stream.tell() <= 1024


# --- the decompressing stream ---------------------------------------------------------------

PAYLOAD = os.urandom(200_000) + b"\0" * 300_000


@pytest.mark.parametrize(
    ("kind", "compress"),
    [("gzip", gzip.compress), ("xz", lzma.compress), ("bzip2", bz2.compress)],
)
def test_every_stream_is_read_and_padding_is_allowed(kind: str, compress: object) -> None:
    assert callable(compress)
    raw = compress(PAYLOAD[:1000]) + compress(PAYLOAD)
    if kind != "bzip2":
        raw += b"\0" * 8
    stream = Decompressed(io.BytesIO(raw), kind)
    assert stream.read() == PAYLOAD[:1000] + PAYLOAD
    assert stream.streams == 2


@pytest.mark.parametrize(
    ("kind", "compress"),
    [("gzip", gzip.compress), ("xz", lzma.compress), ("bzip2", bz2.compress)],
)
def test_damage_and_trailing_bytes_are_raised(kind: str, compress: object) -> None:
    assert callable(compress)
    good = compress(PAYLOAD)
    for cut in (1, 4, len(good) // 2, len(good) - 1):
        with pytest.raises(CompressedDamage):
            Decompressed(io.BytesIO(good[:cut]), kind).read()
    flipped = bytearray(good)
    flipped[-9 if kind == "bzip2" else -8] ^= 1
    with pytest.raises(CompressedDamage):
        Decompressed(io.BytesIO(bytes(flipped)), kind).read()
    with pytest.raises(TrailingData):
        Decompressed(io.BytesIO(good + b"tar members"), kind).read()


def test_an_xz_header_that_asks_for_a_huge_dictionary_is_refused() -> None:
    good = bytearray(lzma.compress(PAYLOAD[:1000], filters=[{"id": lzma.FILTER_LZMA2}]))
    size = (good[12] + 1) * 4  # the block header: its size byte, flags, filters, padding, CRC
    props = good.index(b"\x21\x01", 12, 12 + size) + 2  # LZMA2 (0x21), one byte of props
    good[props] = 40  # a dictionary of 4 GiB - 1
    good[12 + size - 4 : 12 + size] = zlib.crc32(good[12 : 12 + size - 4]).to_bytes(4, "little")
    with pytest.raises(CompressedDamage, match="corrupt"):
        Decompressed(io.BytesIO(bytes(good)), "xz").read()


def _sample_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for i, size in enumerate((5, 600, 0)):
            info = tarfile.TarInfo(f"evidence/{'é' * (60 * i)}{i}.bin")
            info.size = size
            archive.addfile(info, io.BytesIO(b"z" * size))
        link = tarfile.TarInfo("evidence/link")
        link.type = tarfile.SYMTYPE
        link.linkname = "x" * 200
        archive.addfile(link)
    return buf.getvalue()


SAMPLE = _sample_tar()


@settings(max_examples=150, deadline=None)
@given(
    flips=st.lists(st.tuples(st.integers(0, len(SAMPLE) - 1), st.integers(1, 255)), max_size=4),
    cut=st.integers(0, len(SAMPLE)),
    compress=st.sampled_from(["none", "gzip", "xz", "bzip2"]),
)
def test_no_mutation_escapes_as_anything_but_a_finding(
    tmp_path_factory: pytest.TempPathFactory,
    flips: list[tuple[int, int]],
    cut: int,
    compress: str,
) -> None:
    """A mutated tarball opens with findings or not at all (SourceError), and reading any of
    its files gives bytes or an OSError: never another exception (an exit 3)."""
    from verifier.sources.interface import SourceError
    from verifier.sources.tar import TarSource

    raw = bytearray(SAMPLE)
    for at, xor in flips:
        raw[at] ^= xor
    data = bytes(raw[:cut])
    packed = {
        "none": lambda b: b,
        "gzip": gzip.compress,
        "xz": lzma.compress,
        "bzip2": bz2.compress,
    }[compress](data)
    if compress != "none" and flips:
        mangled = bytearray(packed)
        at, xor = flips[0]
        mangled[at % len(mangled)] ^= xor
        packed = bytes(mangled)
    path = tmp_path_factory.mktemp("fuzz") / "x.tar"
    path.write_bytes(packed)
    try:
        source = TarSource(str(path))
    except SourceError:
        return
    drain(source)
