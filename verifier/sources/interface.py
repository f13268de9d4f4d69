"""The interface every source of archive files implements.

A source answers three questions about names relative to the archive root: what kind of
thing is there (without following links), which regular files lie under a folder, and what
are the bytes of a regular file, as a stream. Later sources (zip, tar, git, BagIt) implement
the same interface; the integrity stage only ever talks to it.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from enum import StrEnum
from io import BufferedIOBase, RawIOBase

Stream = RawIOBase | BufferedIOBase


class Kind(StrEnum):
    FILE = "file"
    MISSING = "missing"
    DIRECTORY = "directory"
    LINK = "link"  # the name, or a folder on its way, is a symbolic link
    OTHER = "other"  # device, FIFO, socket


class SourceError(Exception):
    """The source as a whole cannot be read (the run cannot go on)."""


class Source(abc.ABC):
    """Read-only access to the files of an archive."""

    #: a short human description, e.g. the folder's path
    description: str

    @abc.abstractmethod
    def kind(self, name: str) -> Kind:
        """What ``name`` (a normalised relative path) is, following no link."""

    @abc.abstractmethod
    def walk(self, folder: str) -> Iterator[tuple[str, Kind]]:
        """Every entry below ``folder`` ("" for the root), recursively, as relative paths.

        Links are reported as :attr:`Kind.LINK` and not followed; folders are not reported.
        """

    @abc.abstractmethod
    def open(self, name: str) -> Stream:
        """A binary stream of a regular file. Raises ``OSError`` if it cannot be read."""
