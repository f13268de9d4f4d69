"""A folder on the local file system."""

from __future__ import annotations

import abc
import contextlib
import errno
import itertools
import operator
import os
import pickle
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import IO, Any

from verifier.sources.capabilities import (
    PendingWalk,
    SizeHints,
    WalkApart,
    WalkErrors,
    WorkerReads,
)
from verifier.sources.interface import By, Kind, Opener, Source, SourceError, Stream
from verifier.sources.registry import missing

# Every open of a file: no link followed at the last segment (the folders on the way are
# checked by kind()), never blocking on a FIFO or a device (the open returns at once, and a
# fstat then refuses anything but a regular file), binary on Windows.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class NotRegularError(OSError):
    """What was opened is not a regular file, or is over the size limit it was read with."""


def open_regular(path: str, *, follow: bool = False) -> tuple[int, os.stat_result]:
    """A file descriptor of a regular file and its status; :class:`NotRegularError` for
    anything else (a FIFO, a device, a socket), without ever waiting on it."""
    fd = os.open(path, _FLAGS | (0 if follow else _NOFOLLOW))
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularError("not a regular file (a FIFO, a device or a socket)")
        return fd, st
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str, limit: int, *, follow: bool = False) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (:class:`NotRegularError` when
    it is not one, or is or grows larger), read in as few calls as its size allows."""
    fd, st = open_regular(path, follow=follow)
    try:
        if st.st_size > limit:
            raise NotRegularError(f"{st.st_size} bytes, over the limit of {limit}")
        return _read_open(fd, st.st_size, limit)
    finally:
        os.close(fd)


def read_if_small(path: str, small: int) -> bytes | None:
    """The bytes of a regular file if it holds at most ``small`` bytes when opened (it is then
    read to its end, as :func:`read_regular` reads it); ``None`` for a larger one."""
    fd, st = open_regular(path)
    try:
        return None if st.st_size > small else _read_open(fd, st.st_size, sys.maxsize)
    finally:
        os.close(fd)


def _read_open(fd: int, size: int, limit: int) -> bytes:
    """The bytes of the open file ``fd`` of ``size`` bytes when opened, read to its end or to
    ``limit`` (:class:`NotRegularError` past it)."""
    parts = [os.read(fd, size + 1)]
    total = len(parts[0])
    if total == size:  # the size it had: the end (a regular file reads short only at its
        return parts[0]  # end; the byte asked beyond it would show it grew)
    while parts[-1]:  # the file grew, or a short read: read to the end, or to the limit
        if total > limit:
            raise NotRegularError(f"grew while read, past the limit of {limit} bytes")
        parts.append(os.read(fd, min(1 << 20, limit + 1 - total)))
        total += len(parts[-1])
    return b"".join(parts) if len(parts) > 2 else parts[0]


class DirectorySource(Source, WorkerReads, SizeHints, WalkErrors, WalkApart):
    """Files under a root folder. Never follows a symbolic link, never writes.

    Of the safety policy (:mod:`verifier.sources.safety`) only the link and device rules can
    apply to a folder: its names are already distinct entries of this file system, and
    nothing in it expands.
    """

    name = "directory"

    def __init__(self, root: str | os.PathLike[str], sizes: bool = True) -> None:
        """``sizes``: the walk takes each file's size (a ``stat`` each), for
        :meth:`size_hint`; without, a walked file's size is unknown (0) and never looked up
        (the walk of a large folder in a child process: half its time was the sizes, and
        with thousands of files the work is spread by count)."""
        self.root = os.path.abspath(os.fspath(root))
        if not os.path.isdir(self.root):
            where = os.fspath(root)
            if os.path.isfile(where):
                raise SourceError(f"{where} is a file, not a folder")
            raise SourceError(missing(where))
        self.description = os.fspath(root)
        self._real_dirs: set[str] = set()
        self._sizes: dict[str, int] = {}  # sizes seen by kind()'s lstat, for size_hint
        self._walk_sizes = sizes
        #: the folders walked without sizes, each with its slash ("" for the root): a file
        #: under one has no size to look up
        self._unsized: tuple[str, ...] = ()
        self.walk_errors: dict[str, str] = {}  # folder -> why the walk could not list it

    def _full(self, name: str) -> str:
        if not name:
            return self.root
        return self.root + os.sep + (name if os.sep == "/" else name.replace("/", os.sep))

    def kind(self, name: str) -> Kind:
        head, _, _ = name.rpartition("/")
        if head in self._real_dirs:  # the common case: a file in a folder already seen
            try:
                st = os.lstat(self._full(name))
            except (FileNotFoundError, NotADirectoryError):
                return Kind.MISSING
            except OSError:
                return Kind.OTHER
            if stat.S_ISREG(st.st_mode):
                self._sizes[name] = st.st_size
                return Kind.FILE
            if stat.S_ISLNK(st.st_mode):
                return Kind.LINK
            return Kind.DIRECTORY if stat.S_ISDIR(st.st_mode) else Kind.OTHER
        path = self.root
        parts = name.split("/")
        # Folders on the way already seen to be real folders (not links) are not looked at
        # again: with many files per folder, one lstat per file instead of one per segment.
        start = 0
        for i in range(len(parts) - 1, 0, -1):
            prefix = "/".join(parts[:i])
            if prefix in self._real_dirs:
                start = i
                path = self._full(prefix)
                break
        for i in range(start, len(parts)):
            path = path + os.sep + parts[i]
            try:
                st = os.lstat(path)
            except (FileNotFoundError, NotADirectoryError):
                return Kind.MISSING
            except OSError:
                return Kind.OTHER
            if stat.S_ISLNK(st.st_mode):
                return Kind.LINK
            last = i == len(parts) - 1
            if not last and not stat.S_ISDIR(st.st_mode):
                return Kind.MISSING
            if not last:
                self._real_dirs.add("/".join(parts[: i + 1]))
            if last:
                if stat.S_ISREG(st.st_mode):
                    self._sizes[name] = st.st_size
                    return Kind.FILE
                if stat.S_ISDIR(st.st_mode):
                    return Kind.DIRECTORY
                return Kind.OTHER
        return Kind.MISSING

    def walk(self, folder: str, skip: AbstractSet[str] = frozenset()) -> Iterator[tuple[str, Kind]]:
        """:meth:`Source.walk`; ``skip``: folders not gone into (each walked on its own, by
        another of the processes a walk apart is split between)."""
        if folder:
            kind = self.kind(folder)
            if kind is Kind.OTHER and self._unlistable(folder):
                yield folder, Kind.UNREADABLE
            if kind is not Kind.DIRECTORY:
                return
        stack = [folder]
        sizes = self._sizes
        stat_sizes = self._walk_sizes
        by_name = operator.attrgetter("name")
        file = Kind.FILE
        while stack:
            current = stack.pop()
            try:
                with os.scandir(self._full(current)) as it:
                    entries = sorted(it, key=by_name)
            except OSError as exc:
                self.walk_errors[current] = exc.strerror or str(exc)
                yield current, Kind.UNREADABLE
                continue
            above = f"{current}/" if current else ""
            for entry in entries:
                rel = above + entry.name
                # _entry_kind, inline (once per file of a large archive), the common case
                # first: is_file and is_dir (not following links) are false for a link, so
                # the order of the tests does not change a kind, and where the file system
                # gave no type each test makes the same lstat (and fails the same way)
                try:
                    if entry.is_file(follow_symlinks=False):
                        if stat_sizes:
                            try:  # noqa: SIM105  # (suppress() costs a context per file)
                                # its size, to spread reads by weight
                                sizes[rel] = entry.stat(follow_symlinks=False).st_size
                            except OSError:
                                pass
                        kind = file
                    elif entry.is_dir(follow_symlinks=False):
                        if not skip or rel not in skip:
                            stack.append(rel)
                        continue
                    else:
                        kind = Kind.LINK if entry.is_symlink() else Kind.OTHER
                except OSError as exc:
                    self.walk_errors[rel] = exc.strerror or str(exc)
                    kind = Kind.UNREADABLE
                yield rel, kind

    def _unlistable(self, folder: str) -> bool:
        """Whether looking at ``folder`` failed (rather than finding a special file)."""
        try:
            os.lstat(self._full(folder))
        except (FileNotFoundError, NotADirectoryError):
            return False
        except OSError as exc:
            self.walk_errors[folder] = exc.strerror or str(exc)
            return True
        return False

    def walk_error(self, name: str) -> str | None:
        return self.walk_errors.get(name)

    def opener(self) -> Opener:
        return DirectoryOpener(self.root)

    def walk_apart(self, folders: list[str], ways: int = 1) -> PendingWalk:
        jobs: list[Job] = [((folder,), frozenset()) for folder in folders]
        split = _split(self, folders, min(ways, _MOST_WAYS)) if ways > 1 else None
        if split is None:
            return _ChildWalk(self, jobs)
        return _SplitWalk(self, folders, *split)

    def _subfolders(self, folder: str) -> list[str]:
        """The folders in ``folder`` (no link followed), sorted; none if it cannot be
        listed (the walk that lists it again says why)."""
        above = f"{folder}/" if folder else ""
        try:
            with os.scandir(self._full(folder)) as it:
                return sorted(above + e.name for e in it if e.is_dir(follow_symlinks=False))
        except OSError:
            return []

    def locate(self, name: str) -> Any:
        return name

    def size_hint(self, name: str) -> int:
        # each size is dropped as it is used: the walk's child sent its own copy of every
        # name, which is not held to the end of the run. A file asked for again (a small
        # archive's tasks, made once to choose the executor and once for the map) is looked
        # up afresh: a hint for batching and the executor's choice, never a verdict
        size = self._sizes.pop(name, None)
        if size is not None:
            return size
        if self._unsized and name.startswith(self._unsized):
            return 0  # walked without sizes: unknown, not looked up one by one
        try:
            return os.lstat(self._full(name)).st_size
        except OSError:
            return 0

    def open(self, name: str) -> Stream:
        fd, _ = open_regular(self._full(name))
        try:
            return os.fdopen(fd, "rb", buffering=0)
        except BaseException:
            os.close(fd)
            raise


#: folders walked one after the other as one, and the folders in them not to go into
Job = tuple[tuple[str, ...], frozenset[str]]
_MOST_WAYS = 16  # walking children at most (the kernel's listings gain nothing beyond)
_SPLIT_LEVELS = 4  # how deep the folders a walk is split at are looked for
_SPLIT_LISTINGS = 64  # folders listed here, at most, to find them
_PER_WAY = 4  # folders to split at, at least, for each child (to even out their work)


def _split(
    source: DirectorySource, folders: list[str], ways: int
) -> tuple[list[list[Job]], list[list[tuple[int, int]]]] | None:
    """Each of ``folders`` split between ``ways`` children: the first level of its
    subfolders (no deeper than :data:`_SPLIT_LEVELS`) that holds at least
    :data:`_PER_WAY` folders a child, found by listing at most :data:`_SPLIT_LISTINGS`
    folders here. The first child walks each folder without going into them, and each
    child walks every ``ways``-th of them whole, as one job. Returns each child's jobs,
    and for each of ``folders`` the (child, job) walks that make up its walk, in order;
    ``None`` where no folder splits (one child walks them all)."""
    shares: list[list[Job]] = [[] for _ in range(ways)]
    layout: list[list[tuple[int, int]]] = []
    listings, split = 0, False
    for folder in folders:
        level, found = [folder], []
        for _ in range(_SPLIT_LEVELS):
            if listings + len(level) > _SPLIT_LISTINGS:
                break
            listings += len(level)
            below = [sub for each in level for sub in source._subfolders(each)]
            if len(below) >= ways * _PER_WAY:
                found = below
                break
            level = below
        layout.append([(0, len(shares[0]))])
        shares[0].append(((folder,), frozenset(found)))
        for child in range(ways) if found else ():
            layout[-1].append((child, len(shares[child])))
            shares[child].append((tuple(found[(child + 1) % ways :: ways]), frozenset()))
        split = split or bool(found)
    return (shares, layout) if split else None


class _Taken(PendingWalk):
    """A walk apart whose result is its walks, each read whole."""

    def result(self) -> list[list[tuple[str, Kind]]]:
        try:
            return [list(walk) for walk in self.walks()]
        finally:
            self.close()

    @abc.abstractmethod
    def walks(self) -> list[Iterable[tuple[str, Kind]]]:
        """Each folder's walk, to be read once, in order, before :meth:`close`."""


