"""Dask: batches run on the workers of a ``dask.distributed`` cluster.

``DaskExecutor(workers, scheduler)``: with ``scheduler`` (an address such as
``tcp://host:8786``) it connects to that cluster and never stops it; without, it starts a
``LocalCluster`` of ``workers`` single-threaded worker processes (no dashboard), their
scratch space in a temporary folder of its own, and closes it and removes that folder
afterwards. Dask is an optional extra (``pip install "verify-evidence[dask]"``), imported only here.

Per :meth:`DaskExecutor.map` the context is scattered once to every worker
(``broadcast=True``); each batch is one task (``pure=False``: a unique key), at most
``2 x workers`` of them in flight, and results are taken from the futures in submission
order, so they stream in task order; batches are :data:`BATCH_SCALE` times the other
executors' (fewer, larger Dask tasks). ``fn`` and the batch travel pickled as one bytes value
(Dask never looks inside them for keys or tasks); ``fn`` is pickled by reference, so the
workers must have this same ``verifier`` installed (it sends no code of its own). On a
cluster at an address the executor is :attr:`~verifier.execute.interface.Executor.remote`:
its workers may be on other machines, so the inspect step sends each file's bytes with its
task (:mod:`verifier.inspect.carried`) and they never open the archive; a local cluster's
workers open the files themselves, as local processes do.

A signal that comes while a local cluster starts is held until it is up, then raised
(:mod:`verifier.interrupt`), so that :meth:`close` stops it: raised inside its start, it
left the cluster's processes running and their semaphores leaked.

A worker's exception becomes :class:`ExecutorError` with its traceback; a worker that dies
makes Dask's own ``KilledWorker`` (a local cluster does not retry: a death here is the
batch's, not the machine's), which becomes :class:`ExecutorError` too.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import pickle
import shutil
import signal
import socket
import tempfile
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from verifier.execute.interface import BatchFn, Executor, ExecutorError

INSTALL = 'the dask executor needs Dask: pip install "verify-evidence[dask]"'
CONNECT_TIMEOUT = "30s"
#: a Dask task costs more than a batch down a pipe (the scheduler, in the client's process
#: for a local cluster, and two hops): batches of 4 x 512 files or about 16 MB. At 100,000
#: records on two workers the map took 4.0-7.4 s with them, 6.7-9.4 s with 512-file ones
#: (alternating runs on the project's busy 2-core machine)
BATCH_SCALE = 4


class _Opaque:
    """The context, wrapped so that Dask stores it as one value and never walks into it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _run(context: _Opaque, payload: bytes) -> tuple[str, str, Any]:
    """On a worker: ``fn(context, batch)`` -> ``("done", who, results)``, or ``("error",
    who, traceback text)`` (always picklable, whatever failed)."""
    who = f"{socket.gethostname()}:{os.getpid()}"
    try:
        fn, batch = pickle.loads(payload)
        return "done", who, fn(context.value, batch)
    except BaseException:
        return "error", who, traceback.format_exc()


@contextlib.contextmanager
def _held_signals() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT held while a local cluster starts, then handled as they
    would have been (:mod:`verifier.interrupt` raises): raised inside ``LocalCluster``'s
    start, a signal left its nannies and workers running, unknown to anyone, and their
    semaphores leaked. Only a Python handler is held (a default one ends the process as
    it would have), and only in the main thread, where handlers run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    held: dict[int, Any] = {}
    for signum in _HELD:
        handler = signal.getsignal(signum)
        if callable(handler):
            held[signum] = signal.signal(signum, lambda n, _frame: came.append(n))
    try:
        yield
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
        for signum in came[:1]:  # (one is enough: the run stops)
            held[signum](signum, None)


_HELD = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name)
)


