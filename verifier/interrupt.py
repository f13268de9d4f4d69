"""A termination signal as an exception, so that every ``finally`` of the command runs.

SIGTERM (what ``kill``, a CI runner's timeout and ``timeout(1)`` send) and SIGHUP end a
Python process on the spot: a scratch copy (``coverage --mutate --full``), a local Dask
cluster's scratch folder, a temporary file would stay behind. While :func:`signals_raise` is
in force each of them, and SIGINT, raises :class:`Terminated` instead, once (a second one
ends the process as it would have), and the command line says so in one line and exits
``128 + signal`` (130 for SIGINT, which click otherwise turned into a silent 130). A
disposition the host program set itself (anything but Python's default) is left alone, and
so is every thread but the main one (where Python cannot install handlers).

A signal can come while Python code runs under a caller that swallows exceptions: a format
checker called back from jsonschema-rs (which prints "Exception ignored in" and goes on), a
destructor, a weak-reference callback. The signal is therefore also kept as pending until the
command ends: :func:`raise_pending` raises it again where such a caller returns, and the
command line ends as stopped by it even if every raise was swallowed (the run is not let
finish as if no signal had come).
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
#: the signals that came while :func:`signals_raise` was in force (first one first)
_PENDING: list[int] = []


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
    _PENDING.append(signum)
    raise Terminated(signum)


def pending() -> int | None:
    """The first signal that came while :func:`signals_raise` was in force, or ``None``."""
    return _PENDING[0] if _PENDING else None


def raise_pending() -> None:
    """Raise :class:`Terminated` again if a signal came: for the places where a caller that
    swallows exceptions (jsonschema-rs calling a format checker back) returns."""
    if _PENDING:
        raise Terminated(_PENDING[0])


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
        if installed:  # the outermost: its signals end with it
            _PENDING.clear()
        for signum, previous in installed.items():
            signal.signal(signum, previous)  # type: ignore[arg-type]
