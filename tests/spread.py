"""Make a parallel read really spread: reads go parallel from two files on, in batches of
three, and this process does not read its first batch until a forked worker has read one
(or ``WAIT_FOR_WORKER`` seconds went by; the count of reading processes then tells). Without
this, which process reads which batch is up to the scheduler, and a test that compares serial
and parallel reports could pass with one process having read everything.

Used by the ``spread`` fixture (through ``monkeypatch.setattr``) and by the child processes of
the determinism test (through plain ``setattr``, then ``python -m verifier``'s entry point).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import verifier.inspect.inspect
import verifier.parallel
import verifier.pipeline

WAIT_FOR_WORKER = 60.0

Setter = Callable[[Any, str, Any], None]
ReadBatch = Callable[[Any, list[Any]], list[Any]]


def spread_reads(set_attr: Setter) -> None:
    set_attr(verifier.parallel, "MIN_ITEMS", 2)
    set_attr(verifier.parallel, "BATCH_ITEMS", 3)
    served = multiprocessing.get_context("fork").Event()
    parent = os.getpid()
    read_batch: ReadBatch = verifier.inspect.inspect.inspect_batch

    def synchronised(context: Any, batch: list[Any]) -> list[Any]:
        if os.getpid() == parent:
            served.wait(WAIT_FOR_WORKER)
            return read_batch(context, batch)
        out = read_batch(context, batch)
        served.set()
        return out

    set_attr(verifier.inspect.inspect, "inspect_batch", synchronised)


def record_read_processes(set_attr: Setter, out: Path) -> None:
    """Write each run's ``read_processes`` to ``out`` (one line per run)."""
    run_source = verifier.pipeline.run_source

    def spy(*args: Any, **kwargs: Any) -> verifier.pipeline.Run:
        result = run_source(*args, **kwargs)
        with out.open("a", encoding="utf-8") as handle:
            handle.write(f"{result.read_processes}\n")
        return result

    set_attr(verifier.pipeline, "run_source", spy)


def main() -> None:
    """``python -m tests.spread COUNT_FILE ARGS...``: the CLI with spread reads, recording how
    many processes read the archive."""
    count_file = Path(sys.argv[1])
    del sys.argv[1]
    spread_reads(setattr)
    record_read_processes(setattr, count_file)
    from verifier.cli import run

    run()


if __name__ == "__main__":
    main()
