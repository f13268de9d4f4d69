"""Spread per-file work over processes, with results in the order of the input.

Work is cut into batches and mapped over a pool of forked workers (hashing and parsing are
CPU-bound, so threads would not help); results come back in input order, so every report is
the same whatever the number of workers. Small inputs, one worker, or a platform without
``fork`` run in this process: the same function, the same results.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 2000  # below this many items, or
MIN_WEIGHT = 64 << 20  # this many bytes, one process is faster than starting a pool
BATCH_WEIGHT = 4 << 20
BATCH_ITEMS = 512


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _batches(items: Sequence[T], weight: Callable[[T], int]) -> list[list[T]]:
    out: list[list[T]] = []
    current: list[T] = []
    load = 0
    for item in items:
        w = weight(item)
        if current and (load + w > BATCH_WEIGHT or len(current) >= BATCH_ITEMS):
            out.append(current)
            current, load = [], 0
        current.append(item)
        load += w
    if current:
        out.append(current)
    return out


def map_batches(
    fn: Callable[[list[T]], list[R]],
    items: Sequence[T],
    *,
    workers: int,
    weight: Callable[[T], int] = lambda _: 1,
    progress: Callable[[int], None] | None = None,
) -> list[R]:
    """``fn`` over batches of ``items`` in forked worker processes (which inherit this
    process's state), flattened in input order; in this process when a pool does not pay or
    cannot be made. ``progress`` is told how many items each finished batch held.
    """
    items = list(items)
    big = len(items) >= MIN_ITEMS or sum(weight(i) for i in items) >= MIN_WEIGHT
    can_fork = "fork" in multiprocessing.get_all_start_methods()
    if workers <= 1 or not big or not can_fork or len(items) < 2:
        results = fn(items)
        if progress:
            progress(len(items))
        return results
    batches = _batches(items, weight)
    context = multiprocessing.get_context("fork")
    out: list[R] = []
    with context.Pool(min(workers, len(batches))) as pool:
        for result in pool.imap(fn, batches, chunksize=1):
            out.extend(result)
            if progress:
                progress(len(result))
    return out
