"""Local worker processes: each a fresh interpreter, handed the context once.

Each worker is ``python -c`` running :func:`verifier.execute.worker.serve` over two pipes:
not a fork (nothing of this process's memory is inherited, so it behaves as under
``spawn`` on any platform), and not ``multiprocessing``'s spawn either, whose children run
the parent's ``__main__`` again: under the ``verify-evidence`` script that is the CLI, typer
and all. A worker imports this package's worker module, then whatever ``fn`` and the context
need; an idle one holds about 11 MB (measured with ``ps -o rss`` on Linux, Python 3.11).

Per :meth:`ProcessExecutor.map`, the context is pickled once here and sent to each worker
once (a second map with the same context object does not send it again: a context is
never changed once handed over); then batches go
out in turn, each worker holding up to two (the one it works on and the next, waiting in its
pipe: :data:`DEPTH`), and results come back in task order as they are ready (streamed: the
caller judges the first batches while later ones are read). At most ``2 x workers``
batches are in flight or finished but not yet yielded, so memory stays bounded whatever
the number of tasks.

This process does not serve batches itself: it is the one that takes the results as they
stream (the judges consume them, the progress bar is drawn) and keeps every worker fed; a
batch of its own would leave the workers idle for as long as it ran (one batch is 512 files
or 4 MB) and hold the stream back. With ``-j N``, N workers read and this process judges.

A worker's exception becomes :class:`ExecutorError` with the worker's traceback; a worker
that dies (killed, out of memory, ``os._exit``) closes its pipe, which is seen at once: an
:class:`ExecutorError` naming its exit code, never a hang. :meth:`close` stops every worker
(and this executor starts no thread).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import ForkingPickler
from typing import IO, Any

from verifier.execute.interface import BatchFn, Executor, ExecutorError

STDERR_TAIL = 2000  # characters of a dead worker's own output quoted in the error
STOP_WAIT = 5.0  # seconds a worker gets to stop before it is killed
#: batches a worker holds at once: the one it works on, and the next, waiting in its pipe,
#: so that it never idles while this process takes its results and cuts the next batch
#: (at 100,000 records the records phase took 3.87 s with one, 3.43 s with two). The next
#: one is sent only if it fits the pipe whole: a worker blocked writing its results while
#: this process is blocked writing it a batch would be a deadlock.
DEPTH = 2
PIPE_WANTED = 1 << 20  # bytes asked for a worker's inbox (Linux: /proc/sys/fs/pipe-max-size)


def _pipe_room(fd: int) -> int:
    """How many bytes a batch queued behind a running one may take (see :data:`DEPTH`):
    the pipe's capacity, raised to :data:`PIPE_WANTED` where the system allows (Linux),
    less the message header; 0 where it cannot be known (nothing is queued there)."""
    try:
        import fcntl

        set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
        get_size = getattr(fcntl, "F_GETPIPE_SZ", None)
        if get_size is None:
            return 0
        if set_size is not None:
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, set_size, PIPE_WANTED)
        return max(0, int(fcntl.fcntl(fd, get_size)) - 64)
    except (ImportError, OSError):
        return 0


def start_python(call: str, args: Sequence[str] = (), **popen: Any) -> subprocess.Popen[bytes]:
    """This same Python as a fresh interpreter (never a fork: nothing of this process's
    memory is inherited), with this process's import path and interpreter flags, calling
    ``call`` (``"module:function"``) with ``args`` in ``sys.argv``: a fixed command line,
    no byte of an archive on it or in its environment. The processes executor's workers and
    a folder's walk apart (:mod:`verifier.sources.directory`) are started here."""
    module, _, function = call.partition(":")
    boot = f"import sys; sys.path[:] = {sys.path!r}; from {module} import {function}; {function}()"
    flags: Callable[[], list[str]] = getattr(subprocess, "_args_from_interpreter_flags", lambda: [])
    return subprocess.Popen([sys.executable, *flags(), "-c", boot, *args], **popen)


class _Worker:
    """One worker process, its two pipes, and what it holds."""

    def __init__(self) -> None:
        down_r, down_w = os.pipe()  # parent -> worker
        up_r, up_w = os.pipe()  # worker -> parent
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop)
        try:
            self.proc = start_python(
                "verifier.execute.worker:main",
                [str(down_r), str(up_w)],
                stdin=subprocess.DEVNULL,
                stdout=self.log,
                stderr=self.log,
                pass_fds=(down_r, up_w),
            )
        except BaseException:
            for fd in (down_r, down_w, up_r, up_w):
                os.close(fd)
            self.log.close()
            raise
        os.close(down_r)
        os.close(up_w)
        self.inbox = Connection(down_w, readable=False)
        self.outbox = Connection(up_r, writable=False)
        self.generation = 0  # which context it holds (0: none yet)
        self.flight: deque[int] = deque()  # the batch indexes sent, results not back yet
        #: the largest batch (pickled) that may wait in its pipe behind the one it works on
        self.room = _pipe_room(down_w)

    def died(self) -> ExecutorError:
        """The error for a worker whose pipe closed: its exit code and its last output."""
        try:
            code = self.proc.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(0, size - STDERR_TAIL))
        tail = self.log.read().decode("utf-8", "replace").strip()
        said = f"; its last output:\n{tail}" if tail else ""
        return ExecutorError(
            f"worker process {self.proc.pid} ended without its results (exit code {code}){said}"
        )

    def tell_stop(self, kill: bool) -> None:
        """Ask the worker to end (``kill``: end it); :meth:`stop` then waits for it."""
        if self.inbox.closed:
            return
        if not kill:
            with contextlib.suppress(OSError, ValueError):
                self.inbox.send(("stop",))
        self.inbox.close()
        if kill:
            self.proc.kill()

    def stop(self, kill: bool) -> None:
        self.tell_stop(kill)
        try:
            self.proc.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:  # pragma: no cover - a worker stuck past its stop
            self.proc.kill()
            self.proc.wait()
        self.outbox.close()
        self.log.close()


