"""Batch functions for the executor tests (``tests/unit/test_executors.py``), in a module of
their own so that a worker process imports this, not pytest and the test module."""

from __future__ import annotations

import os
import sys
from typing import Any

#: set in the test process only (by the spawn-safety test); a worker must never see it
MARK: str | None = None


class Token:
    """A context made in the test: a value, and how often this object was pickled here."""

    pickled = 0  # class attribute: counted in the test process, per class

    def __init__(self, value: str) -> None:
        self.value = value

    def __getstate__(self) -> dict[str, str]:
        type(self).pickled += 1
        return {"value": self.value}

    def __setstate__(self, state: dict[str, str]) -> None:
        self.value = state["value"]

    closed = 0  # how many copies were closed (a threads map closes each thread's)

    def close(self) -> None:
        type(self).closed += 1


def double(context: Any, batch: list[int]) -> list[int]:
    return [2 * i for i in batch]


def who(context: Token, batch: list[int]) -> list[tuple[int, str, int, int, str | None]]:
    """Each task with the context's value, this process, the id of the context object it
    holds, and what the module global holds here."""
    return [(i, context.value, os.getpid(), id(context), MARK) for i in batch]


def who_threads(context: Token, batch: list[int]) -> list[tuple[int, str, int, int]]:
    """Each task with the context's value, this thread and the id of the context it holds
    (after a pause: the next batch is taken by another thread meanwhile)."""
    import threading
    import time

    time.sleep(0.01)
    return [(i, context.value, threading.get_ident(), id(context)) for i in batch]


def where(context: Any, batch: list[int]) -> list[int]:
    return [os.getpid() for _ in batch]


def fail_on_seven(context: Any, batch: list[int]) -> list[int]:
    if 7 in batch:
        raise ValueError("seven")
    return batch


def die_on_seven(context: Any, batch: list[int]) -> list[int]:
    if 7 in batch:
        os._exit(3)
    return batch


def modules(context: Any, batch: list[int]) -> list[list[str]]:
    return [sorted(sys.modules) for _ in batch]


def echo_waiting(context: Any, batch: list[str]) -> list[tuple[str, bool]]:
    """Each task back, twice as long (results as large as the batches, and larger), with
    whether a next batch waited in this worker's inbox meanwhile (as :func:`waiting`)."""
    import select
    import time

    time.sleep(0.05)
    ready, _, _ = select.select([int(sys.argv[1])], [], [], 0)
    return [(task * 2, bool(ready)) for task in batch]


def waiting(context: Any, batch: list[int]) -> list[bool]:
    """For each task, whether a next message waits in this worker's inbox while it works
    (checked after a pause, so that a batch sent at once has arrived). A processes worker
    only: its inbox is the descriptor in ``sys.argv[1]``."""
    import select
    import time

    time.sleep(0.2)
    ready, _, _ = select.select([int(sys.argv[1])], [], [], 0)
    return [bool(ready) for _ in batch]
