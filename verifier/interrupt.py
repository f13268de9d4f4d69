"""A termination signal as an exception, so that every ``finally`` of the command runs.

SIGTERM (what ``kill``, a CI runner's timeout and ``timeout(1)`` send) and SIGHUP end a
Python process on the spot: a scratch copy (``coverage --mutate --full``), a local Dask
cluster's scratch folder, a temporary file would stay behind. While :func:`signals_raise` is
in force each of them, and SIGINT, raises :class:`Terminated` instead, once (a second one
ends the process as it would have), and the command line says so in one line and exits
``128 + signal`` (130 for SIGINT, which click otherwise turned into a silent 130). A
disposition the host program set itself (anything but Python's default) is left alone, and
so is every thread but the main one (where Python cannot install handlers).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

#: the signals turned into :class:`Terminated` (those this platform has)
SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, name)
)
_DEFAULTS = (signal.SIG_DFL, signal.default_int_handler)


class Terminated(BaseException):
    """The process was asked to end by ``signum``: unwind (every ``finally`` runs), then
    exit ``128 + signum``. A BaseException, as KeyboardInterrupt: no ``except Exception``
    takes it for a failure of its own."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise(signum: int, frame: FrameType | None) -> None:
    # a second one ends the process as it would have
    signal.signal(signum, signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL)
    raise Terminated(signum)


@contextmanager
def signals_raise() -> Iterator[None]:
    """While in force, SIGTERM, SIGHUP and SIGINT raise :class:`Terminated` (see the module)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    installed: dict[signal.Signals, object] = {}
    for signum in SIGNALS:
        if signal.getsignal(signum) in _DEFAULTS:
            installed[signum] = signal.signal(signum, _raise)
    try:
        yield
    finally:
        for signum, previous in installed.items():
            signal.signal(signum, previous)  # type: ignore[arg-type]
