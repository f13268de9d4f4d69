"""Work whose memory should not outlive it, done on a thread of its own.

jsonschema-rs, given ``formats=`` (a validator whose schema may reach a ``format``,
:func:`verifier.schema.format_policy.may_assert_format`), converts the whole instance to its
own values before validating it and keeps memory the size of that copy in the state of the
thread that validated, after the instance and even the validator are gone: about 48 MB after
the 33 MB assertion spec at 100,000 records (while its schema was given formats), held by the
main process to the end of the run (measured with glibc's ``mallinfo2``; python's
tracemalloc cannot see it). A thread's state ends with the thread, so a large document is
validated on a short-lived one; what the allocator then holds free for it is handed back to
the system (:func:`release_freed`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def on_own_thread(call: Callable[[], T]) -> T:
    """``call()``, run on a thread that ends before this returns, then the memory freed
    meanwhile handed back; its result, or its exception re-raised here."""
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(call())
        except BaseException as exc:  # (re-raised on the caller's thread, below)
            failure.append(exc)

    thread = threading.Thread(target=run, name="verifier-apart", daemon=True)
    thread.start()
    thread.join()
    release_freed()
    if failure:
        raise failure[0]
    return result[0]


def release_freed() -> bool:
    """Hand the pages the C allocator holds free back to the system (glibc's
    ``malloc_trim``; a thread's arena is otherwise kept, all of it resident, for threads
    that may never come). True if it could; elsewhere (musl, macOS) it does nothing.
    (ctypes is imported here: a worker, which imports this module, never calls it.)"""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # (TypeError: no CDLL(None) on Windows)
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    return True
