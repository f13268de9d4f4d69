"""The executor registry: name -> factory ``(workers, scheduler) -> Executor``. The CLI's
``--executor`` choices come from here. ``processes`` and ``dask`` are imported only when
chosen (Dask is an optional extra: ``pip install "verifier[dask]"``)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
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


def create(name: str, workers: int = 1, scheduler: str | None = None) -> Executor:
    """A new executor by registry name. Raises ``KeyError`` for an unknown name and
    :class:`verifier.execute.interface.ExecutorError` if it cannot start (Dask missing)."""
    module, _, cls = EXECUTORS[name].partition(":")
    factory = getattr(importlib.import_module(module), cls)
    executor: Executor = factory(workers=workers, scheduler=scheduler)
    return executor
