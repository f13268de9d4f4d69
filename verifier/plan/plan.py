"""The plan's unit of work: one small, picklable task per file, and the whole plan of a run.

A :class:`FileTask` says everything inspecting one file needs besides the context (the
source's opener and the schema bundle): its path, how to open it (its opener spec), its role,
the SHA-256 it is expected to have (for line-ending variants on a mismatch), the further
algorithms its manifests use, and the values a record must yield.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from verifier.plan.entries import ManifestPlan
from verifier.plan.needs import Wants
from verifier.plan.records import RecordPlan

#: what a file is to the run: ``record`` (parsed, validated, values extracted), ``schema``,
#: ``document`` (a record kept whole: the assertion spec, the case catalogue, read first),
#: ``other`` (hashed only)
ROLES = ("record", "schema", "document", "other")


class FileTask(NamedTuple):
    name: str  # path in the source
    where: Any  # the source's opener spec (Source.locate)
    size: int  # the size the source reports, to weigh batches (0: unknown)
    role: str  # one of ROLES
    record: str | None  # the record's path inside the content root (a record or document)
    expected: str | None  # the listed SHA-256, for line-ending variants on a mismatch
    variants: bool
    algorithms: tuple[str, ...]  # further hashlib algorithms, from the same read
    wants: Wants = ()  # what a record must yield


@dataclass(slots=True)
class Plan:
    """What the run will read and how it will judge it: the manifests' plans (the first is
    the report's), the records' plan, and the files to inspect (``early`` first, in this
    process: schemas and documents; then ``tasks``)."""

    manifests: list[ManifestPlan]
    records: RecordPlan
    early: list[FileTask] = field(default_factory=list)
    tasks: list[FileTask] = field(default_factory=list)


def weight(task: FileTask) -> int:
    """A task's weight when cutting batches: its bytes, and a little for opening it."""
    return task.size + 4096
