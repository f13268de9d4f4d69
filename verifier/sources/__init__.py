"""Sources of archive files: a small plug-in family (see :mod:`verifier.sources.interface`).

Only a local folder exists today; zip, tar, git and BagIt sources plug in here.
"""

from __future__ import annotations

import os

from verifier.sources.directory import DirectorySource
from verifier.sources.interface import Kind, Source, SourceError


def open_source(location: str | os.PathLike[str]) -> Source:
    """The source for a location given on the command line."""
    return DirectorySource(location)


__all__ = ["DirectorySource", "Kind", "Source", "SourceError", "open_source"]
