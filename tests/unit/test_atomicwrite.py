"""Output files are written whole by a rename; a device or a pipe the user names is written in
place (a rename over it would replace the node: as root, ``-o /dev/null`` used to leave a
regular file at /dev/null), and a link to one is refused."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from verifier.atomicwrite import write_atomic


def test_a_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(b"old")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_fifo_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, b"through the pipe")
    reader.join(timeout=30)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_character_device_stays_a_device(tmp_path: Path) -> None:
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a second /dev/null
    write_atomic(null, b"discarded")
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_a_link_to_a_device_or_pipe_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.txt"
    link.symlink_to(fifo)
    with pytest.raises(OSError, match="link to a device or a pipe"):
        write_atomic(link, b"x")
    assert link.is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_link_to_a_regular_file_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    link = tmp_path / "out.txt"
    link.symlink_to(victim)
    write_atomic(link, b"new")
    assert victim.read_bytes() == b"keep"
    assert not link.is_symlink() and link.read_bytes() == b"new"


@pytest.mark.parametrize("chunk", [1, 2, 3, 1 << 20])
def test_a_text_is_written_as_its_utf8_a_piece_at_a_time(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
    chunk: int,
) -> None:
    import verifier.atomicwrite as atomicwrite
    from verifier.commands import output

    text = "report: é€😀 ok\n" * 5
    monkeypatch.setattr(atomicwrite, "CHUNK", chunk)
    pieces = list(atomicwrite.pieces(text))
    assert b"".join(pieces) == text.encode("utf-8")
    assert len(pieces) == -(-len(text) // chunk)  # never the whole text at once
    target = tmp_path / "out.json"
    write_atomic(target, text)
    assert target.read_bytes() == text.encode("utf-8")
    output.write(None, text)
    assert capfdbinary.readouterr().out == text.encode("utf-8")


def test_a_text_in_parts_is_written_as_they_come_and_whole_or_not_at_all(
    tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    from verifier.commands import output

    target = tmp_path / "out.json"
    write_atomic(target, iter(["{", '"é": ', "1}", "\n"]))
    assert target.read_bytes() == '{"é": 1}\n'.encode()
    output.write(None, iter(["a", "€", "\n"]))
    assert capfdbinary.readouterr().out == "a€\n".encode()

    def failing() -> Any:
        yield "{"
        raise RuntimeError("a part could not be made")

    with pytest.raises(RuntimeError):
        write_atomic(target, failing())
    assert target.read_bytes() == '{"é": 1}\n'.encode()  # the old file, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # nothing left behind
