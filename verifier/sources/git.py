"""A git commit, read from git's object database with the ``git`` program: no checkout, no
working tree, nothing written (``GIT_OPTIONAL_LOCKS=0``), no network (``protocol.allow=never``
and no lazy fetching), no replace objects (the commit's own objects, not substitutes).

The tree is listed once (``git ls-tree -r -z -l``) and admitted by the safety policy; file
bytes are streamed from one ``git cat-file --batch`` process. While a blob streams through, its
git object id is recomputed (SHA-1 or SHA-256, the repository's object format) and compared
with the id the tree records: a difference is a ``manifest.git-blob-mismatch`` finding.

The standard library has no git reader, and the project takes no runtime dependency for one:
the ``git`` program is what anyone auditing a git commit already has. Every git process is
started by :mod:`verifier.sources.gitrun`, which keeps the repository's own configuration
from running anything or writing (see there).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from types import MappingProxyType
from typing import Any

from verifier.findings import Finding
from verifier.sources.capabilities import FileDetails, History, ReadChecks, SizeHints, WorkerReads
from verifier.sources.gitblobs import CHECK, BlobStream, CatFile, GitOpener, size_problem
from verifier.sources.gitrun import (
    PROBE_TIMEOUT,
    GitError,
    commit_summary,
    git_program,
    run_git,
)
from verifier.sources.indexed import IndexedSource
from verifier.sources.interface import By, Opener, SourceError, Stream
from verifier.sources.registry import missing
from verifier.sources.safety import EntryType, IndexBuilder, Limits

MAX_HISTORY = 64  # commits looked at per path for a stale-manifest hint
MAX_HISTORY_PATHS = 200  # paths whose history is searched in one run
MAX_COMMIT_BYTES = 1 << 16  # of a commit object read for its date and subject
_TYPES = MappingProxyType(
    {
        "100644": EntryType.FILE,
        "100755": EntryType.FILE,
        "100664": EntryType.FILE,
        "120000": EntryType.SYMLINK,
        "160000": EntryType.OTHER,
    }
)


class GitSource(CatFile, IndexedSource, WorkerReads, SizeHints, ReadChecks, History, FileDetails):
    """The tree of one commit of a local git repository."""

    name = "git"

    def __init__(self, repo: str, rev: str, limits: Limits | None = None) -> None:
        self.repo = repo
        self.rev = rev
        self.description = f"{repo}@{rev}"
        limits = limits or Limits()
        self._proc: subprocess.Popen[bytes] | None = None
        self._broken = False
        self._mismatches: list[Finding] = []
        self.confirmed = 0
        self._histories = 0
        try:
            git_program()
        except GitError as exc:
            raise SourceError(str(exc)) from None
        if not os.path.isdir(repo):
            if os.path.isfile(repo):
                raise SourceError(f"{repo} is a file, not a git repository")
            raise SourceError(missing(repo))
        out = self._git(
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{rev}^{{commit}}",
            timeout=PROBE_TIMEOUT,
        )
        if out is None:
            raise SourceError(self._no_commit(repo, rev))
        self.commit = out.decode("ascii").strip()
        fmt = self._git("rev-parse", "--show-object-format")
        self.object_format = fmt.decode("ascii").strip() if fmt else "sha1"
        if self.object_format not in ("sha1", "sha256"):
            raise SourceError(f"unknown git object format {self.object_format}")
        tree = self._git("rev-parse", f"{self.commit}^{{tree}}")
        self.tree = tree.decode("ascii").strip() if tree else ""
        listing = self._git("ls-tree", "-r", "-z", "-l", "--full-tree", self.commit)
        if listing is None:
            raise SourceError(f"cannot list the tree of {self.commit} in {repo}")
        builder = IndexBuilder(limits)
        for record in listing.split(b"\0"):
            if not record:
                continue
            meta, _, raw = record.partition(b"\t")
            mode, _kind, oid, size = meta.split()
            etype = _TYPES.get(mode.decode("ascii"), EntryType.OTHER)
            name = raw.decode("utf-8", "surrogateescape")
            length = int(size) if size.isdigit() else 0
            if not builder.add(name, etype, length, (oid.decode("ascii"), length)):
                break
        self.index = builder.finish()

    def _no_commit(self, repo: str, rev: str) -> str:
        """Why ``rev`` names no commit: the folder is no repository (git looks for none above
        it), the repository has no commit yet, or ``rev`` is not one of its commits."""
        if self._git("rev-parse", "--git-dir", timeout=PROBE_TIMEOUT) is None:
            return (
                f"{repo} is not a git repository (give the folder that holds .git, or a bare "
                "repository)"
            )
        head = self._git("rev-parse", "--verify", "--quiet", "HEAD", timeout=PROBE_TIMEOUT)
        if head is None and self._git("for-each-ref", "--count=1", timeout=PROBE_TIMEOUT) == b"":
            return f"the git repository {repo} has no commits yet"
        return f"{rev} is not a commit of the git repository {repo}"

    # -- git processes -------------------------------------------------------------------

    def _git(self, *args: str | bytes, timeout: float | None = None) -> bytes | None:
        try:
            if timeout is None:
                return run_git(self.repo, *args)
            return run_git(self.repo, *args, timeout=timeout)
        except GitError as exc:
            raise SourceError(str(exc)) from None

    def _request(self, name: str, kind: bytes = b"blob") -> tuple[str, int]:
        """Ask the batch process for an object of this kind; returns its id and size (its
        content follows on the batch process's output)."""
        if self._broken:
            raise OSError("git cat-file is no longer usable")
        proc = self._batch()
        assert proc.stdin is not None
        try:
            proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            proc.stdin.flush()
            header = self._stdout().readline()
        except OSError as exc:
            self._broken = True
            raise OSError(f"git cat-file failed: {exc}") from None
        parts = header.split()
        if len(parts) != 3 or parts[1] != kind or not parts[2].isdigit():
            if not header:
                self._broken = True
            elif len(parts) == 3 and parts[2].isdigit():
                self._skip(int(parts[2]))  # another kind of object: its content follows
            what = kind.decode("ascii")
            raise OSError(f"git has no {what} for it ({header.decode('ascii', 'replace').strip()})")
        return parts[0].decode("ascii"), int(parts[2])

    def _skip(self, size: int) -> None:
        """Read past ``size`` more bytes of an object's content and the LF after it."""
        out = self._stdout()
        while size > 0:
            chunk = out.read(min(size, 1 << 16))
            if not chunk:
                self._broken = True
                return
            size -= len(chunk)
        out.read(1)

    def _confirm(self, name: str, oid: str, computed: str) -> None:
        if computed == oid:
            self.confirmed += 1
            return
        self._mismatches.append(
            Finding(
                "manifest.git-blob-mismatch",
                name,
                f"Its bytes hash to the git object id {computed}, but the commit records "
                f"{oid}: git's object store is damaged or was altered.",
            )
        )

    # -- the Source interface ------------------------------------------------------------

    def open(self, name: str) -> Stream:
        oid, listed = self.entry(name).ref
        _, size = self._request(oid)
        if size != listed:  # as a worker's opener refuses it: never more than was admitted
            self.close()  # its content is not read: the next request starts a new process
            raise OSError(size_problem(size, listed))
        return BlobStream(
            self, size, self.object_format, lambda computed: self._confirm(name, oid, computed)
        )

    def opener(self) -> Opener:
        """A worker reads blobs by id from a ``git cat-file`` process of its own
        (:mod:`verifier.sources.gitblobs`), under the same rules as this process's."""
        return GitOpener(os.path.abspath(self.repo), self.object_format)

    def locate(self, name: str) -> Any:
        oid, size = self.entry(name).ref
        return (oid, size)

    def size_hint(self, name: str) -> int:
        entry = self.index.entries.get(name)
        return int(entry.ref[1]) if entry is not None and entry.ref else 0

    def take_checks(self, name: str, checks: tuple[tuple[str, str], ...]) -> None:
        """The object id a worker's opener recomputed from the bytes it read: compared with
        the tree's as this process compares its own reads (the same finding, the same count
        of blobs confirmed). A worker's read that brought none back is a finding too."""
        computed = dict(checks).get(CHECK)
        oid = self.entry(name).ref[0]
        if computed is None:
            self._mismatches.append(
                Finding(
                    "manifest.git-blob-mismatch",
                    name,
                    f"Its bytes were read by a worker that did not confirm them against the "
                    f"git object id {oid} the commit records; verify again.",
                )
            )
            return
        self._confirm(name, oid, computed)

    def findings(self) -> list[Finding]:
        return [*super().findings(), *self._mismatches]

    def details(self, name: str) -> dict[str, str]:
        entry = self.index.entries.get(name)
        return {"gitBlob": entry.ref[0]} if entry is not None and entry.ref else {}

    def identity(self) -> dict[str, Any]:
        return {
            **super().identity(),
            "location": self.repo,
            "rev": self.rev,
            "commit": self.commit,
            "tree": self.tree,
            "objectFormat": self.object_format,
            "blobsConfirmed": self.confirmed,
        }

    def older_version(self, name: str, sha256: str) -> str | None:
        """The newest older commit at which ``name`` had bytes with this SHA-256."""
        if "\n" in name or self._histories >= MAX_HISTORY_PATHS:
            return None
        self._histories += 1
        try:
            listing = self._git(
                "rev-list",
                f"--max-count={MAX_HISTORY}",
                self.commit,
                "--",
                name.encode("utf-8", "surrogateescape"),
            )
        except SourceError:  # git did not answer in time: no hint
            return None
        if not listing:
            return None
        seen: set[str] = set()
        current = self.index.entries.get(name)
        if current is not None and current.ref:
            seen.add(current.ref[0])
        for commit in listing.decode("ascii").split():
            try:
                oid, size = self._request(f"{commit}:{name}")
            except OSError:
                continue
            digest = hashlib.sha256()
            left = size
            out = self._stdout()
            while left > 0:
                chunk = out.read(min(left, 1 << 16))
                if not chunk:
                    self._broken = True
                    return None
                digest.update(chunk)
                left -= len(chunk)
            out.read(1)
            if oid in seen:
                continue
            seen.add(oid)
            if digest.hexdigest() == sha256:
                return self._describe(commit)
        return None

    def _describe(self, commit: str) -> str:
        """The commit, its date and subject, parsed from its object (never ``git log``: it
        would read the repository's display and signature settings)."""
        try:
            _, size = self._request(commit, b"commit")
        except OSError:
            return f"commit {commit}"
        body = self._stdout().read(min(size, MAX_COMMIT_BYTES))
        self._skip(size - len(body))  # the rest of the object, and the LF after it
        date, subject = commit_summary(body)
        if not date:
            return f"commit {commit}"
        return f'commit {commit} ({date}, "{subject}")'

    def close(self) -> None:
        if self._proc is not None:
            for pipe in (self._proc.stdin, self._proc.stdout):
                if pipe is not None:
                    pipe.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None


def split_location(location: str) -> tuple[str, str] | None:
    """``REPO@REV`` as (repo, rev), if some prefix before an ``@`` is a directory."""
    at = location.find("@")
    while at > 0:
        repo, rev = location[:at], location[at + 1 :]
        if rev and os.path.isdir(repo):
            return repo, rev
        at = location.find("@", at + 1)
    return None


def probe(location: str, rev: str | None, by: By, limits: Limits) -> GitSource | None:
    """The registry's probe (:mod:`verifier.sources.registry`): the location with ``--rev``
    given, and ``REPO@REV`` where the part before an ``@`` is a folder."""
    if by is By.REV and rev is not None:
        return GitSource(location, rev, limits)
    split = split_location(location) if by is By.SPELLING else None
    return None if split is None else GitSource(split[0], split[1], limits)
