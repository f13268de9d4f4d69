"""The benchmark runner's memory sampler (``benchmarks/run.py``): a child caught running its
parent's program is not counted at its first sample (between vfork and exec its address
space is its parent's: counting it would add the parent's whole resident size once more),
and is counted from its second sample on (a forked worker that keeps running)."""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
import time
from typing import Any

import pytest

from tests.conftest import REPO


def _runner() -> Any:
    spec = importlib.util.spec_from_file_location("bench_run", REPO / "benchmarks" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_run", module)  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="Linux /proc only")
def test_a_child_running_its_parent_s_program_counts_from_its_second_sample() -> None:
    run = _runner()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child only waits
        time.sleep(30)
        os._exit(0)
    try:
        time.sleep(0.2)
        me = os.getpid()
        alone = run._rss(me)
        theirs = run._rss(child)
        assert theirs > 0
        forked: set[int] = set()
        first = run.tree_rss(me, forked)
        second = run.tree_rss(me, forked)
        assert child in forked
        assert abs(first - alone) < theirs  # the child not counted at its first sighting
        assert second - first >= theirs // 2  # then counted
        assert run.tree_rss(me) >= first + theirs // 2  # without the set: always counted
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
