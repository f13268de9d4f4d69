"""Threads of this process: for work whose time is spent outside the interpreter, reading and
hashing large files (a read and a SHA-256 of more than 2 KiB release the interpreter lock),
with no process to start: a few blobs of hundreds of megabytes are hashed on every core
without the quarter second that starting worker interpreters costs. Parsing and validating
records hold the lock, so ``auto`` picks this executor only where the bytes to hash outweigh
the records to parse (:func:`verifier.execute.registry.resolve`).

Each thread works on a copy of the context of its own, unpickled from the one pickle made here
per map, as a worker process would: an opener's handle (a zip's file, a tarball's, a git
process) is never shared between threads, and nothing a batch changes in its context is seen
by another thread. Results come in task order; at most two batches per thread are in flight.
A batch that raises ends the map with :class:`ExecutorError` carrying its traceback, as a
worker process's does. When the map ends, each copy that has a ``close()`` is closed (the
inspect step's context closes its opener: a git process, a zip's handle).
"""

from __future__ import annotations

import pickle
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from verifier.execute.interface import BatchFn, Executor, ExecutorError


class _Failed:
    """A batch's exception, as the traceback text a worker process would send."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class ThreadExecutor(Executor):
    name = "threads"

    def __init__(self, workers: int = 1, scheduler: str | None = None) -> None:
        if scheduler is not None:
            raise ExecutorError("a scheduler address is for the dask executor, not threads")
        self.workers = max(1, workers)
        self.batches = 0
        self.threads = 0  # how many threads served batches (in the last map)
        self._closed = False

    def _ready(self) -> None:
        if self._closed:
            raise ExecutorError("the threads executor was closed")

    def _map(
        self,
        fn: BatchFn,
        context: Any,
        batches: Iterator[list[Any]],
        progress: Callable[[int], None] | None,
    ) -> Iterator[Any]:
        state = pickle.dumps(context, pickle.HIGHEST_PROTOCOL)
        own = threading.local()  # each thread's copy of the context, for this map only
        copies: list[Any] = []  # every copy made, closed when the map ends

        def run(batch: list[Any]) -> list[Any] | _Failed:
            try:
                mine = getattr(own, "context", None)
                if mine is None:
                    mine = own.context = pickle.loads(state)
                    copies.append(mine)
                return fn(mine, batch)
            except BaseException:
                return _Failed(traceback.format_exc())

        pending: deque[tuple[int, Future[list[Any] | _Failed]]] = deque()
        pool = ThreadPoolExecutor(self.workers, thread_name_prefix="verifier-inspect")
        try:
            for batch in batches:
                pending.append((len(batch), pool.submit(run, batch)))
                if len(pending) >= 2 * self.workers:
                    yield from self._take(pending.popleft(), progress)
            while pending:
                yield from self._take(pending.popleft(), progress)
        finally:
            # a map stopped early (an error, the caller's) waits only for the batches running
            pool.shutdown(wait=True, cancel_futures=True)
            self.threads = len(copies)
            for copy in copies:  # what a copy opened (a git process, a zip's handle) closed now
                close = getattr(copy, "close", None)
                if callable(close):
                    close()

    def _take(
        self,
        item: tuple[int, Future[list[Any] | _Failed]],
        progress: Callable[[int], None] | None,
    ) -> Iterator[Any]:
        size, future = item
        results = future.result()
        if isinstance(results, _Failed):
            raise ExecutorError(f"a batch failed in a thread:\n{results.text}")
        if len(results) != size:
            raise ExecutorError(f"a batch of {size} tasks gave {len(results)} results")
        self.batches += 1
        if progress is not None:
            progress(size)
        return iter(results)

    def describe(self) -> dict[str, Any]:
        return {
            "executor": self.name,
            "workers": self.workers,
            "batches": self.batches,
            "threads": self.threads,
        }

    def close(self) -> None:
        self._closed = True
