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
from typing import Any, TypeVar

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


#: glibc's ``mallopt`` parameter for the size from which a block gets pages of its own
_M_MMAP_THRESHOLD = -3
#: the size, fixed: glibc starts at 128 KiB, which here cost a page fault per page of every
#: such block made again (about 0.5 s more system time at 100,000 records); at 4 MiB the
#: heap held 3.5 MB more
_MMAP_THRESHOLD = 1 << 20


def fixed_mmap_threshold() -> bool:
    """Keep every block of 1 MiB or more on pages of its own, returned when it is freed
    (glibc's ``mallopt(M_MMAP_THRESHOLD)``; True if it could). By default glibc raises that
    threshold to the size of each such block freed, up to 32 MiB: after the 33 MB spec's
    bytes were freed, every later block under 32 MiB (a manifest table's, a report part's)
    came from the heap, whose free memory is handed back only from its top. At 100,000
    records the main process then held 29 MB free to the end of the run. For the main process
    of the command only (:func:`verifier.cli.run`): a setting of the whole process, which a
    library caller's process keeps as it chose; workers keep glibc's default (a read of a
    large file is a block, freed and made again each time)."""
    import ctypes

    mallopt = _libc("mallopt", [ctypes.c_int, ctypes.c_int])
    return mallopt is not None and bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD))


def release_freed() -> bool:
    """Hand the pages the C allocator holds free back to the system (glibc's
    ``malloc_trim``; a thread's arena is otherwise kept, all of it resident, for threads
    that may never come). True if it could; elsewhere (musl, macOS) it does nothing.
    (ctypes is imported here: a worker, which imports this module, never calls it.)"""
    import ctypes

    trim = _libc("malloc_trim", [ctypes.c_size_t])
    if trim is None:
        return False
    trim(0)
    return True


def _libc(name: str, argtypes: list[Any]) -> Any:
    """The C library's function ``name`` (returning an int), or ``None`` where it has none
    (musl, macOS for these; ``TypeError``: no ``CDLL(None)`` on Windows). ctypes is imported
    only here: a worker, which imports this module, never calls it."""
    import ctypes

    try:
        function = getattr(ctypes.CDLL(None), name)
    except (AttributeError, OSError, TypeError):
        return None
    function.argtypes = argtypes
    function.restype = ctypes.c_int
    return function
