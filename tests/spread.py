"""Make a parallel read really spread: reads go parallel from two files on, in batches of
three, and each batch takes a little longer, so the executor's workers each get batches (the
count of reading processes tells). Without this, which worker reads which batch is up to the
scheduler, and a test that compares serial and parallel reports could pass with one process
having read everything.

Used by the ``spread`` fixture (through ``monkeypatch.setattr``) and by the child processes of
the determinism test (through plain ``setattr``, then ``python -m verifier``'s entry point).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import verifier.execute.interface
import verifier.execute.registry
import verifier.inspect.inspect
import verifier.pipeline

BATCH_PAUSE = 0.2
INSPECT_BATCH = verifier.inspect.inspect.inspect_batch

Setter = Callable[[Any, str, Any], None]
ReadBatch = Callable[[Any, list[Any]], list[Any]]


def spread_batch(context: Any, batch: list[Any]) -> list[Any]:
    """The inspect step, a little slower per batch: each worker is busy long enough that the
    executor hands the next batch to another (module-level: it crosses to fresh workers by
    reference)."""
    time.sleep(BATCH_PAUSE)
    return INSPECT_BATCH(context, batch)


def spread_reads(set_attr: Setter) -> None:
    set_attr(verifier.execute.registry, "MIN_ITEMS", 2)
    set_attr(verifier.execute.interface, "BATCH_ITEMS", 3)
    import tests.spread  # by its importable name, even when run as __main__ (pickled by it)

    set_attr(verifier.inspect.inspect, "inspect_batch", tests.spread.spread_batch)


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
