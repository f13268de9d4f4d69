"""Work done on a thread of its own (verifier.inspect.apart): the thread has ended when the
call returns, so what it kept in its thread's state (jsonschema-rs's copy of a large
document) is gone with it; the result, or the exception, comes back to the caller."""

from __future__ import annotations

import sys
import threading

import pytest

from verifier.inspect.apart import on_own_thread, release_freed


def test_the_call_runs_on_another_thread_that_has_ended_when_it_returns() -> None:
    threads: list[threading.Thread] = []

    def call() -> int:
        threads.append(threading.current_thread())
        return 42

    assert on_own_thread(call) == 42
    assert threads and threads[0] is not threading.current_thread()
    assert not threads[0].is_alive()


def test_an_exception_comes_back_to_the_caller_as_it_was_raised() -> None:
    problem = RecursionError("too deep")

    def call() -> None:
        raise problem

    with pytest.raises(RecursionError) as caught:
        on_own_thread(call)
    assert caught.value is problem


def test_freed_memory_is_handed_back_where_the_c_library_can() -> None:
    handed = release_freed()
    assert handed is (sys.platform == "linux" and _glibc())


def _glibc() -> bool:
    import platform

    return platform.libc_ver()[0] == "glibc"
