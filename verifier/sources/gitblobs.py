"""How a worker reads a git commit's files itself: by blob id, from its own
``git cat-file --batch`` process, started by :func:`verifier.sources.gitrun.start_batch`
exactly as the main process starts its own (the same fixed argv and overrides, the
environment built from nothing: nothing of the audited repository's configuration can run a
program, no filter or textconv, no hook, no network).

A task carries the blob's id and the size the commit's tree records; the worker asks git for
that id, refuses an answer that is not a blob of that size (so it never reads more than the
safety policy admitted), reads exactly that many bytes and recomputes the git object id as
they pass (``blob SIZE\\0`` then the bytes, in the repository's object format). The id it
computed goes back with the file's facts (:meth:`GitOpener.checked`); the main process
compares it with the tree's (``GitSource.take_checks``), so a mismatch is the same
``manifest.git-blob-mismatch`` finding whichever executor read the file, as a tar opener's
stamp ties a worker's read to the index pass.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
from collections.abc import Callable
from typing import IO, Any, Protocol

from verifier.sources.gitrun import start_batch
from verifier.sources.interface import Opener, Stream

#: the longest header line ``cat-file --batch`` writes (an id, a type, a size): read bounded
MAX_HEADER = 256
#: the name the recomputed object id is carried under in a file's checks
CHECK = "gitBlob"


def request_blob(stdin: IO[bytes], stdout: IO[bytes], oid: str, size: int) -> tuple[str, int] | str:
    """Ask a batch process for blob ``oid`` of ``size`` bytes: its (id, size) when git
    answers with exactly that, else why not (the content, if any, left unread: the caller
    must stop using the process)."""
    stdin.write(oid.encode("ascii") + b"\n")
    stdin.flush()
    header = stdout.readline(MAX_HEADER)
    parts = header.split()
    if len(parts) != 3 or parts[1] != b"blob" or not parts[2].isdigit():
        shown = header.decode("ascii", "replace").strip()
        return f"git has no blob for it ({shown})"
    if parts[0].decode("ascii", "replace") != oid:
        return "git answered with another object than the one asked for"
    if int(parts[2]) != size:
        return size_problem(int(parts[2]), size)
    return oid, size


def size_problem(found: int, listed: int) -> str:
    return (
        f"git's blob for it holds {found} bytes, the commit's tree records {listed}: the "
        "object store changed or is damaged"
    )


class BatchReader(Protocol):
    """What a blob stream reads through: the batch process's standard output, and the flag
    that says its stream is out of step (a request stopped part way)."""

    _broken: bool

    def _stdout(self) -> IO[bytes]: ...


class CatFile:
    """What owns a ``git cat-file --batch`` process of ``repo``, started on first use."""

    repo: str
    _proc: subprocess.Popen[bytes] | None

    def _batch(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            try:
                self._proc = start_batch(self.repo)
            except OSError as exc:
                raise OSError(f"cannot run git cat-file: {exc}") from None
        return self._proc

    def _stdout(self) -> IO[bytes]:
        out = self._batch().stdout
        assert out is not None
        return out


class BlobStream(io.RawIOBase):
    """One blob's bytes from a ``git cat-file --batch`` process, its object id recomputed as
    they pass; ``done`` gets the id once the last byte (and the LF after it) is read. The main
    process's source and a worker's opener both read through it."""

    def __init__(
        self, owner: BatchReader, size: int, algorithm: str, done: Callable[[str], None]
    ) -> None:
        super().__init__()
        self._owner, self._left, self._done = owner, size, done
        self._hash = hashlib.new(algorithm)
        self._hash.update(b"blob %d\0" % size)
        if size == 0:
            self._end()

    def readable(self) -> bool:
        return True

    def _end(self) -> None:
        self._owner._stdout().read(1)  # the LF after the content
        self._done(self._hash.hexdigest())

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._left <= 0:
            return 0
        data = self._owner._stdout().read(min(len(view), self._left))
        if not data:
            self._owner._broken = True
            raise OSError("git cat-file stopped before the end of the blob")
        n = len(data)
        view[:n] = data
        self._hash.update(data)
        self._left -= n
        if self._left == 0:
            self._end()
        return n

    def close(self) -> None:
        if not self.closed and self._left > 0 and not self._owner._broken:
            out = self._owner._stdout()
            while self._left > 0:  # drain, so that the next request reads its own header
                chunk = out.read(min(self._left, 1 << 16))
                if not chunk:
                    self._owner._broken = True
                    break
                self._left -= len(chunk)
            out.read(1)
        super().close()


class GitOpener(CatFile, Opener):
    """Opens a commit's files by blob id where the worker runs. Picklable: the repository's
    path and object format cross, nothing else; the git process is the worker's own."""

    def __init__(self, repo: str, object_format: str) -> None:
        if object_format not in ("sha1", "sha256"):
            raise ValueError(f"unknown git object format {object_format}")
        self.repo = repo
        self.object_format = object_format
        self._proc: subprocess.Popen[bytes] | None = None
        self._broken = False
        self._computed: dict[str, str] = {}  # name -> the object id its bytes hash to

    def __getstate__(self) -> dict[str, Any]:
        return {"repo": self.repo, "object_format": self.object_format}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["repo"], state["object_format"])  # type: ignore[misc]

    def open(self, name: str, where: Any) -> Stream:
        oid, size = where
        if self._broken:  # a blob's read failed half-way: start again with a new process
            self.close()
            self._broken = False
        proc = self._batch()
        assert proc.stdin is not None
        self._computed.pop(name, None)
        try:
            answer = request_blob(proc.stdin, self._stdout(), str(oid), int(size))
        except OSError as exc:
            self.close()
            raise OSError(f"git cat-file failed: {exc}") from None
        if isinstance(answer, str):
            self.close()  # what git wrote after the header is not read: the next open restarts
            raise OSError(answer)
        return BlobStream(
            self, int(size), self.object_format, lambda oid: self._computed.__setitem__(name, oid)
        )

    def checked(self, name: str) -> tuple[tuple[str, str], ...]:
        computed = self._computed.pop(name, None)
        return ((CHECK, computed),) if computed is not None else ()

    def __del__(self) -> None:  # a worker's copy: its git process ends with it
        self.close()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
