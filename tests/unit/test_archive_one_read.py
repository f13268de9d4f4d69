"""A zip's or a tarball's own SHA-256 (the source's identity in the report) comes from a read
the source makes anyway: a tarball's index pass hashes every byte it reads, a zip is hashed
once when it is opened. Counted here by wrapping the file the source opens: opening reads
each byte of a tarball exactly once, and asking for the identity reads nothing more."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.archives import tar_tree, zip_tree
from tests.conftest import write_archive
from verifier.pipeline import run
from verifier.sources import Limits, open_source
from verifier.sources import tar as tar_module
from verifier.sources import zip as zip_module
from verifier.sources.indexed import OnePass
from verifier.sources.zip import ZipOpener, ZipSource


class Counted:
    """A binary file whose reads are counted (bytes handed out), everything else forwarded."""

    def __init__(self, inner: Any, counter: dict[str, int]) -> None:
        self._inner = inner
        self._counter = counter

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._inner.read(n)
        self._counter["bytes"] += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        n: int = self._inner.readinto(buffer)
        self._counter["bytes"] += n
        return n

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def __enter__(self) -> Counted:
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.close()


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"bytes": 0, "opens": 0}
    real = open

    def counting(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real(path, mode, *args, **kwargs)
        if "b" not in mode:
            return handle
        counts["opens"] += 1
        return Counted(handle, counts)

    for module in (tar_module, zip_module):
        monkeypatch.setattr(module, "open", counting, raising=False)
    return counts


def _sha(path: Path) -> tuple[str, int]:
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), len(data)


def _tree(root: Path) -> Path:
    # incompressible members, large against the headers and the central directory
    files = {f"data/{i}.bin": os.urandom(200_000) for i in range(5)}
    return write_archive(root, files)


@pytest.mark.parametrize("mode", ["w", "w:gz", "w:xz", "w:bz2"])
def test_a_tarball_is_read_once_and_its_identity_costs_no_read(
    tmp_path: Path, counter: dict[str, int], mode: str
) -> None:
    suffix = {"w": ".tar", "w:gz": ".tar.gz", "w:xz": ".tar.xz", "w:bz2": ".tar.bz2"}[mode]
    path = tar_tree(_tree(tmp_path / "src"), tmp_path / f"a{suffix}", mode)
    with open_source(path) as source:
        opened = counter["bytes"]
        identity = source.identity()
        assert counter["bytes"] == opened  # the identity read nothing
    digest, size = _sha(path)
    assert (identity["sha256"], identity["size"]) == (digest, size)
    assert opened == size  # every byte once: the peek at its head is not read again
    assert counter["opens"] == 1


def test_a_zip_is_hashed_once_when_opened(tmp_path: Path, counter: dict[str, int]) -> None:
    path = zip_tree(_tree(tmp_path / "src"), tmp_path / "a.zip")
    with open_source(path) as source:
        opened = counter["bytes"]
        identity = source.identity()
        again = source.identity()
        assert counter["bytes"] == opened
    digest, size = _sha(path)
    assert (identity["sha256"], identity["size"]) == (digest, size) == (again["sha256"], size)
    # one full read, then only the central directory and local headers: not a second read
    assert size <= opened < size + size // 10
    assert counter["opens"] == 1


def test_a_tarball_the_index_pass_stops_in_still_has_its_whole_digest(tmp_path: Path) -> None:
    """A limit (or damage) stops the index pass early: the rest of the file is hashed, so the
    identity is still the whole file's digest."""
    path = tar_tree(_tree(tmp_path / "src"), tmp_path / "a.tar.gz", "w:gz")
    with open_source(path, limits=Limits(max_bytes=300_000)) as source:
        assert not source.complete()
        identity = source.identity()
    assert (identity["sha256"], identity["size"]) == _sha(path)
    cut = tmp_path / "cut.tar"
    whole = tar_tree(_tree(tmp_path / "src2"), tmp_path / "whole.tar", "w").read_bytes()
    cut.write_bytes(whole[: len(whole) // 2 + 100])
    with open_source(cut) as source:
        identity = source.identity()
    assert (identity["sha256"], identity["size"]) == _sha(cut)


def test_a_check_of_a_tarball_passes_over_it_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index pass, the manifest, the files: no fourth pass for the report's identity."""
    path = tar_tree(_tree(tmp_path / "src"), tmp_path / "a.tar.gz", "w:gz")
    passes = 0
    original = tar_module.TarSource._reader

    def counting(self: tar_module.TarSource, charge: Any) -> Any:
        nonlocal passes
        passes += 1
        return original(self, charge)

    monkeypatch.setattr(tar_module.TarSource, "_reader", counting)
    finished = 0
    finish = OnePass.finish

    def counted_finish(self: OnePass) -> tuple[str, int]:
        nonlocal finished
        finished += 1
        return finish(self)

    monkeypatch.setattr(OnePass, "finish", counted_finish)
    result = run(path)
    assert result.report.ok
    assert passes == 3
    assert finished == 1  # the index pass's digest is the one the report names
    assert result.source["sha256"] == _sha(path)[0]


def test_the_hashing_reader_reads_forward_only() -> None:
    data = bytes(range(256)) * 10
    handle = io.BytesIO(data)
    head = handle.read(100)
    once = OnePass(handle, head)
    assert once.read(50) == data[:50]
    assert once.read(100) == data[50:150]
    assert once.seek(1000, 1) == 1150 and once.tell() == 1150
    with pytest.raises(OSError, match="forward only"):
        once.seek(0)
    assert once.finish() == (hashlib.sha256(data).hexdigest(), len(data))


def test_a_zip_replaced_after_indexing_is_refused_by_a_worker(tmp_path: Path) -> None:
    """A zip's worker opener checks the file is the one hashed for the report's identity."""
    path = tmp_path / "z.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in {"a.txt": b"alpha\n", "c.json": b"{}"}.items():
            archive.writestr(name, data)
    source = ZipSource(str(path))
    opener = pickle.loads(pickle.dumps(source.opener()))
    assert isinstance(opener, ZipOpener)
    where = source.locate("a.txt")
    with opener.open("a.txt", where) as stream:
        assert stream.read() == b"alpha\n"
    opener.close()
    source.close()
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("d", b"more")  # the same members where they were, and one more
    os.utime(path, ns=(1, 1))
    with pytest.raises(OSError, match="changed while it was read"):
        opener.open("a.txt", where)
    opener.close()
