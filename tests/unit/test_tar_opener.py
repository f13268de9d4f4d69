"""The opener of an uncompressed tarball's members in a worker: it reads the bytes the index
pass found, and refuses a tarball that changed since (another file, or a member's header
rewritten in place)."""

from __future__ import annotations

import io
import os
import pickle
import tarfile
from pathlib import Path

import pytest

from verifier.sources.capabilities import WorkerReads
from verifier.sources.tar import TarOpener, TarSource


def _tarball(path: Path, members: dict[str, bytes], mode: str = "w") -> Path:
    with tarfile.open(path, mode) as tar:  # type: ignore[call-overload]
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


MEMBERS = {"a.txt": b"alpha\n", "dir/b.bin": bytes(range(256)) * 40, "c.json": b"{}"}


def _opener(source: TarSource) -> TarOpener:
    opener = source.opener()
    assert isinstance(opener, TarOpener)
    copied = pickle.loads(pickle.dumps(opener))  # as a worker gets it
    assert isinstance(copied, TarOpener)
    return copied


def test_a_worker_reads_each_member_as_the_one_pass_does(tmp_path: Path) -> None:
    source = TarSource(str(_tarball(tmp_path / "t.tar", MEMBERS)))
    opener = _opener(source)
    for name, data in MEMBERS.items():
        where = source.locate(name)
        assert opener.read_whole(name, where) == data
        with opener.open(name, where) as stream:
            assert stream.read() == data
        assert source.size_hint(name) == len(data)
    opener.close()
    source.close()


def test_a_compressed_tarball_has_no_worker_opener(tmp_path: Path) -> None:
    source = TarSource(str(_tarball(tmp_path / "t.tar.gz", MEMBERS, "w:gz")))
    # the capability says so (it is read here, in one pass), not an opener that is None
    assert source.capability(WorkerReads) is None
    plain = TarSource(str(_tarball(tmp_path / "t.tar", MEMBERS)))
    assert plain.capability(WorkerReads) is plain
    plain.close()
    source.close()


def test_a_tarball_replaced_after_indexing_is_refused(tmp_path: Path) -> None:
    path = _tarball(tmp_path / "t.tar", MEMBERS)
    source = TarSource(str(path))
    opener = _opener(source)
    where = source.locate("a.txt")
    source.close()
    _tarball(path, {**MEMBERS, "a.txt": b"omega\n", "d": b"more"})  # another file there
    os.utime(path, ns=(1, 1))
    with pytest.raises(OSError, match="changed while it was read"):
        opener.read_whole("a.txt", where)


def test_a_member_header_rewritten_in_place_is_refused(tmp_path: Path) -> None:
    path = _tarball(tmp_path / "t.tar", MEMBERS)
    source = TarSource(str(path))
    where = source.locate("c.json")
    offset = where[0]
    opener = TarOpener(str(path), source._stamp)
    block = bytearray(path.read_bytes()[offset - 512 : offset])
    block[0:6] = b"x.json"  # another name, same size: the stamp alone could miss it
    opener._fd = os.open(path, os.O_RDWR)  # the worker's handle, written through for the test
    os.pwrite(opener._fd, bytes(block), offset - 512)
    with pytest.raises(OSError, match="header differs"):
        opener.read_whole("c.json", where)
    opener.close()
    source.close()
