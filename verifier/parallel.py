"""Spread per-file work over processes, with results in the order of the input.

Work is cut into batches and shared between this process and forked workers (hashing and
parsing are CPU-bound, so threads would not help): with N workers, N - 1 processes are
forked and this process takes batches too, so N cores are used by N processes. Each process
takes the next batch from one queue, so a large file does not hold the others back. Results
come back in input order, so every report is the same whatever the number of workers. Small
inputs, one worker, or a platform without ``fork`` run in this process: the same function,
the same results.

Workers are forked before the caller builds what its jobs need (:class:`Workers`); what was
built is then sent to each worker once (``state``), so the memory it took to build it is
not copied into the workers.

``Workers.served`` records which processes (by pid) served how many batches, so a caller
(and a test) can tell that work really was spread, not only that it could have been.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import traceback
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 2000  # below this many items, or
MIN_WEIGHT = 64 << 20  # this many bytes, one process is faster than starting workers
BATCH_WEIGHT = 4 << 20
BATCH_ITEMS = 512


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def worth_it(count: int, weight: int, workers: int) -> bool:
    """Whether forking workers pays for ``count`` items weighing ``weight`` bytes."""
    can_fork = "fork" in multiprocessing.get_all_start_methods()
    return workers > 1 and can_fork and count >= 2 and (count >= MIN_ITEMS or weight >= MIN_WEIGHT)


def _batches(items: Iterable[T], weight: Callable[[T], int]) -> Iterator[list[T]]:
    current: list[T] = []
    load = 0
    for item in items:
        w = weight(item)
        if current and (load + w > BATCH_WEIGHT or len(current) >= BATCH_ITEMS):
            yield current
            current, load = [], 0
        current.append(item)
        load += w
    if current:
        yield current


class WorkerError(RuntimeError):
    """A worker process failed; the message holds its traceback."""


class Workers(Generic[T, R]):
    """``workers - 1`` forked processes serving ``fn`` over batches, with this process taking
    batches too. Fork happens at construction; use as a context manager.

    ``init`` receives, in each worker before its first batch, the ``state`` that
    :meth:`map` builds (it is already in this process). After :meth:`map`, ``served`` maps
    the pid of each process that served batches (this one included) to how many."""

    def __init__(
        self,
        fn: Callable[[list[T]], list[R]],
        workers: int,
        init: Callable[[Any], None] | None = None,
    ) -> None:
        self.fn = fn
        self.init = init
        self.served: dict[int, int] = {}
        context = multiprocessing.get_context("fork")
        # Queues with feeder threads: a put never blocks, so neither side can stall the other.
        self._tasks: Any = context.Queue()
        self._results: Any = context.Queue()
        self._states: list[Any] = [context.Queue() for _ in range(max(0, workers - 1))]
        self._procs = [
            context.Process(target=self._serve, args=(state,), daemon=True)
            for state in self._states
        ]
        for proc in self._procs:
            proc.start()

    def _serve(self, state: Any) -> None:  # in a worker
        initialised = self.init is None
        while True:
            task = self._tasks.get()
            if task is None:
                break
            index, batch = task
            try:
                if not initialised:
                    assert self.init is not None
                    self.init(state.get())
                    initialised = True
                self._results.put((index, self.fn(batch), None, os.getpid()))
            except BaseException:  # reported to the parent, which raises it
                self._results.put((index, None, traceback.format_exc(), os.getpid()))

    def map(
        self,
        items: Iterable[T],
        weight: Callable[[T], int] = lambda _: 1,
        progress: Callable[[int], None] | None = None,
        state: Callable[[], Any] | None = None,
    ) -> list[R]:
        """``fn`` over batches of ``items``, flattened in input order: ``state()`` is built
        here and sent to the workers, then batches are queued as ``items`` yields them, and
        this process serves too."""
        built = state() if state is not None else None
        if self.init is not None:
            for channel in self._states:
                channel.put(built)
        count = 0
        for index, batch in enumerate(_batches(items, weight)):
            self._tasks.put((index, batch))
            count += 1
        for _ in range(len(self._procs) + 1):
            self._tasks.put(None)
        done: dict[int, list[R]] = {}

        def finished(index: int, result: list[R], pid: int) -> None:
            done[index] = result
            self.served[pid] = self.served.get(pid, 0) + 1
            if progress:
                progress(len(result))

        def collect(block: bool) -> None:
            while len(done) < count and (block or not self._results.empty()):
                try:
                    index, result, error, pid = self._results.get(timeout=1)
                except queue.Empty:
                    if any(p.exitcode not in (None, 0) for p in self._procs):
                        raise WorkerError("a worker process ended without its results") from None
                    continue
                if error is not None:
                    raise WorkerError(error)
                finished(index, result, pid)

        while True:  # this process serves too, until it meets its end-of-work marker
            task = self._tasks.get()
            if task is None:
                break
            index, batch = task
            finished(index, self.fn(batch), os.getpid())
            collect(block=False)
        collect(block=True)
        return [r for i in range(count) for r in done[i]]

    def close(self, abandon: bool = False) -> None:
        """Wait for the workers, then close the queues. ``abandon`` (after an error): do not
        wait for queued tasks no worker will take."""
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():  # pragma: no cover - a worker stuck past its end-of-work
                proc.kill()
                proc.join()
        if abandon:  # take back what no worker will: the feeder threads can then finish
            for channel in (self._tasks, *self._states):
                with contextlib.suppress(queue.Empty, OSError, EOFError):
                    while True:
                        channel.get(timeout=0.2)
        for channel in (self._tasks, self._results, *self._states):
            channel.close()  # and stop its feeder thread: no thread outlives the pool
            channel.join_thread()

    def __enter__(self) -> Workers[T, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None:
            for proc in self._procs:
                proc.kill()
        self.close(abandon=exc[0] is not None)
