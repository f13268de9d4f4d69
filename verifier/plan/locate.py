"""Where the manifest is and its bytes: a name inside the source (a regular file of it, never a
link or a special file, within the limits), or the caller's own file; and the base folder
the manifest's names are relative to. Part of the plan: read before anything else."""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

from verifier.errors import UsageError
from verifier.findings import Finding
from verifier.manifest import normalize_name
from verifier.sources import DirectorySource, Kind, Source
from verifier.sources.capabilities import layout_of
from verifier.sources.directory import NotRegularError, read_regular

if TYPE_CHECKING:
    from verifier.plan.options import Options

DEFAULT_MANIFEST = "manifest.sha256"
MAX_MANIFEST_BYTES = 256 * 1024 * 1024  # a million lines of long names fit in a quarter of it


#: names a missing default manifest is looked for under, to suggest one (lower-cased match)
CANDIDATE_NAMES = ("sha256sums", "sha256sums.txt")
CANDIDATE_SUFFIXES = (".sha256", ".sha256sum", ".sha256sums")
CANDIDATE_PREFIXES = ("checksums.", "checksum.")
_MAX_LISTED = 10_000  # entries of the root looked at for candidates, at most


def manifest_path(root: str, manifest: str | None) -> str:
    """Where a folder's manifest is: ``ROOT/manifest.sha256`` by default; a name given
    relative (``SHA256SUMS``, ``release/SHA256SUMS``) is relative to ROOT; an absolute path or
    one that starts with ``./`` or ``../`` is taken as given (relative to the working
    directory)."""
    if manifest is None:
        return os.path.join(root, DEFAULT_MANIFEST)
    given = manifest.replace(os.sep, "/")
    if os.path.isabs(manifest) or given.startswith(("./", "../")) or given in (".", ".."):
        return manifest
    return os.path.join(root, manifest)


def manifest_candidates(root: str) -> list[str]:
    """Files directly in ``root`` that look like a manifest (``SHA256SUMS``, ``*.sha256``,
    ``checksums.*``), sorted, five at most; never follows a link, never reads one."""
    found: list[str] = []
    try:
        with os.scandir(root) as entries:
            for i, entry in enumerate(entries):
                if i >= _MAX_LISTED:
                    break
                low = entry.name.lower()
                if not (
                    low in CANDIDATE_NAMES
                    or low.endswith(CANDIDATE_SUFFIXES)
                    or low.startswith(CANDIDATE_PREFIXES)
                ):
                    continue
                if entry.is_file(follow_symlinks=False):
                    found.append(entry.name)
    except OSError:
        return []
    return sorted(found)[:5]


def _missing(root: str, path: str, options: Options) -> UsageError:
    message = f"no manifest: {path} does not exist"
    if options.manifest is None:
        candidates = manifest_candidates(root)
        if candidates:
            named = ", ".join(candidates)
            message += f"; found {named} in {root}: pass --manifest {candidates[0]}"
        else:
            message += (
                "; name it with --manifest, or write one with 'verify-evidence manifest --write'"
            )
    return UsageError(message)


