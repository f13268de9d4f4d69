"""The signatures over the manifest: ``--signature FILE``, or the files beside the manifest
named after it (``manifest.sha256.sig``, ``.minisig``, ``.asc``, ``.gpg``, ``.sign``).

Read once, here, in the plan step, beside the manifest's own bytes (the very bytes integrity
hashes and authenticity verifies). A signature inside the source is archive content: it must
be a regular file there and at most :data:`MAX_SIGNATURE_BYTES`, or it is a finding, never
read. ``--signature`` names the caller's own file: one that cannot be read stops the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.authenticity.interface import SignatureFile
from verifier.authenticity.registry import MAX_SIGNATURE_BYTES, SUFFIXES
from verifier.errors import UsageError
from verifier.findings import Finding
from verifier.sources.capabilities import SizeHints
from verifier.sources.directory import NotRegularError, read_regular
from verifier.sources.interface import Kind, Source

if TYPE_CHECKING:
    from verifier.plan.options import Options


def find_signatures(
    source: Source, label: str, rel: str | None, options: Options
) -> tuple[list[SignatureFile], list[Finding]]:
    """The signatures to check and the findings of those refused (a link, a special file,
    one over the size limit)."""
    given = options.trust.signature
    if given is not None:
        return [SignatureFile(given, _read_local(given, required=True) or b"")], []
    found: list[SignatureFile] = []
    refused: list[Finding] = []
    for suffix in SUFFIXES:
        if rel is None:  # the manifest is the caller's own file: so are the files beside it
            data = _read_local(label + suffix, required=False)
            if data is not None:
                found.append(SignatureFile(label + suffix, data))
            continue
        name = rel + suffix
        kind = source.kind(name)
        if kind in (Kind.MISSING, Kind.DIRECTORY):
            continue
        if kind is not Kind.FILE:
            refused.append(_refused(name, f"it is {kind.noun}, not a regular file"))
            continue
        sizes = source.capability(SizeHints)  # none: the bounded read below decides
        size = sizes.size_hint(name) if sizes is not None else 0
        if size > MAX_SIGNATURE_BYTES:
            refused.append(_refused(name, f"{size} bytes, over {MAX_SIGNATURE_BYTES}"))
            continue
        try:
            with source.open(name) as stream:
                data = stream.read(MAX_SIGNATURE_BYTES + 1)
        except OSError as exc:
            refused.append(_refused(name, f"it could not be read ({exc.strerror or exc})"))
            continue
        if len(data) > MAX_SIGNATURE_BYTES:
            refused.append(_refused(name, f"over {MAX_SIGNATURE_BYTES} bytes"))
            continue
        found.append(SignatureFile(name, data))
    return found, refused


def _refused(name: str, why: str) -> Finding:
    return Finding("signature.unparsable", name, f"Refused unread: {why}.")


def _read_local(path: str, *, required: bool) -> bytes | None:
    try:
        return read_regular(path, MAX_SIGNATURE_BYTES, follow=True)
    except FileNotFoundError:
        if required:
            raise UsageError(f"--signature {path}: no such file") from None
        return None
    except (NotRegularError, OSError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"cannot read the signature {path}: {why}") from None


__all__ = ["find_signatures"]
