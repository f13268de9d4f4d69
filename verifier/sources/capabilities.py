"""What a source may do beyond the core (:class:`verifier.sources.interface.Source`): one
small ABC per capability. A source class inherits the ones it has; a caller asks
``source.capability(WorkerReads)`` and gets the source (or, for a bag, its container) as that
capability, or ``None``, and says what it does without it. No capability is a silent pass:

========================  ===================================  ===============================
capability                who has it                           without it
========================  ===================================  ===============================
:class:`WorkerReads`      folder, zip, uncompressed tarball,   files are read here, in one
                          git commit                           pass (the audit record says so)
:class:`SizeHints`        folder, zip, tarball, git commit     sizes count as 0 when work is
                                                               balanced; reads stay bounded
:class:`ReadChecks`       git commit (blob ids recomputed      a worker's opener that checked
                          by the workers)                      something is an error
:class:`History`          git commit                           no older-version hint
:class:`FileDetails`      git commit (its blob ids)            no per-file details
:class:`WalkErrors`       folder                               an unlistable folder is still
                                                               a finding, without a reason
:class:`OwnLayout`        bag                                  ``manifest.sha256`` and its
                                                               ``sha256sum`` lines
:class:`WalkApart`        folder                               the scope is walked here,
                                                               before the early files
========================  ===================================  ===============================
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

from verifier.sources.interface import Kind, Layout, Opener, Source

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from verifier.findings import Finding
    from verifier.manifest import ParsedManifest
    from verifier.report import FileEntry


class WorkerReads(abc.ABC):
    """Workers (other processes, other machines) open this source's files themselves."""

    @abc.abstractmethod
    def opener(self) -> Opener:
        """How a worker opens this source's files (picklable; see
        :mod:`verifier.sources.openers`)."""

    @abc.abstractmethod
    def locate(self, name: str) -> Any:
        """The per-file spec a task carries for the opener's ``open`` (picklable)."""


class SizeHints(abc.ABC):
    @abc.abstractmethod
    def size_hint(self, name: str) -> int:
        """The size of a file if cheaply known (to balance work between processes), else 0."""


class ReadChecks(abc.ABC):
    """What a worker's opener verified of the bytes it read comes back to the source (a git
    blob's object id, recomputed where it was read), to be judged here as this process's own
    reads are."""

    @abc.abstractmethod
    def take_checks(self, name: str, checks: tuple[tuple[str, str], ...]) -> None:
        """The checks (:meth:`Opener.checked`) of ``name``, read without error by a worker."""


class History(abc.ABC):
    @abc.abstractmethod
    def older_version(self, name: str, sha256: str) -> str | None:
        """If ``name`` held bytes with this SHA-256 in the source's history, say where."""


class FileDetails(abc.ABC):
    @abc.abstractmethod
    def details(self, name: str) -> dict[str, str]:
        """Source-specific facts about one file for the audit record (a git blob id)."""


class WalkErrors(abc.ABC):
    @abc.abstractmethod
    def walk_error(self, name: str) -> str | None:
        """Why the walk met ``name`` as ``Kind.UNREADABLE``, if the source knows."""


class PendingWalk(abc.ABC):
    """A walk started in another process (:meth:`WalkApart.walk_apart`)."""

    @abc.abstractmethod
    def result(self) -> list[list[tuple[str, Kind]]]:
        """Wait for the walk: for each folder, what :meth:`Source.walk` yields for it, in that
        order; the source is left as those walks would have left it (what it learnt of sizes
        and unreadable entries). If the other process could not give it, the folders are
        walked here instead: the result is the same either way."""

    def walks(self) -> list[Iterable[tuple[str, Kind]]]:
        """:meth:`result`, each folder's walk to be read once, in order, before
        :meth:`close`: a walk apart may give its entries as they are read rather than all
        at once (the result's lists, by default)."""
        return list(self.result())

    @abc.abstractmethod
    def close(self) -> None:
        """Stop the walk if its result was not taken (the run ended first)."""

    def files_met(self) -> Iterator[str]:
        """While the walk goes, before :meth:`result`: names it has met as regular files
        (reached through real folders: a walk never follows a link), each once, in the
        order met; it may stop early, and gives none where the other process's progress
        cannot be read as it goes (the default). The result is still the walk's word."""
        return iter(())


class WalkApart(abc.ABC):
    """The scope's walk can run in another process while this one reads and plans the early
    files (a folder's: its walk is mostly the kernel's listings and ``lstat`` calls, which
    a thread of this process could not overlap with parsing)."""

    @abc.abstractmethod
    def walk_apart(self, folders: list[str], ways: int = 1) -> PendingWalk:
        """Start walking ``folders`` elsewhere, split between up to ``ways`` processes
        where the source can split it."""


class OwnLayout(abc.ABC):
    """A layout other than one ``sha256sum`` manifest at the root (a bag's)."""

    @abc.abstractmethod
    def layout(self) -> Layout:
        """Where this source keeps its manifests and records."""

    @abc.abstractmethod
    def take_layout_files(self, preread: dict[str, bytes]) -> None:
        """The bytes of the layout's ``preread`` files, as read once, before any manifest is
        parsed (a bag learns its tag files' encoding and its ``fetch.txt`` here)."""

    @abc.abstractmethod
    def parse_manifest(self, name: str, data: bytes) -> ParsedManifest | None:
        """The lines of one of the layout's manifests, when this source parses them itself (a
        bag's, in its declared encoding); ``None``: a ``sha256sum`` manifest."""

    @abc.abstractmethod
    def payload_in_every_manifest(self) -> bool:
        """Whether every file in the scope must be in every payload manifest (BagIt 1.0), or
        in at least one (BagIt before 1.0). Asked after :meth:`take_layout_files`."""

    @abc.abstractmethod
    def layout_rules(self, preread: dict[str, bytes]) -> LayoutRules:
        """The rules of the layout's own files (a bag's declaration, ``fetch.txt``,
        Payload-Oxum), with what they need of the source taken now: the judge applies them
        to its file entries, and they read nothing then."""


class LayoutRules(abc.ABC):
    """A layout's rules, as :meth:`OwnLayout.layout_rules` gives them: pure functions of what
    was taken from the source and of the judge's file entries."""

    @abc.abstractmethod
    def explain_missing(self, name: str, line: int) -> Finding | None:
        """The finding for a listed file that is absent, when the layout knows why (a bag's
        ``fetch.txt`` names it: not fetched, offline); ``None``: plainly missing."""

    @abc.abstractmethod
    def check(self, files: list[FileEntry]) -> list[Finding]:
        """Findings about the layout's own files (a bag's declaration and Payload-Oxum)."""


#: every capability, for the tests that hold wrappers to exposing them all
CAPABILITIES = (WorkerReads, SizeHints, ReadChecks, History, FileDetails, WalkErrors, OwnLayout)


def layout_of(source: Source) -> Layout:
    """The source's own layout, or the default one (``manifest.sha256`` at the root)."""
    own = source.capability(OwnLayout)
    return own.layout() if own is not None else Layout()
