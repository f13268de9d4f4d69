"""The inspect step over many tasks: on the executor the options name (``auto``: worker
processes when the work pays for them and the source can be opened in them), or, for a source
read in one pass (a compressed tarball), here as it streams. The main process keeps only compact
facts (:class:`Facts`): a digest per file, a read error, each record's small result.
"""

from __future__ import annotations

import os
import pickle
import zlib
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any

from verifier.execute import create
from verifier.execute.inline import InlineExecutor
from verifier.execute.interface import BATCH_ITEMS
from verifier.inspect import inspect as inspecting
from verifier.inspect.carried import Carried, CarriedOpener, carry
from verifier.inspect.cases import Compact
from verifier.inspect.digest import Digest
from verifier.inspect.inspect import AS_EXPECTED, FileFacts, InspectContext
from verifier.plan.cases import CaseRules
from verifier.plan.plan import Tasks, weight
from verifier.plan.task import FileTask
from verifier.record.check import held_form
from verifier.sources.capabilities import ReadChecks, WorkerReads
from verifier.sources.interface import Source
from verifier.sources.openers import LiveOpener

if TYPE_CHECKING:
    from verifier.plan.options import Options


class HeldDigests(MutableMapping[str, Digest]):
    """Each file's :class:`Digest` by name. A file read as its manifest lists it, with no
    line-ending variant and no further algorithm (nearly every file), is held as its size
    alone: its SHA-256 is the plan's own string, looked up again when it is asked for
    (``expected``: :meth:`verifier.plan.plan.Plan.expected_of`). A Digest is 88 bytes, once
    per file from the records phase until integrity is judged (8.8 MB at 100,000 files).

    While the files are read (the records phase: the run's peak, with every worker's
    memory beside this process's) such a file is only logged, its name in a list and its
    size in an array (16 bytes a file); the table by name is made from the log when it is
    first read, or before any other write (so its order is the order of the writes), which
    is when integrity is judged, after the workers have gone. A table of 100,000 names and
    their sizes as numbers is about 7 MB; the log, 1.6."""

    __slots__ = ("_expected", "_held", "_names", "_sizes")

    def __init__(self, expected: Callable[[str], str | None] | None = None) -> None:
        self._held: dict[str, Digest | int] = {}
        self._names: list[str] = []  # logged by size alone, not yet in the table
        self._sizes = array("q")  # (their sizes, in the same order)
        self._expected = expected

    def _table(self) -> dict[str, Digest | int]:
        """The table by name, with every logged file in it (in the order they came)."""
        if self._names:
            held = self._held
            for name, size in zip(self._names, self._sizes, strict=True):
                held[name] = size
            self._names = []
            self._sizes = array("q")
        return self._held

    def hold(self, name: str, digest: Digest, expected: str) -> None:
        """Keep ``digest``, whose SHA-256 is ``expected``, the one the plan gives ``name``."""
        if (
            type(digest.size) is int
            and digest.crlf is None
            and digest.lf is None
            and not digest.others
            and self._expected is not None
            and self._expected(name) is expected  # (what __getitem__ will give back)
        ):
            self._names.append(name)
            self._sizes.append(digest.size)
        else:
            self._table()[name] = tuple.__new__(Digest, (expected, *digest[1:]))

    def __getitem__(self, name: str) -> Digest:
        held = self._table()[name]
        if type(held) is not int:
            assert isinstance(held, Digest)
            return held
        assert self._expected is not None
        sha256 = self._expected(name)
        assert sha256 is not None, name  # (held by size only when the plan gave one)
        return tuple.__new__(Digest, (sha256, held, None, None, ()))

    def __setitem__(self, name: str, digest: Digest) -> None:
        self._table()[name] = digest

    def __delitem__(self, name: str) -> None:
        del self._table()[name]

    def __contains__(self, name: object) -> bool:
        return name in self._table()

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())

    def clear(self) -> None:
        self._held.clear()
        self._names = []
        self._sizes = array("q")


