"""Executors: where the inspect step runs.

One small interface (:class:`verifier.execute.interface.Executor`): ``map(fn, context,
tasks)`` applies a module-level function to every task, with a context (the schema bundle and
what the plan shares) sent to each worker once, and yields the results in task order. The
registry (:data:`EXECUTORS`) feeds the CLI's ``--executor`` choices.
"""

from __future__ import annotations

from verifier.execute.interface import Executor, ExecutorError
from verifier.execute.registry import EXECUTORS, create

__all__ = ["EXECUTORS", "Executor", "ExecutorError", "create"]