def _relative_inside(path: str, root: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        return None
    return rel.replace(os.sep, "/")


class ManifestRefused(Exception):
    """The manifest is inside the archive but not a regular file within it (a link, a FIFO, a
    device), or over :data:`MAX_MANIFEST_BYTES`: a finding, never read."""

    def __init__(self, label: str, why: str) -> None:
        super().__init__(why)
        self.label = label


def read_manifest(
    root: str, options: Options, source: Source | None = None
) -> tuple[str, bytes, str | None]:
    """The manifest's label, bytes and path relative to the root (``None`` if outside).

    A manifest inside the root is archive content: it must be a regular file reached through
    real folders (``source`` checks every segment), opened without following a link and
    without blocking (a FIFO is never waited on), and at most :data:`MAX_MANIFEST_BYTES`
    (and ``--max-bytes``); otherwise :class:`ManifestRefused`. A manifest outside the root is
    the caller's own file: it must be a regular file too, or the command cannot run
    (:class:`UsageError`); a missing manifest is a :class:`UsageError` either way."""
    path = manifest_path(root, options.manifest)
    rel = _relative_inside(path, root)
    label = rel if rel is not None else path
    limit = min(MAX_MANIFEST_BYTES, options.limits.max_bytes)
    if rel is not None and source is not None:
        kind = source.kind(rel)
        if kind is Kind.LINK:
            raise ManifestRefused(label, f"{label} is, or goes through, a symbolic link")
        if kind is Kind.OTHER:
            raise ManifestRefused(label, f"{label} is a special file (a FIFO, device or socket)")
    try:
        # inside the root, the very name kind() checked (not "link/.." spelt in ``path``)
        where = path if rel is None else os.path.join(root, *rel.split("/"))
        data = read_regular(where, limit, follow=rel is None)
    except FileNotFoundError:
        raise _missing(root, path, options) from None
    except IsADirectoryError:
        raise UsageError(f"the manifest {path} is a directory") from None
    except NotRegularError as exc:
        if rel is not None:
            raise ManifestRefused(label, f"{label}: {exc}") from None
        raise UsageError(f"the manifest {path}: {exc}") from None
    except OSError as exc:
        if rel is not None and exc.errno == errno.ELOOP:
            raise ManifestRefused(label, f"{label} is a symbolic link") from None
        raise UsageError(f"cannot read the manifest {path}: {exc.strerror or exc}") from None
    return label, data, rel


def read_member(source: Source, name: str) -> bytes:
    try:
        with source.open(name) as stream:
            return stream.read()
    except OSError as exc:
        raise UsageError(
            f"cannot read {name} in {source.description}: {exc.strerror or exc}"
        ) from None


def _refused(label: str, why: str) -> Finding:
    return Finding(
        "manifest.refused",
        label,
        f"The manifest was not read: {why}. Replace it with a regular file of the archive.",
    )


def find_manifest(
    source: Source, root: str, options: Options
) -> tuple[tuple[str, bytes, str | None] | None, list[Finding]]:
    """Find and read the manifest: a name inside the source, or (for a folder, or when no such
    name is inside an archive) a local file. ``None``: reading the source stopped (at a limit
    or at damage, each a finding of its own) before the manifest was reached, or the manifest
    is not a regular file of the archive (the finding returned beside it)."""
    if isinstance(source, DirectorySource):
        try:
            return read_manifest(root, options, source), []
        except ManifestRefused as exc:
            return None, [_refused(exc.label, str(exc))]
    name = options.manifest or layout_of(source).manifest
    member = normalize_name(name.replace(os.sep, "/"))
    kind = source.kind(member) if member is not None else Kind.MISSING
    if member is not None and kind is Kind.FILE:
        try:
            with source.open(member) as stream:
                return (member, stream.read(), member), []
        except OSError as exc:  # damage in the archive's bytes: a finding, not exit 2
            if not source.complete():
                return None, []  # the source's own finding says where reading stopped
            why = exc.strerror or str(exc)
            return None, [
                Finding(
                    "source.unreadable",
                    member,
                    f"The manifest could not be read: {why}; nothing was checked against it. "
                    "Re-create or re-download the archive.",
                )
            ]
    if member is not None and kind in (Kind.LINK, Kind.OTHER):
        what = "a link" if kind is Kind.LINK else "a special file"
        return None, [_refused(member, f"{member} is {what}")]
    if options.manifest and os.path.isfile(options.manifest):  # the caller's own file
        from dataclasses import replace

        local = replace(options, manifest=os.path.abspath(options.manifest))
        return read_manifest(root, local), []
    if not source.complete() or source.name == "bag":
        return None, []  # a finding says why: a limit, damage, or a bag without its manifest
    raise UsageError(f"no manifest: {source.description} holds no {name}")


def base_folder(source: Source, options: Options) -> str:
    if options.base is None or options.base.strip("/") in ("", "."):
        return ""
    base = normalize_name(options.base.strip("/"))
    if base is None:
        raise UsageError(f"--base {options.base}: not a relative folder inside the source")
    if source.kind(base) is not Kind.DIRECTORY:
        raise UsageError(f"--base {options.base}: no such folder in {source.description}")
    return base