class RecordLog:
    """Each record's result as it came back, with its path, in the order they came: the
    paths in a list, the results packed a part of :data:`PART` at a time (pickled, then
    compressed by :mod:`zlib` at level 1), read back once, in that order, when the records
    are judged (:meth:`items`, as a table's update takes it: a path that came twice keeps
    its first place and its last result). The records phase is the run's peak, with every
    worker's memory beside this process's: at 100,000 records the results' objects (each
    record's values, flat) took about 11 MB there, packed they take under 1 MB, for about
    0.04 s spent packing while the workers read and 0.02 s unpacking when they are judged.
    Nothing but this process's own objects is ever unpickled here."""

    #: results packed together (about 120 KB pickled at 100,000 records)
    PART = 4096

    __slots__ = ("_packed", "_paths", "_pending")

    def __init__(self) -> None:
        self._paths: list[str] = []
        self._packed: list[bytes] = []
        self._pending: list[Any] = []  # the results not packed yet

    def add(self, path: str, result: Any) -> None:
        self._paths.append(path)
        self._pending.append(result)
        if len(self._pending) >= self.PART:
            self._packed.append(zlib.compress(pickle.dumps(self._pending, _PROTOCOL), 1))
            self._pending = []

    def items(self) -> Iterator[tuple[str, Any]]:
        paths = iter(self._paths)
        for packed in self._packed:
            for result in pickle.loads(zlib.decompress(packed)):
                yield next(paths), result
        for result in self._pending:
            yield next(paths), result

    def __len__(self) -> int:
        return len(self._paths)

    def clear(self) -> None:
        self._paths = []
        self._packed = []
        self._pending = []


_PROTOCOL = pickle.HIGHEST_PROTOCOL


class Facts:
    """What the main process keeps of the files inspected: digests, read errors, and each
    record's result; a document's or schema's bytes only until the plan has parsed them.
    ``expected``: the plan's expected SHA-256 of a file (see :class:`HeldDigests`)."""

    def __init__(self, expected: Callable[[str], str | None] | None = None) -> None:
        self.digests = HeldDigests(expected)
        self.errors: dict[str, str] = {}
        # each record's path inside the content root and its result, held compact (held_form)
        self.records = RecordLog()
        self.held: dict[str, bytes] = {}
        self.pids: set[int] = set()  # the processes that inspected the plan's tasks
        #: rule instances judged where their case was read, as they came: each case with its
        #: results, packed as the records' (:meth:`judged_cases` reads them)
        self.judged = RecordLog()
        self.executors: list[dict[str, Any]] = []  # what each inspection pass ran on

    def judged_cases(self) -> Arrived:
        """The instances judged where their case was read, taken case by case
        (:class:`Arrived`); the log is handed over."""
        log, self.judged = self.judged, RecordLog()
        return Arrived(log)

    def known(self, name: str) -> bool:
        return name in self.digests or name in self.errors

    def add(self, task: FileTask, facts: FileFacts) -> None:
        # keyed by the task's own name (the plan's string), not the copy a worker sent back
        if facts.name != task.name:
            raise RuntimeError(f"facts for {facts.name!r} came back for task {task.name!r}")
        if facts.judged:
            for case, results in facts.judged:
                self.judged.add(case, results)
        if facts.error is not None:
            self.errors[task.name] = facts.error
            return
        digest = facts.digest
        assert digest is not None
        if digest.sha256 == AS_EXPECTED:  # as listed: the plan's own string, held once
            assert task.expected is not None
            self.digests.hold(task.name, digest, task.expected)
        else:
            self.digests[task.name] = digest
        if facts.record is not None and task.record is not None:
            self.records.add(task.record, held_form(facts.record))
        if facts.data is not None:
            self.held[task.name] = facts.data


class Arrived:
    """The workers' results of rule instances (:mod:`verifier.inspect.cases`), read from
    their log as the consistency stage asks for them, case by case in the plan's order.

    They came in task order (each case's results with its last file in a batch), which is
    the cases' order but for a name that sorts before its case's ``/`` (``c1-2/`` comes
    before ``c1/``): what comes before the case asked for is held until asked for, so at a
    time only those few are unpacked, never the whole log. Whatever the order, a case asked
    for gets every result of its that came before the next case's: one that came late is
    judged again by the stage, to the same result."""

    __slots__ = ("_early", "_head", "_items")

    def __init__(self, log: RecordLog) -> None:
        self._items = log.items()
        self._early: dict[str, dict[int, Compact]] = {}
        self._head: tuple[str, Any] | None = next(self._items, None)

    def pop(self, case: str) -> dict[int, Compact]:
        """Case ``case``'s results, by the rule's place (empty: none judged apart)."""
        got = self._early.pop(case, {})
        key = case + "/"
        while self._head is not None:
            came, results = self._head
            if came == case:
                into = got
            elif came + "/" > key:
                break  # a later case's
            else:
                into = self._early.setdefault(came, {})
            for result in results:
                into[result[0]] = result
            self._head = next(self._items, None)
        return got


