"""Files the publisher lists in the manifest but withholds (personal data, a provider's export
under contract): ``withheld.json`` beside the manifest names each with the reason.

``{"withheld": [{"path": "evidence/run-7/raw.json", "reason": "personal data"}]}``: each
``path`` is a name as the manifest writes it, and must be one the manifest lists; the list
itself must be listed in the manifest too, so that its digest (and a signature over the
manifest) binds it: an unlisted list could be anyone's, and is not honored. A withheld file
that is absent is reported as withheld, never as missing and never as verified: its SHA-256
is committed, nothing about its content is checked, and an assertion that needs it is not
evaluable. Read once, with the manifest, from the bytes that are hashed.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from verifier.findings import Finding
from verifier.json.parse import loads_strict
from verifier.plan.entries import ManifestPlan
from verifier.sources.interface import Kind, Source

NAME = "withheld.json"
MAX_BYTES = 16 << 20  # a list of names and reasons; a larger file is refused unread
MAX_SHOWN = 200


@dataclass(frozen=True, slots=True)
class Withheld:
    """The withheld list read with the manifest: where it is in the source, its bytes (for
    the digest: the one read), the files it withholds (paths in the source, with the reason)
    and what is wrong with it."""

    path: str
    data: bytes = field(repr=False)
    files: Mapping[str, str]
    findings: tuple[Finding, ...]
    #: the list of the archive in a bag's payload, for the bag's run (:class:`Adopted`): the
    #: archive's run reports on the list and its entries, against its manifest
    adopted: bool = False


def _shown(text: str) -> str:
    return repr(text[:MAX_SHOWN] + ("..." if len(text) > MAX_SHOWN else ""))


def read_withheld(
    source: Source, manifest: str | None, base: str, listed: Mapping[str, str]
) -> Withheld | None:
    """The withheld list beside the manifest at ``manifest`` (its path in the source), if the
    source holds one; ``listed``: the manifest's files (paths in the source), ``base`` the
    folder their names are relative to."""
    if manifest is None:
        return None
    folder = posixpath.dirname(manifest)
    path = posixpath.join(folder, NAME) if folder else NAME
    if source.kind(path) is not Kind.FILE:
        return None
    try:
        with source.open(path) as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as exc:
        why = f"could not be read ({exc.strerror or exc})"
        return Withheld(path, b"", {}, (_malformed(path, why),))
    if len(data) > MAX_BYTES:
        return Withheld(path, b"", {}, (_malformed(path, f"is over {MAX_BYTES} bytes"),))
    files, findings = _entries(path, data, base, listed)
    if path not in listed:
        unbound = Finding(
            "withheld.unbound",
            path,
            "The withheld list is not listed in the manifest, so nothing binds it to the "
            "manifest or its signature: it is not honored, and the files it names are judged "
            "as any listed file. List it in the manifest.",
        )
        return Withheld(path, data, {}, (unbound, *findings))
    return Withheld(path, data, files, tuple(findings))


def _malformed(path: str, why: str, pointer: str | None = None, whole: bool = True) -> Finding:
    what = "no file is taken as withheld by it" if whole else "that entry is not honored"
    return Finding(
        "withheld.malformed",
        path,
        f"The withheld list {why}, so {what}; write it as "
        '{"withheld": [{"path": NAME, "reason": TEXT}, ...]}.',
        pointer=pointer,
    )


def _entries(
    path: str, data: bytes, base: str, listed: Mapping[str, str]
) -> tuple[dict[str, str], list[Finding]]:
    value, problems = loads_strict(data)
    if problems:
        return {}, [_malformed(path, f"is not strict JSON ({problems[0].message})")]
    items = value.get("withheld") if isinstance(value, dict) else None
    if not isinstance(items, list) or not items:
        return {}, [_malformed(path, "holds no 'withheld' list of entries", "/withheld")]
    files: dict[str, str] = {}
    findings: list[Finding] = []
    for k, item in enumerate(items):
        name = item.get("path") if isinstance(item, dict) else None
        reason = item.get("reason") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name or not isinstance(reason, str) or not reason:
            findings.append(
                _malformed(path, f"entry {k} is not a path and a reason", f"/withheld/{k}", False)
            )
            continue
        where = f"{base}/{name}" if base else name
        if where in files:
            findings.append(
                _malformed(path, f"names {_shown(name)} twice", f"/withheld/{k}/path", False)
            )
        elif where not in listed:
            findings.append(
                Finding(
                    "withheld.not-listed",
                    path,
                    f"The withheld list names {_shown(name)}, which the manifest does not "
                    "list: a withheld file must be listed, with the digest it is committed "
                    "to.",
                    pointer=f"/withheld/{k}/path",
                )
            )
        else:
            files[where] = reason
    return files, findings


@dataclass(frozen=True, slots=True)
class Adopted:
    """The withheld list of the evidence archive that a bag's payload holds, for the bag's
    own run (whose records are the payload's): ``withheld`` with its paths in the bag,
    ``digests`` what the archive's manifest commits each to (in ``algorithm``), ``base``
    the payload folder the archive's names are relative to."""

    withheld: Withheld
    digests: Mapping[str, str]
    algorithm: str
    base: str
    manifest: str  # the archive's manifest, by its path in the bag


def adopted(withheld: Withheld | None, manifest: ManifestPlan, prefix: str) -> Adopted | None:
    """The honored entries of an archive's withheld list (``manifest``: the archive's, its
    paths in the archive) as the bag holding the archive under ``prefix`` names them."""
    if withheld is None or not withheld.files:
        return None
    files = {prefix + path: reason for path, reason in withheld.files.items()}
    listed = manifest.wanted
    digests = {prefix + path: listed[path] for path in withheld.files}
    moved = Withheld(prefix + withheld.path, b"", files, (), adopted=True)
    label = prefix + (manifest.rel or manifest.label)
    return Adopted(moved, digests, manifest.algorithm, prefix.rstrip("/"), label)


def supply(source: Source, withheld: Withheld, base: str, options: Any) -> Source | None:
    """``source`` with the withheld files it does not hold read from ``--withheld-dir`` (by
    the names the manifest gives them), or ``None`` when the folder supplies none of them.
    The folder is read as a folder source (its safety rules: no link followed)."""
    from verifier.errors import UsageError
    from verifier.sources import open_source
    from verifier.sources.supplied import SuppliedSource

    folder_path = options.withheld_dir
    if not os.path.isdir(folder_path):
        raise UsageError(f"--withheld-dir {folder_path}: not a folder")
    folder = open_source(folder_path, limits=options.limits)
    cut = len(base) + 1 if base else 0
    names = {}
    for path in withheld.files:
        if source.kind(path) is Kind.MISSING and folder.kind(path[cut:]) is Kind.FILE:
            names[path] = path[cut:]
    if not names:
        folder.close()
        return None
    return SuppliedSource(source, folder, names)


__all__ = ["NAME", "Adopted", "Withheld", "adopted", "read_withheld", "supply"]
