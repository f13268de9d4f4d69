"""Writing an output file whole, and only there.

The file is written to a fresh temporary file beside the target, created exclusively
(``O_EXCL``: a name an archive planted there, a link to somewhere else included, is never
opened), then renamed over the target. A rename replaces a link at the target itself; it never
writes through it. Nothing is left behind when the write fails.
"""

from __future__ import annotations

import contextlib
import os
import tempfile


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(target: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``target`` whole; raises ``OSError`` as the system reports it."""
    path = os.fspath(target)
    # the folder as the system will reach it ("link/.." is the link target's parent)
    folder = os.path.dirname(os.path.join(os.getcwd(), path)) or os.curdir
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with contextlib.suppress(OSError, AttributeError):  # as open() would make it
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
