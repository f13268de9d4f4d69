"""The plan of a run: the manifests' plans, the records' plan, and the files to inspect,
each as a :class:`~verifier.plan.task.FileTask` (the unit of work, in its own module).
The :class:`Plan` is the main process's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verifier.authenticity.interface import SignatureFile
from verifier.findings import Finding
from verifier.plan.entries import ManifestPlan, take_walk
from verifier.plan.records import RecordPlan
from verifier.plan.task import FileTask
from verifier.plan.withheld import Withheld
from verifier.sources.capabilities import PendingWalk, SizeHints, WorkerReads
from verifier.sources.interface import Kind, Layout, Source
from verifier.values.needs import Wants

if TYPE_CHECKING:
    from verifier.sources.interface import Source

_EARLY = frozenset({"schema", "document"})  # read first, in the main process
_SHARED = 1024  # distinct wants kept as one tuple each (most records want the same few)


class Tasks:
    """Tasks made as they are taken (an executor's batches are cut while the workers read
    the first ones), of files known before: how many, and their total size on demand (what
    choosing the executor weighs)."""

    __slots__ = ("_make", "_names", "count", "once")

    def __init__(
        self,
        make: Callable[[Iterable[str]], Iterator[FileTask]],
        names: Callable[[], Iterable[str]],
        count: int,
        once: bool = False,
    ) -> None:
        self._make = make
        self._names = names
        self.count = count
        #: made once, as they come (a streamed walk's): their sizes are not known before,
        #: and nothing may iterate them but the executor
        self.once = once

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[FileTask]:
        return self._make(self._names())


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
    #: the withheld list beside the manifest, if the source holds one
    #: (:mod:`verifier.plan.withheld`)
    withheld: Withheld | None = None
    #: the archive with the withheld files --withheld-dir supplies, which the run reads
    #: instead of the source it was given (``None``: none supplied)
    supplied: Source | None = None
    #: files the bag's manifest does not list that the archive in its payload lists and
    #: withholds (:func:`~verifier.plan.build.build_plan`'s ``adopt``): the archive's run
    #: reports them, against its manifest
    adopted: frozenset[str] = frozenset()
    adopted_manifest: str = ""  # the archive's manifest, by its path in the bag
    #: the first manifest's scope walk, when another process runs it (with the names it
    #: must not call unlisted): :meth:`finish_walk` takes it, then :attr:`order` is made
    walking: tuple[PendingWalk, frozenset[str]] | None = None

    def put_in_order(self) -> None:
        """:attr:`order` (and the few files with further algorithms) from the manifests'
        files, once every walk is taken."""
        seen = set(self.preread)
        for manifest in self.manifests:
            hashes_more = manifest.algorithm != "sha256"
            for name in manifest.files():
                if name not in seen:
                    seen.add(name)
                    self.order.append(name)
                if hashes_more and manifest.algorithm not in self.by_place(name):
                    self.also.setdefault(name, set(self.by_place(name))).add(manifest.algorithm)
            for name, algorithm in manifest.own_algorithm.items():
                if algorithm != "sha256" and algorithm not in self.by_place(name):
                    self.also.setdefault(name, set(self.by_place(name))).add(algorithm)

    def finish_walk(self, source: Source) -> None:
        """Take the walk another process ran (if one did), and put the files in order."""
        if self.walking is None:
            return
        pending, ignore = self.walking
        self.walking = None
        try:
            take_walk(self.manifests[0], source, pending.walks(), ignore)
        finally:
            pending.close()
        self.put_in_order()

    def drop_listings(self) -> None:
        """Drop every manifest's listing and the order of the files, once integrity is
        judged (:meth:`ManifestPlan.drop`); the scope and the labels stay."""
        for manifest in self.manifests:
            manifest.drop()
        self.order = []

    def close_walk(self) -> None:
        """Stop a walk still running (the run ended before it was taken)."""
        if self.walking is not None:
            self.walking[0].close()
            self.walking = None

    def listed_early_names(self, source: Source) -> list[str]:
        """While the walk runs: the early files among the listed names, as
        :meth:`early_names` will find them once it is taken unless the walk meets early
        files the manifest does not list. Each is looked at on its own (its kind kept, as
        the walk's reduction keeps those it did not meet as files)."""
        if not self.parse:
            return []
        early = self._is_early()
        manifest = self.manifests[0]
        kinds = manifest.kinds
        names = []
        for name in sorted(n for n in manifest.wanted if n not in self.preread and early(n)):
            kind = kinds[name] = source.kind(name)
            if kind is Kind.FILE:
                names.append(name)
        return names

    def _is_early(self) -> Callable[[str], bool]:
        """Whether a source path is a schema or a document: classified only if its inner
        path can be early at all (cheap string tests first)."""
        records = self.records
        prefix, cut = records.prefix, len(records.prefix)
        schemas = records.schemas_dir + "/"
        documents = {records.spec_path, *records.documents}
        classify = records.classify

        def early(name: str) -> bool:
            return (
                name.startswith(prefix)
                and (name.startswith(schemas, cut) or name[cut:] in documents)
                and classify(name)[0] in _EARLY
            )

        return early

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

    def early_names(self) -> list[str]:
        """The files read first, in plan order: the schemas and documents (before
        :meth:`RecordPlan.prepare`, which may make more files records, never fewer early
        ones)."""
        if not self.parse:
            return []
        early = self._is_early()
        return [name for name in self.order if early(name)]

    def task(self, source: Source, name: str) -> FileTask:
        return next(self.tasks(source, (name,)))

    def expected_of(self) -> Callable[[str], str | None]:
        """What gives a file's expected SHA-256 (its task's ``expected``): the digest the
        first SHA-256 manifest listing it as a file gives, or ``None``. Read at each call
        (the manifests' listings as they are then: none once dropped)."""
        manifests = [m for m in self.manifests if m.algorithm == "sha256"]
        file = Kind.FILE

        def expected(name: str) -> str | None:
            for manifest in manifests:
                if manifest.kinds.get(name) is file:
                    found: str = manifest.wanted[name]
                    return found
            return None

        return expected

    def tasks(self, source: Source, names: Iterable[str]) -> Iterator[FileTask]:
        """The task of each of ``names``, made as they are taken. What is the same for every
        file is looked up once: the source's capabilities, the SHA-256 manifests, whether
        any file has further algorithms; each file is classified once; equal wants are one
        tuple (pickled once per batch)."""
        records = self.records
        reads = source.capability(WorkerReads)  # none: read here by name, in one pass
        sizes = source.capability(SizeHints)  # none: counted as 0 when work is balanced
        locate = reads.locate if reads is not None else None
        size_hint = sizes.size_hint if sizes is not None else None
        expected = self.expected_of()
        more = bool(self.also) or self.places != ((), ())
        classify = records.classifier() if self.parse else None
        index = records.index
        wants_of = index.wants if index is not None else records.wants  # (which asserts)
        container_of = records.container_of if records.containers else None
        shared: dict[Wants, Wants] = {}
        new = tuple.__new__  # FileTask's own __new__ is a Python function: skipped here
        for name in names:
            role, inner = classify(name) if classify is not None else ("other", None)
            wants: Wants = ()
            container = None
            if role == "record" and inner is not None:
                found = wants_of(inner)
                if found:
                    wants = shared.get(found, found)
                    if wants is found and len(shared) < _SHARED:
                        shared[found] = found
                if container_of is not None:
                    container = container_of(inner)
            listed = expected(name)
            yield new(
                FileTask,
                (
                    name,
                    locate(name) if locate is not None else name,
                    size_hint(name) if size_hint is not None else 0,
                    role,
                    inner,
                    listed,
                    listed is not None,
                    self.algorithms(name) if more else (),
                    wants,
                    container,
                ),
            )

    def rest(self, source: Source, done: Collection[str]) -> Tasks:
        """The tasks of every file in :attr:`order` but ``done`` (files of the order, each
        once), made as they are taken. While the walk runs apart (:attr:`streams_walk`):
        those of the listed files as the walk meets them, then, the walk taken, the rest
        of the order (:meth:`_as_walked`); their count is then the listed files'."""
        if self.walking is not None:
            assert self.streams_walk and not done
            listed = self.manifests[0].wanted
            count = len(listed) - sum(1 for name in self.preread if name in listed)
            make = self._as_walked(source)
            return Tasks(lambda names: self.tasks(source, names), make, count, once=True)
        order = self.order
        return Tasks(
            lambda names: self.tasks(source, names),
            lambda: (n for n in order if n not in done) if done else order,
            len(order) - len(done),
        )

    @property
    def streams_walk(self) -> bool:
        """Whether the walk running apart is taken as it goes, its listed files read as it
        meets them: when no file is read early (nothing parsed: ``--stages integrity``),
        and one SHA-256 manifest, whose listing alone gives a file's task."""
        return (
            self.walking is not None
            and not self.parse
            and len(self.manifests) == 1
            and self.manifests[0].algorithm == "sha256"
            and not self.also
            and self.places == ((), ())
        )

    def _as_walked(self, source: Source) -> Callable[[], Iterator[str]]:
        """The names of :meth:`rest` while the walk runs apart, once: each listed file the
        walk meets as a regular file, as it meets it (marked a file in the listing's
        kinds, which its task's expected digest reads; the walk's reduction marks it so
        again); then, the walk taken (:meth:`finish_walk`), every other file of the order.
        The walk's result is the word on every file: a name it met is one it walked."""
        assert self.walking is not None
        pending = self.walking[0]
        manifest = self.manifests[0]
        skip = self.preread
        given = False

        def names() -> Iterator[str]:
            nonlocal given
            if given:
                raise RuntimeError("the tasks of a streamed walk are made once")
            given = True
            listed, kinds = manifest.wanted, manifest.kinds
            met: set[str] = set()
            file = Kind.FILE
            for name in pending.files_met():
                if name in listed and name not in skip and name not in met:
                    kinds[name] = file
                    met.add(name)
                    yield name
            self.finish_walk(source)
            for name in self.order:
                if name not in met:
                    yield name

        return names
