"""The pipeline: source -> integrity -> validity -> consistency -> report.

Each stage reports its own findings; a later stage never hides an earlier one (a record whose
digest mismatched is still parsed and checked, and both findings are reported).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from verifier import __version__
from verifier.consistency import DEFAULT_SPEC, check_consistency
from verifier.integrity import check_integrity
from verifier.model import Report
from verifier.sources import Source, open_source
from verifier.validity import check_validity, is_schema_path

DEFAULT_MANIFEST = "manifest.sha256"


class UsageError(Exception):
    """The run cannot go on (no manifest, root missing, bad option): exit 2, one line."""


@dataclass(frozen=True, slots=True)
class Options:
    """What to verify and how. The CLI fills this; the library API takes it directly."""

    manifest: str | None = None  # a path; default ROOT/manifest.sha256
    scope: tuple[str, ...] | None = None  # folders looked in for unlisted files
    schemas_dir: str = "schemas"
    records_dir: str = "evidence"
    assertions: str = DEFAULT_SPEC


def _relative_inside(path: str, root: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        return None
    return rel.replace(os.sep, "/")


def read_manifest(root: str, options: Options) -> tuple[str, bytes, str | None]:
    """The manifest's label, bytes and path relative to the root (``None`` if outside)."""
    path = options.manifest or os.path.join(root, DEFAULT_MANIFEST)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise UsageError(f"no manifest: {path} does not exist") from None
    except IsADirectoryError:
        raise UsageError(f"the manifest {path} is a directory") from None
    except OSError as exc:
        raise UsageError(f"cannot read the manifest {path}: {exc.strerror or exc}") from None
    rel = _relative_inside(path, root)
    return (rel if rel is not None else path), data, rel


def verify_source(source: Source, root: str, options: Options = Options()) -> Report:
    label, data, rel = read_manifest(root, options)
    scope = [s.strip("/") or "." for s in options.scope] if options.scope is not None else None
    records_prefix = options.records_dir.strip("/") + "/"

    def is_record(path: str) -> bool:
        return path.startswith(records_prefix) and path.endswith(".json")

    def keep(path: str) -> bool:
        return is_record(path) or is_schema_path(path, options.schemas_dir)

    integrity, used_scope = check_integrity(source, label, data, rel, scope, keep)
    validity = check_validity(integrity.contents, options.schemas_dir, is_record)
    spec_present = options.assertions in integrity.contents or any(
        f.path == options.assertions for f in integrity.files
    )
    consistency, assertions = check_consistency(
        validity.records, integrity.listed, options.assertions, spec_present
    )
    return Report(
        tool_version=__version__,
        manifest=label,
        scope=used_scope,
        integrity=integrity.stage,
        validity=validity.stage,
        consistency=consistency,
        files=integrity.files,
        assertions=assertions,
        records=validity.records,
    )


def verify(root: str | os.PathLike[str] = ".", options: Options = Options()) -> Report:
    """Verify the archive at ``root``. Raises :class:`UsageError` if it cannot run at all."""
    from verifier.sources import SourceError

    try:
        source = open_source(root)
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    return verify_source(source, os.fspath(root), options)