class _SplitWalk(_Taken):
    """:meth:`DirectorySource.walk` of some folders, split between children
    (:class:`_ChildWalk`, each walking its jobs: :func:`_split`), each folder's walk
    made up again from their parts. The same entries as one walk (each once: the first
    child does not go into the folders the others walk), in another order, which no
    reduction of a walk depends on."""

    def __init__(
        self,
        source: DirectorySource,
        folders: list[str],
        shares: list[list[Job]],
        layout: list[list[tuple[int, int]]],
    ) -> None:
        self.folders = list(folders)
        self.layout = layout
        self.children = [_ChildWalk(source, jobs) for jobs in shares]

    def files_met(self) -> Iterator[str]:
        """The names each child has met as regular files, taken from each in turn as it
        writes them."""
        going = [child.met() for child in self.children]
        while going:
            moved = False
            for met in list(going):
                for name in met:
                    if name is None:  # (nothing more yet)
                        break
                    moved = True
                    yield name
                else:
                    going.remove(met)
                    moved = True
            if not moved:
                time.sleep(_POLL)

    def walks(self) -> list[Iterable[tuple[str, Kind]]]:
        parts = [child.walks() for child in self.children]
        return [
            itertools.chain.from_iterable(parts[child][job] for child, job in each)
            for each in self.layout
        ]

    def close(self) -> None:
        for child in self.children:
            child.close()


