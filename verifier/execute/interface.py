"""The interface every executor implements.

An executor runs a pure, module-level function over an iterable of small picklable tasks
(taken batch by batch as the map goes: the caller may make them as they are taken) and
yields the results **in task order**, whatever ran them and however many workers took part:
that order is what makes every report byte-identical across executors and worker counts.

``fn(context, batch)`` receives the context (built once by the plan: the schema bundle, the
values each file must yield) and a list of tasks, and returns one result per task. The
context is handed to each worker once, never inherited through ``fork`` and never read from
a module global, so a worker started with ``spawn`` (or on another machine) behaves the same.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, TypeVar

C = TypeVar("C")
T = TypeVar("T")
R = TypeVar("R")

#: ``fn(context, batch) -> results`` (one per task, in batch order); module-level, picklable
BatchFn = Callable[[Any, list[Any]], list[Any]]


class ExecutorError(RuntimeError):
    """A worker failed (its message holds the worker's traceback) or could not be reached:
    the run cannot go on. Never raised for bad archive content, which is a finding."""


class Executor(abc.ABC):
    """Runs batches of tasks, here or elsewhere. Use as a context manager."""

    #: the registry name (``inline``, ``processes``, ``dask``)
    name: str = "executor"
    #: whether its workers may be on other machines, where this machine's files are not to
    #: be opened: the inspect step then sends each file's bytes with its task
    remote: bool = False

    #: batches this many times :data:`BATCH_ITEMS` and :data:`BATCH_WEIGHT` (an executor
    #: whose every batch costs more to send: a Dask task)
    scale: int = 1

    def map(
        self,
        fn: BatchFn,
        context: Any,
        tasks: Iterable[Any],
        weight: Callable[[Any], int] | None = None,
        progress: Callable[[int], None] | None = None,
        group: Callable[[Any], object] | None = None,
    ) -> Iterator[Any]:
        """``fn`` over :func:`batches` of ``tasks`` (cut by ``weight``, bytes say, and never
        inside a ``group``), results in task order; ``progress`` is called with how many
        tasks each finished batch held. Refused at once when the executor cannot run one."""
        self._ready()
        return self._map(fn, context, batches(tasks, weight, self.scale, group), progress)

    def _ready(self) -> None:  # noqa: B027 (the inline executor is always ready)
        """Raise :class:`ExecutorError` when a map cannot start (closed, or one running)."""

    @abc.abstractmethod
    def _map(
        self,
        fn: BatchFn,
        context: Any,
        batches: Iterator[list[Any]],
        progress: Callable[[int], None] | None,
    ) -> Iterator[Any]:
        """``fn`` over ``batches``, results in order (:meth:`map`)."""

    def describe(self) -> dict[str, Any]:
        """What ran, for the audit record (never for the report, which must not depend on
        it): the executor's name, how many workers, and which processes served batches."""
        return {"executor": self.name}

    def close(self) -> None:  # noqa: B027 (the inline executor holds nothing)
        """Stop the workers this executor started (never a cluster it was pointed at)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


BATCH_WEIGHT = 4 << 20
BATCH_ITEMS = 512


def batches(
    tasks: Iterable[T],
    weight: Callable[[T], int] | None = None,
    scale: int = 1,
    group: Callable[[T], object] | None = None,
) -> Iterator[list[T]]:
    """``tasks`` cut into consecutive batches of at most ``scale`` x :data:`BATCH_ITEMS`
    tasks or about ``scale`` x :data:`BATCH_WEIGHT` (by ``weight``), in order. ``group``:
    a batch is not cut between two consecutive tasks of the same group (not ``None``: the
    files of one case, whose rule instances are judged where they are read), unless it has
    grown to twice those bounds."""
    items, load_max = BATCH_ITEMS * scale, BATCH_WEIGHT * scale
    current: list[T] = []
    load = 0
    last: object = None
    for task in tasks:
        w = weight(task) if weight is not None else 1
        key = group(task) if group is not None else None
        full = load + w > load_max or len(current) >= items
        # (twice the bounds: a case too large for one batch is cut after all)
        over = load + w > 2 * load_max or len(current) >= 2 * items
        if current and full and (key is None or key != last or over):
            yield current
            current, load = [], 0
        current.append(task)
        load += w
        last = key
    if current:
        yield current
