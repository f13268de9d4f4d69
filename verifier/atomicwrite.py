"""Writing an output file whole, and only there.

The file is written to a fresh temporary file beside the target, created exclusively
(``O_EXCL``: a name an archive planted there, a link to somewhere else included, is never
opened), then renamed over the target. A rename replaces a link at the target itself; it never
writes through it. Nothing is left behind when the write fails. A character device or a FIFO
named as the target (``/dev/null``, a terminal) is written in place: renaming over it would
replace the device node; a link to one is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from typing import BinaryIO


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _stream_target(path: str) -> bool:
    """Whether ``path`` is a character device or a FIFO the user named (``/dev/null``, a
    terminal, a pipe): written to in place, since a rename would replace the device node
    itself (as root, ``-o /dev/null`` would leave a regular file there). A link to one is
    refused: an output name is never followed to a device."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    if stat.S_ISLNK(st.st_mode):
        try:
            far = os.stat(path)
        except OSError:
            return False
        if not stat.S_ISREG(far.st_mode) and not stat.S_ISDIR(far.st_mode):
            raise OSError(
                errno.EINVAL,
                "it is a link to a device or a pipe (name the device itself, or use '-' for "
                "standard output)",
            )
    return False


#: how much of a text is encoded at a time (a report of many megabytes is not encoded whole)
CHUNK = 1 << 20


def chunks(text: str) -> Iterator[str]:
    """``text``, :data:`CHUNK` characters at a time."""
    size = CHUNK
    for start in range(0, len(text), size):
        yield text[start : start + size]


def pieces(text: str) -> Iterator[bytes]:
    """``text`` as UTF-8, a chunk at a time (the same bytes as ``text.encode()``: UTF-8
    encodes each character alone)."""
    for chunk in chunks(text):
        yield chunk.encode("utf-8")


def _write_all(handle: BinaryIO, data: bytes | str | Iterable[str]) -> None:
    if isinstance(data, bytes):
        handle.write(data)
        return
    for text in (data,) if isinstance(data, str) else data:
        for piece in pieces(text):
            handle.write(piece)


def write_atomic(target: str | os.PathLike[str], data: bytes | str | Iterable[str]) -> None:
    """Write ``data`` to ``target`` whole (a text as UTF-8, encoded a piece at a time; or a
    text's parts, written as they are made: the file appears only once the last is
    written); raises ``OSError`` as the system reports it, and whatever making a part
    raises, with nothing left behind."""
    path = os.fspath(target)
    if _stream_target(path):
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data)
        return
    # the folder as the system will reach it ("link/.." is the link target's parent)
    folder = os.path.dirname(os.path.join(os.getcwd(), path)) or os.curdir
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with contextlib.suppress(OSError, AttributeError):  # as open() would make it
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