class _ChildWalk(_Taken):
    """:meth:`DirectorySource.walk` of some folders, run by a child process (a fresh
    interpreter running :func:`walk_child`, as a processes executor's worker is started:
    nothing of this process is inherited) while this one goes on. The child writes to its
    standard output each folder's (name, kind) entries, a part at a time as it walks, then
    the walk errors it learnt (it takes no sizes). Anything wrong with the child (it could
    not start, died, or wrote something else) and the folders are walked here instead.

    Its output goes to an unnamed temporary file, not a pipe: the child ends as soon as it
    has written, rather than wait, holding its walk, until this process asks for the result
    (at 100,000 records, 35 MB held beside the spec's parse)."""

    def __init__(self, source: DirectorySource, jobs: list[Job]) -> None:
        self.source = source
        self.jobs = list(jobs)
        self._read: list[Any] = []  # the parts files_met read, and where it stopped
        self._offset = 0
        # the child takes no sizes (walk_child): none is looked up one by one meanwhile,
        # for a task made as the walk goes (a hint; a walk here after all takes its own)
        source._unsized += tuple(
            f"{folder}/" if folder else "" for starts, _ in self.jobs for folder in starts
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None
        try:
            # (imported here: a worker, which reads through this module's opener, does not
            # import it, nor what it imports: 0.7 MB of each worker)
            import tempfile

            from verifier.execute.processes import start_python

            self._out = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close/result)
            self.proc = start_python(
                "verifier.sources.directory:walk_child",
                stdin=subprocess.PIPE,
                stdout=self._out,
                stderr=subprocess.DEVNULL,
            )
            assert self.proc.stdin is not None
            self.proc.stdin.write(pickle.dumps((source.root, self.jobs)))
            self.proc.stdin.close()
        except (OSError, ValueError):
            self.close()

    def files_met(self) -> Iterator[str]:
        for name in self.met():
            if name is None:
                time.sleep(_POLL)
            else:
                yield name

    def met(self) -> Iterator[str | None]:
        """The names the child has met as regular files, read from its output as it writes
        it (each part is framed and flushed whole; read at an offset of its own, which
        leaves the file's position to :meth:`result`), ``None`` each time there is no new
        part yet. Stops at the end of the walk, or at anything that is not a whole part
        when the child has ended (:meth:`result` then decides, and walks here if it
        must). What it reads is kept for the result, which reads on from there."""
        proc, out = self.proc, self._out
        pread = getattr(os, "pread", None)
        if proc is None or out is None or pread is None or self._read:
            return
        fd = out.fileno()
        offset = 0
        file = Kind.FILE
        while True:
            try:
                frame = _frame_at(pread, fd, offset)
                if frame is None and proc.poll() is None:
                    yield None
                    continue
                if frame is None:
                    frame = _frame_at(pread, fd, offset)  # (written just before it ended)
                if frame is None:
                    return
                size, record = frame
                offset += size
                got = pickle.loads(record)
                what, _, entries = got
            except Exception:  # not our child's writing: the result decides
                return
            self._read.append(got)
            self._offset = offset
            if what != "part" or not isinstance(entries, list):
                return
            for entry in entries:
                if type(entry) is tuple and len(entry) == 2 and entry[1] is file:
                    yield entry[0]

    def walks(self) -> list[Iterable[tuple[str, Kind]]]:
        proc, self.proc = self.proc, None
        out = self._out
        got: tuple[list[list[Any]], dict[str, str]] | None = None
        if proc is not None and out is not None:
            try:
                if proc.wait() == 0:
                    out.seek(self._offset)
                    got = _read_walk(out, len(self.jobs), self._read)
            except Exception:  # anything at all: walk here instead
                got = None
            finally:
                _stop(proc)
        source = self.source
        if got is None or out is None:
            self.close()
            return [
                [entry for folder in starts for entry in source.walk(folder, skip)]
                for starts, skip in self.jobs
            ]
        parts, errors = got
        source.walk_errors.update(errors)
        # each folder's parts read again from the output, one at a time, as the walk is
        # taken (the output is closed by close(), once it is)
        return [_entries(out, each) for each in parts]

    def close(self) -> None:
        proc, self.proc = self.proc, None
        out, self._out = self._out, None
        if proc is not None:
            _stop(proc)
        if out is not None:
            out.close()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    proc.wait()


