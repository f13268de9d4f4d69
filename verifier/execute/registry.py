"""The executor registry: name -> factory ``(workers, scheduler) -> Executor``. The CLI's
``--executor`` choices come from here. ``processes`` and ``dask`` are imported only when
chosen (Dask is an optional extra: ``pip install "verifier[dask]"``)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from types import MappingProxyType

from verifier.execute.interface import Executor

#: name -> "module:Class"
EXECUTORS: Mapping[str, str] = MappingProxyType(
    {
        "inline": "verifier.execute.inline:InlineExecutor",
        "processes": "verifier.execute.processes:ProcessExecutor",
        "dask": "verifier.execute.dask:DaskExecutor",
    }
)


#: what ``--executor`` takes: ``auto`` and every registered name
CHOICES: tuple[str, ...] = ("auto", *EXECUTORS)

MIN_ITEMS = 2000  # below this many tasks, or
MIN_WEIGHT = 64 << 20  # this many bytes, one process is faster than starting workers


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def resolve(name: str, count: int, weight: int | Callable[[], int], workers: int) -> str:
    """The executor ``name`` stands for: itself, or for ``auto`` local processes when there
    are ``workers > 1`` and ``count`` tasks weighing ``weight`` bytes are worth starting
    them for, else inline. ``weight`` may be a function, called only if the count alone
    does not decide."""
    if name != "auto":
        return name
    if workers <= 1 or os.name != "posix" or count < 2:
        return "inline"
    if count >= MIN_ITEMS:
        return "processes"
    worth = (weight() if callable(weight) else weight) >= MIN_WEIGHT
    return "processes" if worth else "inline"


def create(name: str, workers: int = 1, scheduler: str | None = None) -> Executor:
    """A new executor by registry name. Raises ``KeyError`` for an unknown name and
    :class:`verifier.execute.interface.ExecutorError` if it cannot start (Dask missing)."""
    module, _, cls = EXECUTORS[name].partition(":")
    factory = getattr(importlib.import_module(module), cls)
    executor: Executor = factory(workers=workers, scheduler=scheduler)
    return executor
