"""The interface every source of archive files implements: a small core, and capabilities.

The core (:class:`Source`) is what every source must answer about names relative to the
archive root: what kind of thing is there (without following links), which entries lie under
a folder, the bytes of a regular file as a stream (and of several, in the order that suits
the source), what its safety policy refused and whether it was read to its end, and what it
is (its identity, in the report). Folders, zip files, tarballs, git commits and BagIt bags
all implement it.

Everything else is a capability, a small ABC a source may also implement
(:mod:`verifier.sources.capabilities`): workers opening its files themselves, size hints,
history for hints, per-file details, why a folder could not be listed, a layout of its own.
A caller asks for one with :meth:`Source.capability` and handles its absence explicitly (read
here in one pass, no hint, the default layout); a source that wraps another (a bag) exposes
the inner source's capabilities through the same method, so none is lost by forgetting to
forward it.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from io import BufferedIOBase, RawIOBase
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

if TYPE_CHECKING:
    from verifier.findings import Finding

Stream = RawIOBase | BufferedIOBase
C = TypeVar("C")


class Kind(StrEnum):
    FILE = "file"
    MISSING = "missing"
    DIRECTORY = "directory"
    LINK = "link"  # the name, or a folder on its way, is a symbolic link (or a hard link member)
    OTHER = "other"  # device, FIFO, socket, git submodule
    REFUSED = "refused"  # refused by the safety policy (reported by Source.findings)
    UNREADABLE = "unreadable"  # walk only: a folder that could not be listed (or looked at)

    @property
    def noun(self) -> str:
        """What a message calls an entry of this kind, with its article (``a directory``,
        ``a special file``): ``other`` is not a noun."""
        from verifier.findings import a_or_an

        return a_or_an(
            "special file"
            if self is Kind.OTHER
            else f"{self.value} entry"
            if self in (Kind.MISSING, Kind.REFUSED, Kind.UNREADABLE)
            else self.value
        )


class SourceError(Exception):
    """The source as a whole cannot be read (the run cannot go on)."""


class By(IntEnum):
    """What a location is recognised by, in the order the steps are taken (one per kind of
    location: ``--rev`` given, a folder, a file, neither). At each step the source kinds that
    say they are recognised that way are asked in the registry's order
    (:data:`verifier.sources.registry.SOURCES`); the first that answers opens the source."""

    REV = 1  # --rev given: the location is a repository, nothing else is looked at
    FOLDER = 2  # a folder
    NAME = 3  # a file, by its name alone (it may not be readable)
    HEAD = 4  # a readable file, by its name or its first bytes
    BYTES = 5  # a readable file, by marks anywhere in it (a zip's end record in its tail)
    SPELLING = 6  # neither a folder nor a file, by how it is written (REPO@REV)


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

    def read_small(self, name: str, where: Any, limit: int) -> bytes | None:
        """The file's bytes, as :meth:`read_whole`, if it holds at most ``limit`` bytes when
        opened (for a file whose size the plan did not know); ``None``: stream it. Raises
        ``OSError``."""
        return None

    def checked(self, name: str) -> tuple[tuple[str, str], ...]:
        """What this opener verified of ``name``'s bytes as they were read to their end (a
        git blob's recomputed object id), carried back with the file's facts for the source's
        :class:`~verifier.sources.capabilities.ReadChecks`; ``()``: nothing."""
        return ()

    def close(self) -> None:  # noqa: B027 (a folder's opener holds nothing)
        """Close what the opener opened in this process."""


class Source(abc.ABC):
    """Read-only access to the files of an archive: what every source must do."""

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
        """What was verified, for the report and the audit record: kind, location, and the
        digest or commit where the source has one."""
        return {"kind": self.name, "location": self.description}

    def capability(self, kind: Callable[..., C]) -> C | None:
        """This source as the capability ``kind`` (an ABC of
        :mod:`verifier.sources.capabilities`), or ``None`` when it does not have it. A source
        whose capability depends on what it holds (a compressed tarball has no worker reads)
        says so here; a wrapper (a bag) answers with its inner source's capabilities.

        (``kind`` is typed as a callable: mypy refuses an abstract class for ``type[C]``.)"""
        return cast("C", self) if isinstance(self, cast(type, kind)) else None

    def close(self) -> None:  # noqa: B027 (most sources hold nothing open)
        """Release whatever the source holds open (a file, a git process)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
