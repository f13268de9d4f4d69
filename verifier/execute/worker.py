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
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any


def serve(read_fd: int, write_fd: int) -> None:
    """Serve batches until ``("stop",)`` or until the parent goes away."""
    inbox = Connection(read_fd, writable=False)
    outbox = Connection(write_fd, readable=False)
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
