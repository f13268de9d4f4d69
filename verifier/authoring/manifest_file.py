"""``verify-evidence manifest``: compute (and optionally write) a manifest deterministically."""

from __future__ import annotations

import hashlib
import os

from verifier.atomicwrite import write_atomic
from verifier.errors import UsageError
from verifier.manifest import format_manifest, normalize_name, parse_manifest
from verifier.plan.locate import (
    MAX_MANIFEST_BYTES,
    _relative_inside,
    manifest_path,
)
from verifier.plan.scope import ALWAYS_EXCLUDED, ROOT_FILES, default_scope
from verifier.sources import DirectorySource, Kind, Source, SourceError, open_source
from verifier.sources.capabilities import WalkErrors
from verifier.sources.directory import read_regular

DEFAULT_WRITE_SCOPE = ("evidence", "schemas")


def write_manifest(
    root: str | os.PathLike[str],
    manifest: str | None,
    scope: tuple[str, ...] | None,
    write: bool,
) -> tuple[str, bytes]:
    root = os.fspath(root)
    try:
        source = open_source(root, bag=False)
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    if write and source.name != "directory":
        source.close()
        raise UsageError(f"cannot write a manifest into {root}: only into a folder")
    with source:
        return _write(source, root, manifest, scope, write)


def root_of(source: Source) -> str:
    return source.root if isinstance(source, DirectorySource) else ""


def _write(
    source: Source,
    root: str,
    manifest: str | None,
    scope: tuple[str, ...] | None,
    write: bool,
) -> tuple[str, bytes]:
    target = manifest_path(root, manifest)  # relative to ROOT, as check reads it
    rel = _relative_inside(target, root)
    if scope is None:
        existing: list[str] = []
        if os.path.isfile(target):
            parsed = parse_manifest(_read_existing(source, target, rel))
            existing = [n for e in parsed.entries if (n := normalize_name(e.name))]
        folders = (
            default_scope(existing)
            if existing
            else [d for d in DEFAULT_WRITE_SCOPE if source.kind(d) is Kind.DIRECTORY]
        )
    else:
        folders = [s.strip("/") or ROOT_FILES for s in scope]
    if not folders:
        raise UsageError(
            f"nothing to list: no --scope given and no {', '.join(DEFAULT_WRITE_SCOPE)}"
            f" folder in {root}"
        )
    entries: list[tuple[str, str]] = []
    for folder in sorted(set(folders)):
        for name, kind in source.walk("" if folder == ROOT_FILES else folder):
            if folder == ROOT_FILES and "/" in name:
                continue
            if name == rel or name.split("/", 1)[0] in ALWAYS_EXCLUDED:
                continue
            if kind is Kind.UNREADABLE:
                errors = source.capability(WalkErrors)
                why = errors.walk_error(name) if errors is not None else None
                raise UsageError(f"cannot list the folder {name or '.'}: {why or 'unreadable'}")
            if kind is not Kind.FILE:
                raise UsageError(
                    f"refusing to list {name}: it is a "
                    f"{'symbolic link' if kind is Kind.LINK else 'special file'}"
                )
            digest = hashlib.sha256()
            with source.open(name) as stream:
                for chunk in iter(lambda: stream.read(1 << 17), b""):
                    digest.update(chunk)
            entries.append((name, digest.hexdigest()))
    text = format_manifest(entries)
    if write:
        try:
            write_atomic(target, text)
        except OSError as exc:
            raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    return target, text


def _read_existing(source: Source, target: str, rel: str | None) -> bytes:
    """The manifest already there, read as ``check`` reads it (a regular file, through real
    folders, bounded), for the folders it covers."""
    if rel is not None and source.kind(rel) is not Kind.FILE:
        raise UsageError(f"refusing to read {target}: it is a link or a special file")
    where = target if rel is None else os.path.join(root_of(source), *rel.split("/"))
    try:
        return read_regular(where, MAX_MANIFEST_BYTES, follow=rel is None)
    except OSError as exc:
        raise UsageError(f"cannot read {target}: {exc.strerror or exc}") from None