class DaskExecutor(Executor):
    """A Dask client, on a cluster of its own or on the one at ``scheduler``."""

    name = "dask"
    scale = BATCH_SCALE

    def __init__(self, workers: int = 1, scheduler: str | None = None) -> None:
        try:  # as Any: typed or not, installed or not, mypy sees the same module
            dask: Any = importlib.import_module("dask")
            distributed: Any = importlib.import_module("distributed")
        except ImportError as exc:
            raise ExecutorError(f"{INSTALL} ({exc})") from None
        self.workers = max(1, workers)
        self.scheduler = scheduler
        # a cluster at an address may be on other machines: the files' bytes travel
        self.remote = scheduler is not None
        self.served: dict[str, int] = {}  # host:pid -> batches
        self._cluster: Any = None
        self._client: Any = None
        self._scratch: str | None = None  # the local cluster's scratch folder
        try:
            if scheduler is None:
                # its workers' scratch space in a folder of its own, removed by close (Dask
                # left ``dask-scratch-space`` in the temporary folder after every run)
                self._scratch = tempfile.mkdtemp(prefix="verifier-dask-")
                settings = {
                    "distributed.scheduler.allowed-failures": 0,
                    "temporary-directory": self._scratch,
                }
                with _held_signals(), dask.config.set(settings):
                    self._cluster = distributed.LocalCluster(
                        n_workers=self.workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        # (its HTTP server, health routes only, is started even so: on
                        # 8787 of every interface, with a warning on stderr when another
                        # cluster holds that port; here a free port of the loopback)
                        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                        silence_logs=logging.CRITICAL,
                        local_directory=self._scratch,
                    )
                    self._client = distributed.Client(self._cluster, set_as_default=False)
            else:
                self._client = distributed.Client(
                    scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False
                )
                # a cluster without workers would queue the tasks for ever: wait, then refuse
                self._client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except BaseException as exc:  # (a signal's Terminated too: the cluster is stopped)
            self.close()
            if not isinstance(exc, Exception):
                raise
            where = f"the Dask scheduler at {scheduler}" if scheduler else "a local Dask cluster"
            raise ExecutorError(f"could not start or reach {where}: {exc}") from None

    def _window(self) -> int:
        try:
            count = len(self._client.scheduler_info().get("workers", {}))
        except Exception:  # pragma: no cover - the scheduler went away: the map will say so
            count = self.workers
        return 2 * max(1, count)

    def _ready(self) -> None:
        if self._client is None:
            raise ExecutorError("the dask executor was closed")

    def _map(
        self,
        fn: BatchFn,
        context: Any,
        batches: Iterator[list[Any]],
        progress: Callable[[int], None] | None,
    ) -> Iterator[Any]:
        client = self._client
        assert client is not None  # (_ready)
        try:
            [shared] = client.scatter([_Opaque(context)], broadcast=True, hash=False)
        except Exception as exc:
            raise ExecutorError(
                f"the context could not be sent to the Dask workers: {exc}"
            ) from None
        window = self._window()
        flight: deque[Any] = deque()
        try:
            for batch in batches:
                payload = pickle.dumps((fn, batch), protocol=pickle.HIGHEST_PROTOCOL)
                flight.append(client.submit(_run, shared, payload, pure=False))
                if len(flight) >= window:
                    yield from self._take(flight.popleft(), progress)
            while flight:
                yield from self._take(flight.popleft(), progress)
        finally:  # what the caller did not take is cancelled; the context is let go
            with contextlib.suppress(Exception):
                for future in flight:
                    future.cancel()
                shared.release()

    def _take(self, future: Any, progress: Callable[[int], None] | None) -> list[Any]:
        try:
            kind, who, payload = future.result()
        except Exception as exc:  # KilledWorker, a lost scheduler, a cancelled run
            raise ExecutorError(
                f"a Dask task did not finish: {type(exc).__name__}: {exc}"
            ) from None
        finally:
            future.release()
        if kind == "error":
            raise ExecutorError(f"a Dask worker ({who}) failed:\n{payload}")
        self.served[who] = self.served.get(who, 0) + 1
        if progress is not None:
            progress(len(payload))
        results: list[Any] = payload
        return results

    def close(self) -> None:
        client, self._client = self._client, None
        cluster, self._cluster = self._cluster, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
        if cluster is not None:  # only the cluster this executor started
            with contextlib.suppress(Exception):
                cluster.close()
        scratch, self._scratch = self._scratch, None
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def describe(self) -> dict[str, Any]:
        return {
            "executor": self.name,
            "workers": self.workers,
            "scheduler": self.scheduler or "local",
            "served": sorted(self.served),
            "batches": sum(self.served.values()),
        }
