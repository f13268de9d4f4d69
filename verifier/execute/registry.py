"""The executor registry: name -> factory ``(workers, scheduler) -> Executor``. The CLI's
``--executor`` choices come from here. ``processes``, ``threads`` and ``dask`` are imported
only when chosen (Dask is an optional extra: ``pip install "verify-evidence[dask]"``)."""

from __future__ import annotations

import os
from collections.abc import Callable

from verifier.execute.interface import Executor
from verifier.registry import Plugin, Registry

#: name -> the executor's class, called as ``factory(workers=, scheduler=)``
EXECUTORS: Registry[Callable[..., Executor]] = Registry(
    "executor",
    Plugin("inline", "verifier.execute.inline:InlineExecutor"),
    Plugin("processes", "verifier.execute.processes:ProcessExecutor"),
    Plugin("threads", "verifier.execute.threads:ThreadExecutor"),
    Plugin("dask", "verifier.execute.dask:DaskExecutor"),
)

#: what ``--executor`` takes: ``auto`` and every registered name
CHOICES: tuple[str, ...] = EXECUTORS.choices("auto")

MIN_ITEMS = 2000  # below this many tasks, or
MIN_WEIGHT = 64 << 20  # this many bytes, one process is faster than starting workers
#: at most this many bytes to parse (records, documents) among fewer than MIN_ITEMS tasks
#: weighing MIN_WEIGHT or more: the time is in reading and hashing, which threads do on
#: every core without starting a process; parsing holds the interpreter lock
MAX_PARSED_FOR_THREADS = 16 << 20


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def resolve(
    name: str,
    count: int,
    weight: int | Callable[[], int],
    workers: int,
    parsed: int | Callable[[], int] | None = None,
) -> str:
    """The executor ``name`` stands for: itself, or for ``auto`` local processes when there
    are ``workers > 1`` and ``count`` tasks weighing ``weight`` bytes are worth starting
    them for, else inline; or threads, for fewer than :data:`MIN_ITEMS` tasks worth the
    workers when at most :data:`MAX_PARSED_FOR_THREADS` of their bytes are to be parsed
    (``parsed``; ``None``: not known, processes). ``weight`` and ``parsed`` may be
    functions, called only if what comes before does not decide."""
    if name != "auto":
        return name
    if workers <= 1 or os.name != "posix" or count < 2:
        return "inline"
    if count >= MIN_ITEMS:
        return "processes"
    if (weight() if callable(weight) else weight) < MIN_WEIGHT:
        return "inline"
    if parsed is None:
        return "processes"
    few = (parsed() if callable(parsed) else parsed) <= MAX_PARSED_FOR_THREADS
    return "threads" if few else "processes"


def create(name: str, workers: int = 1, scheduler: str | None = None) -> Executor:
    """A new executor by registry name. Raises ``KeyError`` for an unknown name and
    :class:`verifier.execute.interface.ExecutorError` if it cannot start (Dask missing)."""
    return EXECUTORS[name](workers=workers, scheduler=scheduler)
