"""Progress on standard error for runs on a terminal (rich); silent otherwise.

The core announces each phase as it starts (:func:`verifier.plan.phases.announce`: manifest,
walk, schemas, records, assertions; the command adds report) and counts the files it
inspects (``progress(stage, done, total)``). On a terminal this module shows one line per
phase: the current one with a spinner, a bar when it has a count, and the time it has taken;
rich redraws it several times a second from its own thread, so a phase that counts nothing
(a long walk, the judges) is never a frozen screen. It appears after :data:`DELAY` (shorter
than a second: nothing is silent for longer) and is transient, cleared before the report is
written.

Never drawn when standard error is not a terminal, with ``--quiet``, or anywhere but standard
error: standard output carries the report (a machine format stays byte for byte the same).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

DELAY = 0.5  # seconds before anything is drawn: short runs draw nothing, none is silent > 1 s


class PhaseProgress:
    """The options' progress callable: counts (``__call__``) and phases (:meth:`phase`),
    drawn on ``stream`` by a rich progress display once :meth:`start` is called."""

    def __init__(self, stream: IO[str]) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(
            file=stream, force_terminal=True, markup=False, emoji=False, highlight=False
        )
        self._bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            refresh_per_second=8,
        )
        self._lock = threading.Lock()
        self._tasks: dict[str, Any] = {}
        self._current: str | None = None
        self._started = False
        self._stopped = False
        #: the phases announced, in order (what a test reads)
        self.seen: list[str] = []

    def start(self) -> None:
        with self._lock:
            if not self._started and not self._stopped:
                self._started = True
                self._bar.start()

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._started:
                self._finish_current()
                self._bar.stop()

    def _finish_current(self) -> None:
        if self._current is not None:
            task = self._tasks[self._current]
            done = next(int(t.completed) for t in self._bar.tasks if t.id == task)
            self._bar.update(task, total=max(done, 1), completed=max(done, 1))

    def phase(self, name: str) -> None:
        """Phase ``name`` starts: the previous one is done."""
        with self._lock:
            if name == self._current or self._stopped:
                return
            self._finish_current()
            self._current = name
            self.seen.append(name)
            self._tasks[name] = self._bar.add_task(name, total=None)
            if self._started:
                self._bar.refresh()  # each phase drawn as it starts, not at the next tick

    def __call__(self, stage: str, done: int, total: int) -> None:
        """``done`` of ``total`` files inspected (of the current phase)."""
        with self._lock:
            if self._stopped:
                return
            if self._current is None:
                self._current = stage
                self.seen.append(stage)
                self._tasks[stage] = self._bar.add_task(stage, total=None)
            self._bar.update(self._tasks[self._current], completed=done, total=total or None)


def announce_report(progress: Any) -> None:
    """The command's own phase: rendering the report."""
    from verifier.plan.phases import announce

    announce(progress, "report")


@contextmanager
def progress_bar(
    enabled: bool = True, stream: IO[str] | None = None, delay: float = DELAY
) -> Iterator[PhaseProgress | None]:
    """A :class:`PhaseProgress` drawn on ``stream`` (standard error) after ``delay``, or
    ``None`` when disabled or ``stream`` is not a terminal."""
    out = sys.stderr if stream is None else stream
    if not enabled or not out.isatty():
        yield None
        return
    shown = PhaseProgress(out)
    timer = None
    if delay <= 0:
        shown.start()
    else:
        timer = threading.Timer(delay, shown.start)
        timer.daemon = True
        timer.start()
    try:
        yield shown
    finally:
        if timer is not None:
            timer.cancel()
        shown.stop()
