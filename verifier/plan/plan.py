"""The plan of a run, and its unit of work: one small, picklable task per file.

A :class:`FileTask` says everything inspecting one file needs besides the context (the
source's opener and the schema bundle): its path, how to open it (its opener spec), its role,
the SHA-256 it is expected to have (for line-ending variants on a mismatch), the further
algorithms its manifests use, and the values a record must yield. The :class:`Plan` is the
main process's: the manifests' plans, the records' plan, and the files to inspect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from verifier.authenticity.interface import SignatureFile
from verifier.findings import Finding
from verifier.plan.entries import ManifestPlan
from verifier.plan.needs import Wants
from verifier.plan.records import RecordPlan
from verifier.sources.capabilities import SizeHints, WorkerReads
from verifier.sources.interface import Kind, Layout

if TYPE_CHECKING:
    from verifier.sources.interface import Source

#: what a file is to the run: ``record`` (parsed, validated, values extracted), ``schema``,
#: ``document`` (a record kept whole: the assertion spec, the case catalogue, read first),
#: ``other`` (hashed only)
ROLES = ("record", "schema", "document", "other")
_EARLY = frozenset({"schema", "document"})  # read first, in the main process


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
    container: tuple[str | None, bool] | None = None  # a transcript container: (shape, leaf)


def weight(task: FileTask) -> int:
    """A task's weight when cutting batches: its bytes, and a little for opening it."""
    return task.size + 4096


@dataclass(slots=True)
class Plan:
    """What the run reads and how it is judged. ``manifests``: the report's manifest first,
    then the layout's other payload manifests (``payload_count`` in all), then its tag
    manifests. ``order``: every file to inspect, once, in plan order (the layout files
    already read, ``preread``, excluded)."""

    layout: Layout
    label: str  # the report's manifest
    rel: str | None  # its path in the source (``None``: outside it)
    reached: bool  # False: reading stopped before it, or it was refused (``refused``)
    refused: list[Finding]
    base: str
    content: str  # the content root ("" for the source's root)
    manifest_sha256: str
    preread: dict[str, bytes]
    manifests: list[ManifestPlan]
    payload_count: int
    records: RecordPlan
    parse: bool  # a later stage parses records
    order: list[str] = field(default_factory=list)
    #: the further algorithms by place (tag files, payload files), and the few files a
    #: manifest with another algorithm lists besides
    places: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    also: dict[str, set[str]] = field(default_factory=dict)
    #: the signatures over the manifest (read with it), those refused unread, and the
    #: manifest's bytes they sign (kept only when there is a signature to check)
    signatures: list[SignatureFile] = field(default_factory=list)
    signature_findings: list[Finding] = field(default_factory=list)
    signed: bytes = b""

    @property
    def prefix(self) -> str:
        return self.content + "/" if self.content else ""

    def by_place(self, name: str) -> tuple[str, ...]:
        """The further algorithms a file is hashed with by where it is: a bag's payload files
        with every payload manifest's, its tag files with the tag manifests'."""
        payload = self.layout.payload
        return self.places[payload is not None and name.startswith(payload + "/")]

    def algorithms(self, name: str) -> tuple[str, ...]:
        found = self.also.get(name)
        return tuple(sorted(found)) if found is not None else self.by_place(name)

    def listed_sha256(self, name: str) -> str | None:
        """The SHA-256 the first SHA-256 manifest listing it as a file gives (for variants)."""
        for plan in self.manifests:
            if plan.algorithm == "sha256" and plan.kinds.get(name) is Kind.FILE:
                return plan.wanted[name]
        return None

    def early(self, name: str) -> bool:
        return self.parse and self.records.classify(name)[0] in _EARLY

    def task(self, source: Source, name: str) -> FileTask:
        records = self.records
        role, inner = records.classify(name) if self.parse else ("other", None)
        wants = records.wants(inner) if role == "record" and inner is not None else ()
        listed = self.listed_sha256(name)
        reads = source.capability(WorkerReads)  # none: read here by name, in one pass
        sizes = source.capability(SizeHints)  # none: counted as 0 when work is balanced
        return FileTask(
            name,
            reads.locate(name) if reads is not None else name,
            sizes.size_hint(name) if sizes is not None else 0,
            role,
            inner,
            listed,
            listed is not None,
            self.algorithms(name),
            wants,
            records.container_of(inner) if role == "record" and inner is not None else None,
        )
