"""Sources of archive files: a small plug-in family (see :mod:`verifier.sources.interface`).

A folder, a zip file, a tarball and a git commit hold files; a BagIt bag is a layout over any
of them. :func:`open_source` picks the member for a location from the registry
(:mod:`verifier.sources.registry`); every member applies the same safety policy
(:mod:`verifier.sources.safety`).
"""

from __future__ import annotations

import os
import re

from verifier.sources.directory import DirectorySource
from verifier.sources.interface import Kind, Layout, Source, SourceError
from verifier.sources.registry import LAYOUTS, SOURCES, recognise
from verifier.sources.safety import Limits

DEFAULT_MANIFEST = "manifest.sha256"

#: a bag's own payload or tag manifest, named at its root (RFC 8493 2.1.3, 2.2.1)
_BAG_MANIFEST = re.compile(r"(?:\./)?(?:tag)?manifest-[a-z0-9]+\.txt")


def _in_payload(manifest: str) -> str:
    """Where a named manifest is in a bag's payload (a bag whose payload is an archive)."""
    from verifier.manifest import normalize_name
    from verifier.sources.bagit import PAYLOAD

    name = normalize_name(manifest.replace(os.sep, "/"))
    return f"{PAYLOAD}/{name}" if name else ""


def open_source(
    location: str | os.PathLike[str],
    rev: str | None = None,
    limits: Limits | None = None,
    manifest: str | None = None,
    bag: bool | None = None,
) -> Source:
    """The source for a location given on the command line.

    ``rev``: read this commit of the git repository at ``location``. ``manifest``: the name of
    the manifest inside the source, if not the default (a release zip with everything inside
    one folder is read from inside that folder when the manifest is there). ``bag``: read a
    bag as a bag (default: when ``bagit.txt`` is at the root and no manifest is named, or the
    one named is in the bag's payload, ``data/``: a bag of an archive).
    """
    from verifier.sources.bagit import BAGIT_TXT, BagSource
    from verifier.sources.indexed import IndexedSource

    container = recognise(os.fspath(location), rev, limits or Limits())
    if isinstance(container, IndexedSource) and container.name != "git":
        container.reroot_for((manifest or DEFAULT_MANIFEST, BAGIT_TXT))
    if bag is None:
        bag = container.kind(BAGIT_TXT) is Kind.FILE and (
            manifest is None
            or container.kind(_in_payload(manifest)) is Kind.FILE
            # one of the bag's own manifests named, over a payload that is an archive: read
            # as the bag (which checks that manifest) so the archive's manifest is not skipped
            or (
                _BAG_MANIFEST.fullmatch(manifest) is not None
                and container.kind(_in_payload(DEFAULT_MANIFEST)) is Kind.FILE
            )
        )
    return BagSource(container) if bag else container


__all__ = [
    "LAYOUTS",
    "SOURCES",
    "DirectorySource",
    "Kind",
    "Layout",
    "Limits",
    "Source",
    "SourceError",
    "open_source",
]