def inspect_all(
    source: Source,
    bundle: Any,
    tasks: list[FileTask] | Tasks,
    facts: Facts,
    options: Options,
    here: bool = False,
    known: Mapping[str, tuple[str, int]] | None = None,
    cases: CaseRules | None = None,
) -> None:
    """Inspect ``tasks`` and add their facts. ``here``: in this process (the plan's early
    files). A source without worker reads is read here in one pass; otherwise the executor the
    options name runs the tasks (``auto``: worker processes when the work is large enough
    to pay for them). ``tasks`` may be made as they are taken (:class:`Tasks`): the executor
    pulls them batch by batch, and each is kept only until its facts come back.

    ``known``: the SHA-256 and size of files another run over the same source already read
    (a bag's payload, for the archive inside it): a task that wants nothing else of the file
    (no record, no further algorithm) takes its digest from there and the file is not read a
    second time, so both manifests are checked against the same bytes.

    ``cases``: the spec's rules judged where their cases are read: each batch's worker judges
    the instances its records decide (:mod:`verifier.inspect.cases`)."""
    if known:
        tasks = _unknown(tasks, known, facts)
    total = len(tasks)
    if not total:
        return
    progress = options.progress
    reads = None if here else source.capability(WorkerReads)
    if reads is None:  # no worker reads (or the plan's own early files): one pass, here
        by_name = {t.name: t for t in tasks}
        context = InspectContext(None, bundle)
        if not here:  # the plan's own early reads are not counted
            facts.pids.add(os.getpid())
        done = 0
        shared: dict[Any, Any] = {}  # equal extracted objects, as in a worker's batch
        for name, stream in source.read_many(by_name):
            done += 1
            if progress is not None and done % 1000 == 0:
                progress("integrity", done, total)
            if done % BATCH_ITEMS == 0:
                shared.clear()
            task = by_name[name]
            if isinstance(stream, OSError):
                facts.add(task, FileFacts(name, None, stream.strerror or str(stream), None))
                continue
            facts.add(task, inspecting.inspect(context, task, stream, shared))
        if not here:
            facts.executors.append({"executor": "serial", "workers": 1, "onePass": True})
        return
    opener = reads.opener()
    name = executor_name(options, tasks)
    executor = (
        InlineExecutor()
        if name == "inline"
        else create(name, options.worker_count(total), options.scheduler)
    )
    # workers that may not see this machine's files get each file's bytes with its task,
    # read here with the source's opener (verifier.inspect.carried); the others open them
    if name == "inline":
        context = InspectContext(LiveOpener(source), bundle, cases)
    elif executor.remote:
        context = InspectContext(CarriedOpener(), bundle, cases)
    else:
        context = InspectContext(opener, bundle, cases)
    in_main = InspectContext(opener, bundle)  # (a file too large to carry: read here)
    # what the workers' openers verified (a git blob's id) is judged by the source here; the
    # live source checks its own reads as they pass
    judge = source.capability(ReadChecks) if name != "inline" else None
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:  # (a streamed walk's count is the listed files': may grow)
            progress("integrity", done, max(total, done))

    # sent, facts not back yet (the executor's window), each with what its carrying found:
    # whether it is to be read here, what the opener verified of its bytes
    taken: deque[tuple[FileTask, bool, Checks]] = deque()

    def read_here(task: FileTask) -> tuple[Carried, Checks]:
        return carry(opener, task)

    feed = _Kept(tasks, taken, total, read_here if executor.remote else None)
    with executor:
        results: Iterator[FileFacts] = executor.map(
            inspecting.inspect_batch,
            context,
            feed,
            weight=_carried_weight if executor.remote else weight,
            progress=advance,
            group=_case_of(cases),
        )
        try:
            for found in results:
                if not taken:
                    raise ValueError("an executor returned more results than tasks")
                task, at_home, checks = taken.popleft()
                if at_home:  # too large to carry: read here, its worker's facts dropped
                    found = inspecting.inspect(in_main, task)._replace(judged=found.judged)
                elif checks:  # verified as it was read here, for a worker
                    found = found._replace(checks=checks)
                facts.add(task, found)
                if found.checks and judge is None:
                    raise RuntimeError(f"{source.name} cannot judge its opener's checks")
                if judge is not None and found.error is None:
                    judge.take_checks(task.name, found.checks)
            if taken or next(feed, None) is not None:
                raise ValueError("an executor returned fewer results than tasks")
        finally:  # what they opened in this process (a zip's handle, a git process)
            if context.opener is not opener:
                context.opener.close()
            opener.close()
    described = executor.describe()
    facts.executors.append(described)
    served = getattr(executor, "served", None)
    if served:
        facts.pids.update(served)
    else:
        facts.pids.add(os.getpid())


