"""Work done on a thread of its own (verifier.record.apart): the thread has ended when the
call returns, so what it kept in its thread's state (jsonschema-rs's copy of a large
document) is gone with it; the result, or the exception, comes back to the caller."""

from __future__ import annotations

import sys
import threading

import pytest

from verifier.record.apart import on_own_thread, release_freed


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


_BLOCKS = """
import ctypes, sys
from verifier.record.apart import fixed_mmap_threshold
if sys.argv[1] == "fixed":
    assert fixed_mmap_threshold()
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost"
                .split()]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
big = bytes(16 << 20)  # a large block, freed: glibc's default then raises its threshold
del big
before = libc.mallinfo2().hblkhd
blocks = [bytes(2 << 20) for _ in range(4)]
print((libc.mallinfo2().hblkhd - before) >> 20)
"""


@pytest.mark.skipif(not (sys.platform == "linux" and _glibc()), reason="glibc's allocator")
@pytest.mark.parametrize("how", ["fixed", "default"])
def test_large_blocks_get_pages_of_their_own_after_a_larger_one_is_freed(how: str) -> None:
    """With the threshold fixed (the command's main process), a 2 MiB block made after a
    16 MiB one was freed is mapped apart (handed back when freed); by glibc's default it
    comes from the heap (whose free memory is handed back only from its top)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", _BLOCKS, how], capture_output=True, text=True, check=True
    ).stdout
    mapped = int(out)
    assert mapped >= 8 if how == "fixed" else mapped == 0


def test_the_command_fixes_the_threshold_before_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import gc
    import os

    import verifier.cli
    import verifier.record.apart

    calls: list[str] = []

    def fixed() -> bool:
        calls.append("fixed")
        return True

    monkeypatch.setattr(verifier.record.apart, "fixed_mmap_threshold", fixed)
    monkeypatch.setattr(verifier.cli, "main", lambda: calls.append("main"))
    monkeypatch.setattr(gc, "disable", lambda: None)  # (the cli module's own gc)
    monkeypatch.setattr(os, "_exit", lambda code: calls.append(f"exit {code}"))
    verifier.cli.run()
    assert calls == ["fixed", "main", "exit 0"]
