"""Files whose bytes travel with their tasks: for workers that may not see this machine's
files (a Dask cluster at ``--scheduler``, on this machine or another one).

Such a worker never opens the archive: the main process reads each file as the executor
takes the task, with the source's own worker opener (:func:`carry`; what it verifies, a git
blob's id, is judged here as a worker's would be), and the task's opener spec becomes a
:class:`Carried` holding the bytes read, or the read error. The worker's opener
(:class:`CarriedOpener`) serves those bytes, so what it hashes, parses and validates is what
this process read, byte for byte, whatever the worker's own filesystem holds: a worker with
a copy of its own at the same path, older or altered, is never asked. A file larger than
:data:`CARRY_MAX` is not carried (one such task would hold it whole in memory here and on the
wire): it is inspected in this process instead (:attr:`Carried.here`), streamed, as the
other executors' workers do, and its result put in its place.
"""

from __future__ import annotations

import io
from typing import Any, NamedTuple

from verifier.plan.task import FileTask
from verifier.sources.interface import Opener, Stream

#: the largest file whose bytes travel with its task; a larger one is inspected here
CARRY_MAX = 32 << 20
_CHUNK = 1 << 20


class Carried(NamedTuple):
    """A task's opener spec for a worker that does not read the archive: the file's bytes,
    or the error reading it here (``strerror``), or ``here``: inspected in this process."""

    data: bytes | None
    error: str | None = None
    here: bool = False


#: what a worker's facts say for a file inspected in the main process (never kept: the
#: main process puts its own facts in their place)
INSPECTED_HERE = "inspected by the main process"


class CarriedOpener(Opener):
    """A worker's opener when the bytes travel with the tasks (see the module's doc)."""

    def _bytes(self, where: Any) -> bytes:
        if not isinstance(where, Carried):
            raise OSError(0, "a task came without its bytes")
        if where.here:
            raise OSError(0, INSPECTED_HERE)
        if where.data is None:
            raise OSError(0, where.error or "the file could not be read")
        return where.data

    def open(self, name: str, where: Any) -> Stream:
        return io.BytesIO(self._bytes(where))

    def read_whole(self, name: str, where: Any) -> bytes | None:
        return self._bytes(where)

    def read_small(self, name: str, where: Any, limit: int) -> bytes | None:
        data = self._bytes(where)
        return data if len(data) <= limit else None


def carry(opener: Opener, task: FileTask) -> tuple[Carried, tuple[tuple[str, str], ...]]:
    """The file of ``task``, read here for a worker through ``opener`` (the source's own
    worker opener: one call for most files, where its live ``open`` took eight times as
    long), and what the opener verified of it (a git blob's id, for the source to judge):
    its bytes, its read error, or ``here`` for one over :data:`CARRY_MAX` (a file of unknown
    size is read up to that far to find out)."""
    name, where, size = task.name, task.where, task.size
    if size > CARRY_MAX:
        return Carried(None, None, True), ()
    try:
        whole = opener.read_whole if size else None
        data = whole(name, where) if whole else opener.read_small(name, where, CARRY_MAX)
        if data is None:  # an opener that only streams, or a file of unknown size past it
            data = _read_to(opener.open(name, where), CARRY_MAX + 1)
        if len(data) > CARRY_MAX:
            return Carried(None, None, True), ()
        return Carried(data), opener.checked(name)
    except OSError as exc:
        return Carried(None, exc.strerror or str(exc)), ()


def _read_to(stream: Stream, limit: int) -> bytes:
    """What ``stream`` holds, up to ``limit`` bytes (then closed)."""
    parts: list[bytes] = []
    held = 0
    with stream:
        while held < limit:
            chunk = stream.read(min(_CHUNK, limit - held))
            if not chunk:
                break
            parts.append(chunk)
            held += len(chunk)
    return b"".join(parts)