def _case_of(cases: CaseRules | None) -> Callable[[FileTask], object] | None:
    """What keeps a case's files in one batch, so that its worker judges every instance of
    it (:mod:`verifier.inspect.cases`): each task's case folder."""
    if cases is None or not cases.rules:
        return None
    holding = cases.case_holding
    return lambda task: holding(task.name)


def _unknown(
    tasks: Iterable[FileTask], known: Mapping[str, tuple[str, int]], facts: Facts
) -> list[FileTask]:
    """The tasks whose digests ``known`` does not give; the facts of the others added."""
    rest: list[FileTask] = []
    for task in tasks:
        found = known.get(task.name)
        if found is None or task.record is not None or task.algorithms or task.container:
            rest.append(task)
            continue
        facts.add(task, FileFacts(task.name, Digest(found[0], found[1]), None, None))
    return rest


#: what an opener verified of a file's bytes (``Opener.checked``)
Checks = tuple[tuple[str, str], ...]


def _carried_weight(task: FileTask) -> int:
    """A carried task's weight: the bytes it carries (the plan's size may be unknown, 0)."""
    where = task.where
    if isinstance(where, Carried) and where.data is not None:
        return len(where.data) + 4096
    return 4096


class _Kept:
    """``tasks`` as the executor takes them, each kept in ``taken`` (results come back in
    task order: the oldest one taken is the next result's); ``len()`` is how many there
    are in all, known before they are made. ``carry``: each task is handed on with its
    bytes, read here, as its opener spec (:mod:`verifier.inspect.carried`)."""

    __slots__ = ("_carry", "_count", "_taken", "_tasks")

    def __init__(
        self,
        tasks: Iterable[FileTask],
        taken: deque[tuple[FileTask, bool, Checks]],
        count: int,
        carry: Callable[[FileTask], tuple[Carried, Checks]] | None = None,
    ) -> None:
        self._tasks = iter(tasks)
        self._taken = taken
        self._count = count
        self._carry = carry

    def __iter__(self) -> Iterator[FileTask]:
        return self

    def __next__(self) -> FileTask:
        task = next(self._tasks)
        if self._carry is None:
            self._taken.append((task, False, ()))
            return task
        carried, checks = self._carry(task)
        self._taken.append((task, carried.here, checks))
        return task._replace(where=carried)

    def __len__(self) -> int:
        return self._count


def executor_name(options: Options, tasks: list[FileTask] | Tasks) -> str:
    """The executor for ``tasks``: by their count and, only when the count alone does not
    decide, their total size and how much of it is parsed (a :class:`Tasks` is iterated for
    it: a few thousand at most)."""
    from verifier.execute.registry import resolve

    sizes: list[int] = []  # the total and the bytes to parse, from one pass if asked

    def size(parsed: bool) -> int:
        if isinstance(tasks, Tasks) and tasks.once:
            return 0  # (a streamed walk's files, unsized: a pass here would take the stream)
        if not sizes:
            total = parse = 0
            for task in tasks:
                total += task.size
                if task.role != "other":
                    parse += task.size
            sizes[:] = (total, parse)
        return sizes[parsed]

    return resolve(
        options.executor,
        len(tasks),
        lambda: size(False),
        options.worker_count(),
        lambda: size(True),
    )
