"""A progress bar on standard error for long runs on a terminal (rich); silent otherwise.

The core only calls ``progress(stage, done, total)``; this module decides whether anything is
drawn: only when standard error is a terminal, ``--quiet`` is not given, and the run has
already taken about a second.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

Progress = Callable[[str, int, int], None]
DELAY = 1.0


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Progress | None]:
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    started = time.monotonic()
    state: dict[str, Any] = {"bar": None, "tasks": {}}

    def update(stage: str, done: int, total: int) -> None:
        if state["bar"] is None:
            if time.monotonic() - started < DELAY:
                return
            from rich.console import Console
            from rich.progress import Progress as Bar

            console = Console(stderr=True, markup=False, emoji=False, highlight=False)
            new_bar = Bar(console=console, transient=True)
            new_bar.start()
            state["bar"] = new_bar
        bar = state["bar"]
        tasks = state["tasks"]
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done, total=total)

    try:
        yield update
    finally:
        if state["bar"] is not None:
            state["bar"].stop()
