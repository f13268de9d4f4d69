"""The interface every source of archive files implements.

A source answers three questions about names relative to the archive root: what kind of
thing is there (without following links), which entries lie under a folder, and what are the
bytes of a regular file, as a stream. Folders, zip files, tarballs, git commits and BagIt bags
implement the same interface; the integrity stage only ever talks to it.

Beyond the three questions a source may report what its safety policy refused
(:meth:`Source.findings`), say what it is (:meth:`Source.identity`, for the audit record),
name a different layout (:meth:`Source.layout`, a bag's manifests and payload folder) and help
explain a digest that does not match (:meth:`Source.older_version`, git history).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from io import BufferedIOBase, RawIOBase
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from verifier.findings import Finding
    from verifier.plan.manifest import ParsedManifest
    from verifier.report import FileEntry

Stream = RawIOBase | BufferedIOBase


class Kind(StrEnum):
    FILE = "file"
    MISSING = "missing"
    DIRECTORY = "directory"
    LINK = "link"  # the name, or a folder on its way, is a symbolic link (or a hard link member)
    OTHER = "other"  # device, FIFO, socket, git submodule
    REFUSED = "refused"  # refused by the safety policy (reported by Source.findings)
    UNREADABLE = "unreadable"  # walk only: a folder that could not be listed (or looked at)


class SourceError(Exception):
    """The source as a whole cannot be read (the run cannot go on)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a source keeps its manifests and its records.

    ``manifest`` is the default manifest (a name inside the source); ``tag_manifests`` are
    further manifests checked with no scope for unlisted files (a bag's tag manifest);
    ``content_root`` is the folder the records, schemas and assertion spec are relative to
    (a bag's ``data``); ``preread`` names files the layout itself parses (``bagit.txt``),
    read once and hashed from the same bytes if a manifest lists them; ``payload``, when set,
    is the fixed scope for unlisted files (and a manifest listing nothing is then valid);
    ``percent_encoded_names``: manifest names encode CR, LF and ``%`` as ``%0D``, ``%0A``,
    ``%25`` (BagIt). ``payload_manifests`` are further manifests over the same files as
    ``manifest``, with its scope (a bag's manifests for other algorithms); ``algorithms``
    gives each manifest's hashlib algorithm (SHA-256 when not named).
    """

    manifest: str = "manifest.sha256"
    payload_manifests: tuple[str, ...] = ()
    tag_manifests: tuple[str, ...] = ()
    content_root: str = ""
    preread: tuple[str, ...] = ()
    payload: str | None = None
    percent_encoded_names: bool = False
    algorithms: Mapping[str, str] = field(default_factory=dict)

    def algorithm(self, manifest: str) -> str:
        return self.algorithms.get(manifest, "sha256")


class Opener(abc.ABC):
    """Opens the files of one source by their tasks' specs. Picklable; what it caches (a zip's
    central directory) is its own, built on first use in whichever process uses it."""

    @abc.abstractmethod
    def open(self, name: str, where: Any) -> Stream:
        """A binary stream of the file ``name`` (``where``: its spec). Raises ``OSError``."""

    def read_whole(self, name: str, where: Any) -> bytes | None:
        """The file's bytes in as few calls as its size allows, or ``None`` if this opener
        only streams. Raises ``OSError``."""
        return None

    def close(self) -> None:  # noqa: B027 (a folder's opener holds nothing)
        """Close what the opener opened in this process."""


class Source(abc.ABC):
    """Read-only access to the files of an archive."""

    #: a short human description, e.g. the folder's path
    description: str
    #: the family member: directory, zip, tar, git, bag
    name: str = "source"

    @abc.abstractmethod
    def kind(self, name: str) -> Kind:
        """What ``name`` (a normalised relative path) is, following no link."""

    @abc.abstractmethod
    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        """Every entry below ``folder`` ("" for the root), recursively, as relative paths.

        Links are reported as :attr:`Kind.LINK` and not followed; folders are not reported,
        except a folder that could not be listed (permissions, a path too long for the system),
        as :attr:`Kind.UNREADABLE`: what it holds is unknown, never silently nothing.
        """

    @abc.abstractmethod
    def open(self, name: str) -> Stream:
        """A binary stream of a regular file. Raises ``OSError`` if it cannot be read."""

    def walk_error(self, name: str) -> str | None:
        """Why the walk met ``name`` as :attr:`Kind.UNREADABLE`, if the source knows."""
        return None

    def parallel_reads(self) -> bool:
        """Whether files can be opened independently by forked worker processes (a folder
        can; a streamed tarball or a git pipe cannot)."""
        return False

    def size_hint(self, name: str) -> int:
        """The size of a file if cheaply known (to balance work between processes), else 0."""
        return 0

    def opener(self) -> Opener | None:
        """How a worker opens this source's files itself (picklable; see
        :mod:`verifier.sources.openers`), or ``None``: they are read here, in one pass."""
        return None

    def locate(self, name: str) -> Any:
        """The per-file spec a task carries for :meth:`opener`'s ``open`` (picklable)."""
        return name

    def read_many(self, names: Iterable[str]) -> Iterator[tuple[str, Stream | OSError]]:
        """Streams of several regular files, in the order that suits the source (a tarball
        yields them in archive order, in one pass). A file that cannot be opened comes with
        the ``OSError``; each stream must be read (or closed) before the next is asked for."""
        for name in sorted(set(names)):
            try:
                yield name, self.open(name)
            except OSError as exc:
                yield name, exc

    def findings(self) -> list[Finding]:
        """What the safety policy refused (``source.*`` findings), and anything else the source
        itself found (a git blob that does not hash to its id). Complete once read."""
        return []

    def complete(self) -> bool:
        """False when the source was not read to its end (a limit, or damage)."""
        return True

    def identity(self) -> dict[str, Any]:
        """What was verified, for the audit record: kind, location, digest or commit."""
        return {"kind": self.name, "location": self.description}

    def details(self, name: str) -> dict[str, str]:
        """Source-specific facts about one file for the audit record (a git blob id)."""
        return {}

    def layout(self) -> Layout:
        """Where this source keeps its manifest and records."""
        return Layout()

    def take_layout_files(self, preread: dict[str, bytes]) -> None:  # noqa: B027
        """The bytes of the layout's ``preread`` files, as read once, before any manifest is
        parsed (a bag learns its tag files' encoding and its ``fetch.txt`` here)."""

    def parse_manifest(self, name: str, data: bytes) -> ParsedManifest | None:
        """The lines of one of the layout's manifests, when this source parses them itself (a
        bag's, in its declared encoding); ``None``: a ``sha256sum`` manifest."""
        return None

    def payload_in_every_manifest(self) -> bool:
        """Whether every file in the scope must be in every payload manifest (BagIt 1.0), or
        in at least one (BagIt before 1.0). Asked after :meth:`take_layout_files`."""
        return True

    def explain_missing(self, name: str, line: int) -> Finding | None:
        """The finding for a listed file that is absent, when the source knows why (a bag's
        ``fetch.txt`` names it: not fetched, offline); ``None``: plainly missing."""
        return None

    def check_layout(self, preread: dict[str, bytes], files: list[FileEntry]) -> list[Finding]:
        """Findings about the layout's own files (a bag's declaration and Payload-Oxum)."""
        return []

    def older_version(self, name: str, sha256: str) -> str | None:
        """If ``name`` held bytes with this SHA-256 in the source's history, say where."""
        return None

    def close(self) -> None:  # noqa: B027 (most sources hold nothing open)
        """Release whatever the source holds open (a file, a git process)."""

    def __enter__(self) -> Source:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
