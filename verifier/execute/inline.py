"""The in-process executor: every batch runs here, in order. The reference the others are
tested against, and what small archives use."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from verifier.execute.interface import BatchFn, Executor


class InlineExecutor(Executor):
    name = "inline"

    def __init__(self, workers: int = 1, scheduler: str | None = None) -> None:
        self.batches = 0

    def _map(
        self,
        fn: BatchFn,
        context: Any,
        batches: Iterator[list[Any]],
        progress: Callable[[int], None] | None,
    ) -> Iterator[Any]:
        for batch in batches:
            results = fn(context, batch)
            self.batches += 1
            if progress is not None:
                progress(len(batch))
            yield from results

    def describe(self) -> dict[str, Any]:
        return {"executor": self.name, "workers": 1, "batches": self.batches}