class ProcessExecutor(Executor):
    """``workers`` local processes (at least one), started here; see the module's doc."""

    name = "processes"

    def __init__(self, workers: int = 1, scheduler: str | None = None) -> None:
        if scheduler is not None:
            raise ExecutorError("a scheduler address is for the dask executor, not processes")
        if os.name != "posix":  # pragma: no cover - pipes handed down by descriptor
            raise ExecutorError("the processes executor needs a POSIX system; use inline")
        self.workers = max(1, workers)
        self.served: dict[int, int] = {}  # pid -> batches served
        self._pool: list[_Worker] = []
        self._context: Any = None
        self._generation = 0
        self._active = False
        self._closed = False
        try:
            for _ in range(self.workers):
                self._pool.append(_Worker())
        except BaseException:
            self._shutdown(kill=True)
            raise

    def _ready(self) -> None:
        if self._closed:
            raise ExecutorError("the processes executor was closed")
        if self._active:
            raise ExecutorError("one map at a time: the previous one is still being read")

    def _map(
        self,
        fn: BatchFn,
        context: Any,
        batches: Iterator[list[Any]],
        progress: Callable[[int], None] | None,
    ) -> Iterator[Any]:
        if self._active or self._closed:
            raise ExecutorError("one map at a time, on an executor not closed")
        self._active = True
        if self._generation == 0 or context is not self._context:
            self._context = context
            self._generation += 1
        blob: bytes | None = None
        source = enumerate(batches)
        window = 2 * len(self._pool)
        finished: dict[int, list[Any]] = {}
        sent = taken = 0  # batches sent out; batches yielded
        exhausted = False
        cut: tuple[int, bytes] | None = None  # the next batch, pickled, not yet sent
        try:
            while True:
                # keep every worker fed, within the window: each one a batch, then each a
                # second (consecutive batches on different workers, yielded in turn)
                for level, worker in [(n, w) for n in range(DEPTH) for w in self._pool]:
                    if exhausted or sent - taken >= window:
                        break
                    if len(worker.flight) > level:
                        continue
                    if cut is None:
                        item = next(source, None)
                        if item is None:
                            exhausted = True
                            break
                        message = ("batch", item[0], fn, item[1])
                        cut = item[0], bytes(ForkingPickler.dumps(message))
                    if worker.flight and len(cut[1]) > worker.room:
                        continue  # queued behind a batch, it might not fit the pipe: wait
                    if worker.generation != self._generation:
                        if worker.flight:  # (never: a new map starts with idle workers)
                            continue
                        if blob is None:
                            blob = pickle.dumps(context, protocol=pickle.HIGHEST_PROTOCOL)
                        self._send(worker, ("context", blob))
                        worker.generation = self._generation
                    self._send_bytes(worker, cut[1])
                    worker.flight.append(cut[0])
                    cut = None
                    sent += 1
                if taken in finished:
                    results = finished.pop(taken)
                    taken += 1
                    if progress is not None:
                        progress(len(results))
                    yield from results
                    continue
                if exhausted and cut is None and taken == sent:
                    return
                self._collect(finished)
        except GeneratorExit:  # the caller stopped reading: let the workers finish, idle
            self._drain()
            raise
        except BaseException:
            self._shutdown(kill=True)
            raise
        finally:
            self._active = False

    def _send(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        try:
            worker.inbox.send(message)
        except (BrokenPipeError, ConnectionError, EOFError):
            raise worker.died() from None

    def _send_bytes(self, worker: _Worker, message: bytes) -> None:
        try:
            worker.inbox.send_bytes(message)
        except (BrokenPipeError, ConnectionError, EOFError):
            raise worker.died() from None

    def _collect(self, finished: dict[int, list[Any]]) -> None:
        """Wait for at least one batch in flight, and take every result that is ready."""
        busy = {w.outbox: w for w in self._pool if w.flight}
        for conn in wait(list(busy)):
            worker = busy[conn]  # type: ignore[index]
            try:
                kind, index, pid, payload = worker.outbox.recv()
            except (EOFError, OSError):
                raise worker.died() from None
            worker.flight.popleft()
            if kind == "error":
                raise ExecutorError(f"a worker process (pid {pid}) failed:\n{payload}")
            finished[index] = payload
            self.served[pid] = self.served.get(pid, 0) + 1

    def _drain(self) -> None:
        try:
            while any(w.flight for w in self._pool):
                self._collect({})
        except BaseException:
            self._shutdown(kill=True)
            raise

    def _shutdown(self, kill: bool) -> None:
        self._closed = True
        pool, self._pool = self._pool, []
        for worker in pool:  # every worker told first: they end side by side
            worker.tell_stop(kill)
        for worker in pool:
            worker.stop(kill)
        self._context = None

    def close(self) -> None:
        if not self._closed:
            self._shutdown(kill=False)

    def describe(self) -> dict[str, Any]:
        return {
            "executor": self.name,
            "workers": self.workers,
            "pids": sorted(self.served),
            "batches": sum(self.served.values()),
        }
