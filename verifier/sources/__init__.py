"""Sources of archive files: a small plug-in family (see :mod:`verifier.sources.interface`).

A folder, a zip file, a tarball and a git commit hold files; a BagIt bag is a layout over any
of them. :func:`open_source` picks the member for a location; every member applies the same
safety policy (:mod:`verifier.sources.safety`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from types import MappingProxyType

from verifier.sources.directory import DirectorySource
from verifier.sources.interface import READS, Kind, Layout, Source, SourceError, missing
from verifier.sources.safety import Limits

DEFAULT_MANIFEST = "manifest.sha256"

#: The source kinds, for help texts and docs: name -> what a location looks like.
KINDS: Mapping[str, str] = MappingProxyType(
    {
        "directory": "a folder",
        "zip": "a .zip file",
        "tar": "a .tar, .tar.gz/.tgz, .tar.xz or .tar.bz2 file",
        "git": "REPO@REV, or --git REPO --rev REV: a commit read from git's objects",
        "bag": "a BagIt bag (bagit.txt at the root) in any of the above",
    }
)


def _container(location: str, rev: str | None, limits: Limits) -> Source:
    from verifier.sources.git import GitSource, split_location
    from verifier.sources.tar import TarSource, looks_like_tar
    from verifier.sources.zip import ZipSource, is_zip

    if rev is not None:
        return GitSource(location, rev, limits)
    if os.path.isdir(location):
        return DirectorySource(location)
    if os.path.isfile(location):
        if location.lower().endswith(".zip"):
            return ZipSource(location, limits)
        try:  # a file that cannot be read says so, not that it is of no kind read
            with open(location, "rb"):
                pass
        except OSError as exc:
            raise SourceError(f"cannot read {location}: {exc.strerror or exc}") from None
        if looks_like_tar(location):
            return TarSource(location, limits)
        if is_zip(location):
            return ZipSource(location, limits)
        raise SourceError(f"{location} is not an archive this tool reads: give {READS}")
    split = split_location(location)
    if split is not None:
        return GitSource(split[0], split[1], limits)
    raise SourceError(missing(location))


#: a bag's own payload or tag manifest, named at its root (RFC 8493 2.1.3, 2.2.1)
_BAG_MANIFEST = re.compile(r"(?:\./)?(?:tag)?manifest-[a-z0-9]+\.txt")


def _in_payload(manifest: str) -> str:
    """Where a named manifest is in a bag's payload (a bag whose payload is an archive)."""
    from verifier.plan.manifest import normalize_name
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

    container = _container(os.fspath(location), rev, limits or Limits())
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
    "KINDS",
    "DirectorySource",
    "Kind",
    "Layout",
    "Limits",
    "Source",
    "SourceError",
    "open_source",
]
