"""The serving loop of one worker process of :class:`verifier.execute.processes.ProcessExecutor`.

A fresh interpreter (``python -c`` naming this module, never a fork, never the parent's
``__main__``: the CLI, typer and rich are not imported here) runs :func:`serve` over two
pipes. Messages, each one pickled object:

* parent -> worker: ``("context", bytes)`` (the pickled context, once per map whose context
  is new to this worker), ``("batch", index, fn, tasks)``, ``("stop",)``;
* worker -> parent: ``("done", index, pid, results)`` or ``("error", index, pid, text)``
  (the worker's traceback, as text: always picklable, whatever failed).

The context is unpickled once and held in a local of :func:`serve` (the per-process holder
the design cannot avoid: it lives only in the worker, set by nothing but this loop).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import traceback
from typing import Any

_SHORT = struct.Struct("!i")  # a message's length, as the parent's Connection writes it
_LONG = struct.Struct("!Q")  # (after a short -1: a message of 2 GiB or more)
_JOINED = 16384  # a message up to this length is written with its head, in one write


class _End:
    """One end of a pipe to the parent, in the framing of
    :class:`multiprocessing.connection.Connection`, which the parent's side is: a message's
    length (signed, 4 bytes, big-endian; -1 then 8 bytes from 2 GiB on), then its pickle.
    Here on :func:`os.read` and :func:`os.write`: importing :mod:`multiprocessing` (46
    modules: sockets, temporary files, ...) took 2.8 MB of every worker, summed with the
    main process's at the records phase (the run's peak)."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def recv(self) -> Any:
        """The next message (``EOFError`` where the parent closed the pipe before one)."""
        (size,) = _SHORT.unpack(self._read(_SHORT.size, True))
        if size == -1:
            (size,) = _LONG.unpack(self._read(_LONG.size))
        return pickle.loads(self._read(size))

    def send(self, message: Any) -> None:
        data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
        head = _head(len(data))
        if len(data) > _JOINED:
            self._write(head)
            self._write(data)
        else:
            self._write(head + data)

    def _read(self, size: int, first: bool = False) -> bytes:
        parts: list[bytes] = []
        left = size
        while left:
            chunk = os.read(self._fd, min(left, 1 << 20))
            if not chunk:
                if first and left == size:
                    raise EOFError
                raise OSError("the pipe ended within a message")
            parts.append(chunk)
            left -= len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]


def _head(size: int) -> bytes:
    """What goes before a message of ``size`` bytes."""
    return _SHORT.pack(size) if size <= 0x7FFFFFFF else _SHORT.pack(-1) + _LONG.pack(size)


def serve(read_fd: int, write_fd: int) -> None:
    """Serve batches until ``("stop",)`` or until the parent goes away."""
    inbox = _End(read_fd)
    outbox = _End(write_fd)
    pid = os.getpid()
    context: Any = None
    failed: str | None = None
    while True:
        try:
            message = inbox.recv()
        except (EOFError, OSError):  # the parent is gone: nothing to report to
            return
        if message[0] == "stop":
            return
        if message[0] == "context":
            try:
                context = pickle.loads(message[1])
                failed = None
            except BaseException:
                failed = traceback.format_exc()
            continue
        _, index, fn, tasks = message
        if failed is not None:
            outbox.send(("error", index, pid, "the context could not be unpickled:\n" + failed))
            continue
        try:
            results = fn(context, tasks)
            outbox.send(("done", index, pid, results))
        except BaseException:  # reported to the parent, which raises ExecutorError with it
            outbox.send(("error", index, pid, traceback.format_exc()))


def main() -> None:
    """``python -c`` entry: ``sys.argv`` holds the two pipe descriptors. An interrupt is the
    parent's to handle (it stops this worker); here it is ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(int(sys.argv[1]), int(sys.argv[2]))
    # Nothing is left to clean up: every result was written to the pipe, unbuffered. Ending
    # without the interpreter's teardown (freeing every object one by one) ends at once,
    # and the parent, waiting for this exit, does not wait for that.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)
