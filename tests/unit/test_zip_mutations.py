"""Mutated zip files: a zip source opens with findings or not at all (``SourceError``), and
reading any of its files gives bytes or an ``OSError``, never another exception (an exit 3)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.archives import drain
from verifier.sources.interface import SourceError
from verifier.sources.zip import ZipSource


def _sample_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("evidence/a.json", b'{"a": 1}\n' * 20, zipfile.ZIP_DEFLATED)
        archive.writestr("evidence/é.txt", b"stored", zipfile.ZIP_STORED)
        archive.writestr("evidence/b.bin", bytes(range(256)) * 4, zipfile.ZIP_BZIP2)
        archive.writestr("evidence/c.xz", b"c" * 3000, zipfile.ZIP_LZMA)
    return buf.getvalue()


SAMPLE = _sample_zip()


@settings(max_examples=200, deadline=None)
@given(
    flips=st.lists(st.tuples(st.integers(0, len(SAMPLE) - 1), st.integers(1, 255)), max_size=4),
    cut=st.one_of(st.just(len(SAMPLE)), st.integers(len(SAMPLE) - 200, len(SAMPLE))),
)
def test_no_mutation_escapes_as_anything_but_a_finding(
    tmp_path_factory: pytest.TempPathFactory, flips: list[tuple[int, int]], cut: int
) -> None:
    raw = bytearray(SAMPLE)
    for at, xor in flips:
        raw[at] ^= xor
    path = tmp_path_factory.mktemp("fuzz") / "x.zip"
    path.write_bytes(bytes(raw[:cut]))
    try:
        source = ZipSource(str(path))
    except SourceError:
        return
    drain(source)


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_damaged_member_of_every_method_is_an_oserror(tmp_path: Path, method: int) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("evidence/c.txt", bytes(i * i % 251 for i in range(3000)), method)
    raw = bytearray(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as archive:
        info = archive.getinfo("evidence/c.txt")
    data_at = info.header_offset + 30 + len(info.orig_filename) + len(info.extra)
    for at in range(data_at + 9, data_at + 29):
        raw[at] ^= 0x55
    path = tmp_path / "damaged.zip"
    path.write_bytes(bytes(raw))
    source = ZipSource(str(path))
    try:
        with pytest.raises(OSError):
            stream = source.open("evidence/c.txt")
            while stream.read(4096):
                pass
    finally:
        source.close()
