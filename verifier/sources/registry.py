"""The source kinds: one module per kind, one line here each.

A container kind's module has ``probe(location, rev, by, limits) -> Source | None``: the
source, when the location is of its kind by ``by`` (:class:`~verifier.sources.interface.By`),
else ``None``. Its line here says which steps it is asked at and how the help text and the
message for a location of no kind describe it. A layout (a BagIt bag) is read over any
container; its line names its class.

The registry's order is the order the kinds are asked in at each step, the CLI's help lists
them in and the JSON Schemas' enums hold (a test compares them).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from verifier.registry import Registry, said
from verifier.sources.interface import By, Source

if TYPE_CHECKING:
    from verifier.sources.safety import Limits

#: ``probe(location, rev, by, limits)``: the source, or ``None`` when not of this kind
Probe = Callable[[str, "str | None", By, "Limits"], "Source | None"]


@dataclass(frozen=True, slots=True)
class SourceKind:
    """A registry line: the kind's name, where its probe (or layout class) lives, the steps
    it is recognised at (none: a layout, read over any container), how ``--help`` says what
    a location of the kind looks like, and how the message for a location of no kind does."""

    name: str
    where: str
    by: tuple[By, ...]
    looks: str
    reads: str = ""


M = TypeVar("M")


class Kinds(Registry[M], Generic[M]):
    """A family of source kinds, name -> probe or layout class (imported on first use)."""

    __slots__ = ()

    def kind(self, name: str) -> SourceKind:
        """The line of ``name``, without importing its module."""
        return cast(SourceKind, self.entry(name))

    def asked(self, by: By) -> list[str]:
        """The kinds recognised by ``by``, in the order they are asked."""
        return [name for name in self if by in self.kind(name).by]


SOURCES: Kinds[Probe] = Kinds(
    "source",
    SourceKind(
        "directory", "verifier.sources.directory:probe", (By.FOLDER,), "a folder", "a folder"
    ),
    SourceKind("zip", "verifier.sources.zip:probe", (By.NAME, By.BYTES), "a .zip", "a .zip file"),
    SourceKind(
        "tar",
        "verifier.sources.tar:probe",
        (By.HEAD,),
        "a .tar/.tar.gz/.tgz/.tar.xz",
        "a tarball (.tar, .tar.gz/.tgz, .tar.xz, .tar.bz2)",
    ),
    SourceKind(
        "git",
        "verifier.sources.git:probe",
        (By.REV, By.SPELLING),
        "REPO@REV (a git commit, read from git's objects)",
        "REPO@REV of a git repository",
    ),
)

#: layouts read over any container kind (a location is never recognised as one)
LAYOUTS: Kinds[Callable[[Source], Source]] = Kinds(
    "layout",
    SourceKind("bag", "verifier.sources.bagit:BagSource", (), "a BagIt bag in any of these"),
)


def reads() -> str:
    """What a location can be, for a message about one that is none of them."""
    return said(SOURCES.kind(name).reads for name in SOURCES)


def missing(location: str) -> str:
    """Why a location that is neither a folder nor a file cannot be read: it does not exist,
    it is a link to nothing, or it is something else (a device, a pipe)."""
    if os.path.islink(location):
        return f"{location} is a link to a file or folder that does not exist"
    if os.path.lexists(location):
        return f"{location} is neither a folder nor a file: give {reads()}"
    if "@" in location.lstrip("@"):
        return f"{location} does not exist, nor is the part before its @ a folder (REPO@REV)"
    return f"{location} does not exist"


def looks() -> str:
    """What a location can be, for ``--help``: every container kind, then every layout."""
    return said(k.kind(name).looks for k in (SOURCES, LAYOUTS) for name in k)


def steps(location: str, rev: str | None) -> tuple[By, ...]:
    """The steps a location is probed by (one kind of location each)."""
    if rev is not None:
        return (By.REV,)
    if os.path.isdir(location):
        return (By.FOLDER,)
    if os.path.isfile(location):
        return (By.NAME, By.HEAD, By.BYTES)
    return (By.SPELLING,)


def recognise(location: str, rev: str | None, limits: Limits) -> Source:
    """The container at ``location``: the first kind that answers, step by step. Raises
    :class:`~verifier.sources.interface.SourceError` when none does."""
    from verifier.sources.interface import SourceError

    taken = steps(location, rev)
    for by in taken:
        if by is By.HEAD:  # a file that cannot be read says so, not that it is of no kind
            try:
                with open(location, "rb"):
                    pass
            except OSError as exc:
                raise SourceError(f"cannot read {location}: {exc.strerror or exc}") from None
        for name in SOURCES.asked(by):
            source = SOURCES[name](location, rev, by, limits)
            if source is not None:
                return source
    if By.HEAD in taken:
        raise SourceError(f"{location} is not an archive this tool reads: give {reads()}")
    raise SourceError(missing(location))


__all__ = [
    "LAYOUTS",
    "SOURCES",
    "By",
    "Kinds",
    "Probe",
    "SourceKind",
    "looks",
    "reads",
    "recognise",
]