_WALK_PART = 4096  # entries per part the walk's child writes
_HEAD = 8  # each part's length, before it (little-endian)
_LONGEST = 1 << 30  # a part's longest pickle (4,096 names of at most 4,096 bytes: 16 MiB)
_POLL = 0.002  # seconds between looks at a walk's output that has no new part yet


def _frame_at(pread: Any, fd: int, offset: int) -> tuple[int, bytes] | None:
    """The part written at ``offset`` of the walk's output (its length with the head, and
    its pickle), or ``None`` if it is not all there yet."""
    head = pread(fd, _HEAD, offset)
    if len(head) < _HEAD:
        return None
    length = int.from_bytes(head, "little")
    if length > _LONGEST:
        raise ValueError("not a part of a walk")
    record = pread(fd, length, offset + _HEAD)
    if len(record) < length:
        return None
    return _HEAD + length, record


def _write_part(out: IO[bytes], record: tuple[Any, ...]) -> None:
    data = pickle.dumps(record, pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(_HEAD, "little") + data)
    out.flush()  # whole, so the parent may read it as the walk goes on


def _read_walk(
    out: IO[bytes], folders: int, read: list[Any] | None = None
) -> tuple[list[list[Any]], dict[str, str]] | None:
    """The walk :func:`walk_child` wrote to ``out`` (our own child's, never the archive's),
    checked whole: each folder's parts, then the walk's errors; ``None`` unless it is all
    there, in that form. Each part is checked and let go, and kept as where it is in
    ``out`` (its offset and length), for :func:`_entries` to read again as the walk is
    taken: the whole walk's objects at once (100,000 names, each in a tuple: 16 MB) left
    the allocator's arenas held by this process after they were let go. ``read``: its first
    parts, already read (``out`` is then just after them; they are kept as they are)."""
    walks: list[list[Any]] = [[] for _ in range(folders)]
    for where, (what, index, part) in _records(out, read or []):
        if what == "end":  # (index: how many folders it walked; part: the errors)
            return (walks, part) if index == folders and isinstance(part, dict) else None
        if not (what == "part" and type(index) is int and 0 <= index < folders):
            return None
        if not isinstance(part, list):
            return None
        walks[index].append(where if where is not None else part)
        del part  # (let go before the next part is read)
    return None  # (no end)


def _records(out: IO[bytes], read: list[Any]) -> Iterator[tuple[tuple[int, int] | None, Any]]:
    """Each record of the walk's output, with where it is in ``out`` (``None`` for those
    in ``read``)."""
    for record in read:
        yield None, record
    while True:
        head = out.read(_HEAD)
        length = int.from_bytes(head, "little")
        if len(head) < _HEAD or length > _LONGEST:
            return
        at = out.tell()
        data = out.read(length)
        if len(data) < length:
            return
        record = pickle.loads(data)
        del data
        yield (at, length), record
        del record


def _entries(out: IO[bytes], parts: list[Any]) -> Iterator[tuple[str, Kind]]:
    """A folder's walk from the parts :func:`_read_walk` checked, one part at a time: read
    again where it is in ``out``, or as it was read already."""
    for part in parts:
        if type(part) is tuple:
            at, length = part
            out.seek(at)
            yield from pickle.loads(out.read(length))[2]
        else:
            yield from part


def walk_child() -> None:
    """The child of :class:`_ChildWalk`: read (root, jobs) from standard input, walk each
    job's folder as :meth:`DirectorySource.walk` does, write the pickle to standard
    output."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the parent's to handle
    root, jobs = pickle.loads(sys.stdin.buffer.read())
    source = DirectorySource(root, sizes=False)
    out = sys.stdout.buffer
    # written in parts as it goes, never held whole (at 100,000 records the whole walk was
    # 25 MB, held while the parent parsed and validated the spec, the run's peak)
    for index, (starts, skip) in enumerate(jobs):
        part: list[tuple[str, Kind]] = []
        for entry in (e for folder in starts for e in source.walk(folder, skip)):
            part.append(entry)
            if len(part) == _WALK_PART:
                _write_part(out, ("part", index, part))
                part = []
        _write_part(out, ("part", index, part))
    _write_part(out, ("end", len(jobs), source.walk_errors))
    # written and flushed: end now, without freeing the walk object by object (the parent
    # waits for this exit before it reads the result)
    os._exit(0)


class DirectoryOpener(Opener):
    def __init__(self, root: str) -> None:
        self.root = root

    def _full(self, name: str) -> str:
        return self.root + os.sep + (name if os.sep == "/" else name.replace("/", os.sep))

    def open(self, name: str, where: Any) -> Stream:
        fd, _ = open_regular(self._full(name))
        try:
            return os.fdopen(fd, "rb", buffering=0)
        except BaseException:
            os.close(fd)
            raise

    def read_whole(self, name: str, where: Any) -> bytes:
        return read_regular(self._full(name), sys.maxsize)

    def read_small(self, name: str, where: Any, limit: int) -> bytes | None:
        return read_if_small(self._full(name), limit)


def probe(location: str, rev: str | None, by: By, limits: object) -> Source | None:
    """The registry's probe (:mod:`verifier.sources.registry`): every folder is read as one."""
    return DirectorySource(location) if by is By.FOLDER else None


__all__ = ["DirectorySource", "SourceError", "probe"]
